#!/usr/bin/env bats
# CUDA archs of real nvcc-built objects: `cuda-doctor ldd` must list exactly
# the SASS and PTX targets given to -gencode (including the a/f variants),
# and, where cuobjdump is installed, exactly what `cuobjdump --list-elf` and
# `--list-ptx` list. Skipped cleanly when nvcc is absent.

setup_file() {
	NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
	export NVCC
	[ -x "$NVCC" ] || return 0
	D="$BATS_FILE_TMPDIR"
	printf '%s\n' '__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }' \
		'extern "C" void launch(float *x) { k<<<1, 32>>>(x); }' >"$D/k.cu"
	# SASS: 75 80 86 90 90a 100a 100f 103 120 121f; PTX: 80 90a 100f 110 120
	"$NVCC" -Xcompiler -fPIC -shared -o "$D/libmulti.so" "$D/k.cu" \
		-gencode arch=compute_75,code=sm_75 \
		-gencode arch=compute_80,code=[sm_80,compute_80] \
		-gencode arch=compute_86,code=sm_86 \
		-gencode arch=compute_90a,code=[sm_90a,compute_90a] \
		-gencode arch=compute_90,code=sm_90 \
		-gencode arch=compute_100f,code=[sm_100f,compute_100f] \
		-gencode arch=compute_100a,code=sm_100a \
		-gencode arch=compute_103,code=sm_103 \
		-gencode arch=compute_120,code=[sm_120,compute_120] \
		-gencode arch=compute_121f,code=sm_121f \
		-gencode arch=compute_110,code=compute_110 >"$D/nvcc.log" 2>&1 || true
	# Every image compressed, one PTX-only target.
	"$NVCC" -Xcompiler -fPIC -shared -Xfatbin -compress-all -o "$D/libz.so" "$D/k.cu" \
		-gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=sm_90 \
		>>"$D/nvcc.log" 2>&1 || true
	# A relocatable object with LTO IR (__nv_relfatbin).
	"$NVCC" -dc -Xcompiler -fPIC -o "$D/lto.o" "$D/k.cu" \
		-gencode arch=compute_80,code=lto_80 -gencode arch=compute_90,code=sm_90 \
		>>"$D/nvcc.log" 2>&1 || true
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	D="$BATS_FILE_TMPDIR"
	[ -x "$NVCC" ] || skip "nvcc is not installed"
	[ -f "$D/libmulti.so" ] || { cat "$D/nvcc.log" >&2; false; }
}

archs() {
	"$CD" ldd --json "$1" | jq -r ".archs.$2 | join(\" \")"
}

@test "fatbin: SASS and PTX archs of a -gencode build, a/f variants included" {
	[ "$(archs "$D/libmulti.so" sass)" = "sm_75 sm_80 sm_86 sm_90 sm_90a sm_100a sm_100f sm_103 sm_120 sm_121f" ]
	[ "$(archs "$D/libmulti.so" ptx)" = "compute_80 compute_90a compute_100f compute_110 compute_120" ]
	run "$CD" ldd --json "$D/libmulti.so"
	[ "$(jq -r .fatbin.section <<<"$output")" = .nv_fatbin ]
	[ "$(jq -r .fatbin.complete <<<"$output")" = true ]
	[ "$(jq -r '.fatbin.containers >= 1' <<<"$output")" = true ]
	run "$CD" ldd "$D/libmulti.so"
	[[ "$output" == *"cuda sass: sm_75 sm_80 sm_86 sm_90 sm_90a"* ]]
}

@test "fatbin: compressed images are listed without being read" {
	[ "$(archs "$D/libz.so" sass)" = "sm_90" ]
	[ "$(archs "$D/libz.so" ptx)" = "compute_80" ]
	run "$CD" ldd --json "$D/libz.so"
	[ "$(jq -r '.fatbin.compressed_entries == .fatbin.entries' <<<"$output")" = true ]
}

@test "fatbin: a relocatable object's __nv_relfatbin and its LTO IR" {
	run "$CD" ldd --json "$D/lto.o"
	[ "$status" -eq 0 ]
	[ "$(jq -r .fatbin.section <<<"$output")" = __nv_relfatbin ]
	[ "$(jq -r '.archs.lto | join(" ")' <<<"$output")" = lto_80 ]
	[ "$(jq -r '.archs.sass | join(" ")' <<<"$output")" = sm_90 ]
	[ "$(jq -r '.needs | length' <<<"$output")" = 0 ]
}

@test "fatbin: containers embedded in .rodata (bin2c) are found by the data scan" {
	BIN2C="$(dirname "$NVCC")/bin2c"
	[ -x "$BIN2C" ] || skip "bin2c is not installed"
	objcopy -O binary --only-section=.nv_fatbin "$D/libz.so" "$D/z.fatbin"
	# Unaligned on purpose: one byte before the array.
	{ echo 'const char pad = 1;'; "$BIN2C" -c -n embedded_fatbin "$D/z.fatbin"; } >"$D/emb.c"
	gcc -shared -fPIC -o "$D/libemb.so" "$D/emb.c"
	run "$CD" ldd --json "$D/libemb.so"
	[ "$(jq -r '.archs.sass | join(" ")' <<<"$output")" = sm_90 ]
	[ "$(jq -r '.archs.ptx | join(" ")' <<<"$output")" = compute_80 ]
	[ "$(jq -r .fatbin.section <<<"$output")" = null ]
	[ "$(jq -r '.fatbin.embedded_sections | join(",")' <<<"$output")" = .rodata ]
	[ "$(jq -r '.fatbin.embedded_containers > 0' <<<"$output")" = true ]
	run "$CD" ldd --json --no-scan-data "$D/libemb.so"
	[ "$(jq -r '.archs.sass | length' <<<"$output")" = 0 ]
	[ "$(jq -r .fatbin.data_scanned <<<"$output")" = false ]
}

@test "fatbin: the same lists as cuobjdump --list-elf / --list-ptx" {
	CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
	[ -x "$CUOBJDUMP" ] || skip "cuobjdump is not installed"
	for f in "$D/libmulti.so" "$D/libz.so"; do
		want=$("$CUOBJDUMP" --list-elf "$f" | sed -n 's/.*\.\(sm_[0-9]*[af]\?\)\..*/\1/p' |
			sort -u | sort -V | tr '\n' ' ' | sed 's/ $//')
		got=$(archs "$f" sass | tr ' ' '\n' | sort -V | tr '\n' ' ' | sed 's/ $//')
		[ "$want" = "$got" ]
		want=$("$CUOBJDUMP" --list-ptx "$f" | sed -n 's/.*\.\(sm_[0-9]*[af]\?\)\..*/\1/p' |
			sed 's/^sm_/compute_/' | sort -u | sort -V | tr '\n' ' ' | sed 's/ $//')
		got=$(archs "$f" ptx | tr ' ' '\n' | sort -V | tr '\n' ' ' | sed 's/ $//')
		[ "$want" = "$got" ]
	done
}
