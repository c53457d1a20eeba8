#!/usr/bin/env bats
# Hardening (issue 16): no silent wrong answers at the edges. Each test names the
# item it guards; each failed on the binary before its fix.

load stack_fixtures

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T="$BATS_TEST_TMPDIR"
	TOP=
}

teardown() {
	[ -z "$TOP" ] || rm -rf "$TOP"
}

# A directory for big fixtures: tmpfs when it has 2 GiB free (a container's
# /dev/shm is often 64 MiB), else the test's own directory.
bigtmp() {
	local kb
	kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
	if [ -z "${CD_TEST_ON_DISK:-}" ] && [ "${kb:-0}" -gt 2097152 ]; then
		mktemp -d /dev/shm/cd-hard-XXXXXX
	else
		mktemp -d "$T/big-XXXXXX"
	fi
}

# Item 6: a failed write of the output is one message and exit status 4.
@test "every command, --help and --version: >/dev/full is one message and exit 4" {
	printf 'RuntimeError: CUDA error: no kernel image is available\n' >"$T/log"
	local c
	for c in "--version" "--help" "check --help" "check" "check --json" \
		"check --format markdown" "check --format html" "--format prometheus check" \
		"jit" "ldd $CD" "explain $T/log" "fix" "gate" "model $T/nothing" "probe --print-ptx"; do
		# shellcheck disable=SC2086 # the words of $c are the arguments
		run bash -c '"$0" "$@" >/dev/full' "$CD" $c
		echo "$c: $status: $output"
		[ "$status" -eq 4 ]
		[ "$output" = "cuda-doctor: cannot write the output: No space left on device" ]
	done
}

@test "a closed pipe with SIGPIPE ignored (EPIPE) is the same message and exit 4" {
	run python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, restore_signals=False)
sys.stdout.write(p.stderr.decode())
sys.exit(p.returncode)' "$CD" check --json
	[ "$status" -eq 4 ]
	[ "$output" = "cuda-doctor: cannot write the output: Broken pipe" ]
}

# Run as a user who is not root (nobody, when the tests run as root).
as_user() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	fi
}

# Item 2: a --root the user cannot enter is a usage error, never a healthy machine.
@test "--root that cannot be entered (mode 0700, not its owner) is exit 2 with the cause" {
	[ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null || skip "needs setpriv to drop root"
	local top c
	# Under /tmp, not the test's own directory: that one is 0700 itself.
	TOP=$(mktemp -d /tmp/cd-hard-XXXXXX)
	top=$TOP
	chmod 755 "$top"
	mkdir -p "$top/img/etc"
	chmod 700 "$top/img"
	[ "$(id -u)" -ne 0 ] || chown 0:0 "$top/img"
	for c in check "check --json" jit fix gate "ldd /bin/true"; do
		# shellcheck disable=SC2086 # the words of $c are the arguments
		run as_user "$CD" --root "$top/img" $c
		echo "$c: $status: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--root $top/img: Permission denied"* ]]
	done
}

# Item 5: a torch/version.py that cannot be read leaves the build unknown,
# never "(CPU build)", in check's text and in jit's.
@test "unreadable or missing torch/version.py: the build prints as unknown, not CPU" {
	local R="$T/root" vpy how
	vpy="$R/opt/torch/.venv/lib/python3.12/site-packages/torch/version.py"
	for how in unreadable missing; do
		rm -rf "$R"
		make_h200 "$R"
		rm -f "$vpy"
		[ "$how" = missing ] || mkdir "$vpy" # a directory: no read of it succeeds, root or not
		run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" --no-color check
		echo "$how: $output"
		[[ "$output" != *"CPU build"* ]]
		[[ "$output" == *"torch 2.11.0+cu130 (build unknown: /opt/torch/.venv/lib/python3.12/site-packages/torch/version.py "* ]]
		run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" --no-color jit
		[[ "$output" != *"CPU-only"* ]]
	done
}

# Item 7: the command line says what is wrong, the same way everywhere.
@test "jit --gpu-cc with an entry that is not MAJOR.MINOR is a usage error, not 'no GPU'" {
	local v
	for v in x.y 9.0,abc 9 9.0, ,9.0 9.0.1; do
		run "$CD" jit --gpu-cc "$v"
		echo "$v: $status: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"is not a compute capability"* ]]
	done
	run "$CD" jit --json --gpu-cc 9.0,8.6
	[ "$status" -ne 2 ]
	run "$CD" jit --gpu-cc "$(printf '9.0,%.0s' {1..64})9.0"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--gpu-cc: more than 64 GPUs"* ]]
}

@test "model: --gpu-memory past 64 values and --seq-len past its range say so" {
	run "$CD" model "$T" --gpu-memory "$(printf '1G,%.0s' {1..64})1G"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--gpu-memory: more than 64 GPUs"* ]]
	run "$CD" model "$T" --gpu-memory 24G,lots
	[ "$status" -eq 2 ]
	[[ "$output" == *"--gpu-memory: 'lots' of '24G,lots': expected BYTES"* ]]
	run "$CD" model "$T" --seq-len 9223372036854775807
	[ "$status" -eq 2 ]
	[[ "$output" == *"--seq-len 9223372036854775807: larger than the 4294967296"* ]]
}

@test "an error message longer than its buffer keeps its cause" {
	local long
	long="$T/$(printf 'a%.0s' {1..250})/$(printf 'b%.0s' {1..250})/$(printf 'c%.0s' {1..100}).so"
	run "$CD" ldd "$long"
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *" ... "*"ccc.so: No such file or directory" ]]
	run "$CD" --root "${long%.so}" check
	[ "$status" -eq 2 ]
	[[ "${lines[0]}" == *": No such file or directory" ]]
}

@test "-- ends the options of ldd, model and explain alike" {
	mkdir -p "$T/w"
	cp "$CD_FAKES/libcuda.so.1" "$T/w/-odd.so"
	printf 'RuntimeError: CUDA error: no kernel image is available for execution on the device\n' >"$T/w/-odd.log"
	cd "$T/w"
	run "$CD" ldd -- -odd.so
	[ "$status" -eq 0 ]
	[[ "$output" == *"-odd.so"* ]]
	run "$CD" --no-color explain --no-env -- -odd.log
	[ "$status" -ne 2 ]
	[[ "$output" == *"no kernel image"* ]]
	run "$CD" model -- "$T/w/nothing"
	echo "$output"
	[ "$status" -ne 2 ]
	[[ "$output" == *"model-not-found"* || "$output" == *"not found"* ]]
}

@test "ldd of a relative path in a deleted working directory is not read from /" {
	mkdir -p "$T/gone"
	cd "$T/gone"
	rmdir "$T/gone"
	run "$CD" ldd relative.so
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" != *": /relative.so:"* ]]
	[[ "$output" == *"relative.so: No such file or directory"* ]]
}

@test "explain's limit of 64 inputs is a usage error the docs and --help state" {
	local -a many
	local i
	: >"$T/empty.log"
	for i in $(seq 65); do many+=("$T/empty.log"); done
	run "$CD" explain --no-env "${many[@]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"more than 64 inputs"* ]]
	grep -q "At most 64 inputs" "$BATS_TEST_DIRNAME/../../docs/explain.md"
	run "$CD" explain --help
	[[ "$output" == *"at most 64"* ]]
}

@test "run -- sh -c 'sleep 15 & exit 1' returns with 1 at once: a background child is not waited for" {
	local t0 t1
	t0=$(date +%s)
	run "$CD" run --no-env -- sh -c "echo started; sleep 15 & echo \$! >'$T/bg.pid'; exit 1"
	t1=$(date +%s)
	kill "$(cat "$T/bg.pid")" 2>/dev/null || true
	echo "$status $((t1 - t0))s: $output"
	[ "$status" -eq 1 ]
	[ $((t1 - t0)) -lt 5 ]
	[[ "$output" == *"started"* ]]
}

# Item 9: seen as a new user would.
@test "make run: check's findings (exit 1) are the report, not a failed make; exit 2 or 3 still fails" {
	local top="$BATS_TEST_DIRNAME/../.." rc
	mkdir -p "$T/b"
	for rc in 0 1 3; do
		printf '#!/bin/sh\necho report\nexit %s\n' "$rc" >"$T/b/cuda-doctor"
		chmod +x "$T/b/cuda-doctor"
		run env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory -C "$top" BUILD="$T/b" run-check
		echo "$rc: $status: $output"
		if [ "$rc" -le 1 ]; then [ "$status" -eq 0 ]; else [ "$status" -ne 0 ]; fi
		[[ "$output" == report* ]]
	done
	grep -q '^run: deps' "$top/Makefile"
	grep -A3 '^run: deps' "$top/Makefile" | grep -q 'run-check'
}

@test "make install: the binary and the man page under DESTDIR and PREFIX" {
	local top="$BATS_TEST_DIRNAME/../.."
	run env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s --no-print-directory -C "$top" BUILD="$(dirname "$CD")" DESTDIR="$T/dest" PREFIX=/opt/cd install
	echo "$output"
	[ "$status" -eq 0 ]
	[ -x "$T/dest/opt/cd/bin/cuda-doctor" ]
	[ -f "$T/dest/opt/cd/share/man/man1/cuda-doctor.1" ]
	run "$T/dest/opt/cd/bin/cuda-doctor" --version
	[ "$status" -eq 0 ]
	cmp "$CD" "$T/dest/opt/cd/bin/cuda-doctor"
}

@test "check's text marks an unknown section '?', never a tick" {
	mkdir -p "$T/empty"
	run env -i PATH=/usr/bin:/bin "$CD" --root "$T/empty" --no-color check
	[[ "$output" == *"? GPUs (unknown)"* ]]
	[[ "$output" != *"✓ GPUs (unknown)"* ]]
	[[ "$output" == *"? NVIDIA driver"* ]]
}

@test "a version tuple in a log (cuDNN's (9, 19, 0)) is printed as 9.19.0" {
	printf '%s\n' "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 19, 0) but found runtime version (9, 14, 0). PyTorch already comes bundled with cuDNN." >"$T/cudnn.log"
	run "$CD" --no-color explain --no-env "$T/cudnn.log"
	echo "$output"
	[[ "$output" == *"compiled=9.19.0  runtime=9.14.0"* ]]
	[[ "$(grep -v '^  line ' <<<"$output")" != *"9, 19, 0"* ]]
}

@test "lib-shadowed by LD_LIBRARY_PATH: no reinstall of the wheel among its fixes" {
	grep -A3 '"fix": \[' "$BATS_TEST_DIRNAME/golden/check/torch-shadowed.json" | grep -q 'unset LD_LIBRARY_PATH'
	! grep -q 'force-reinstall --no-deps .nvidia-cudnn' "$BATS_TEST_DIRNAME/golden/check/torch-shadowed.txt" || false
}

# Item 1: the cap on installed packages is reported and never loses torch,
# nvidia-*, transformers or deepspeed; past it an absent package is unknown.
@test "25,000 and 60,000 distributions: truncated is said, torch and its wheels are kept, no false requirement-unmet" {
	local R site n
	# 60,000 directories: on tmpfs when there is one (seconds, not minutes on a disk)
	TOP=$(bigtmp)
	R="$TOP/root"
	site="$R/opt/torch/.venv/lib/python3.12/site-packages"
	make_h200 "$R"
	dist "$site" deepspeed 0.18.0
	for n in 25000 60000; do
		python3 -c '
import os, sys
site, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(site, "filler%06d-1.0.dist-info" % i)
    if not os.path.isdir(d):
        os.mkdir(d)
        with open(os.path.join(d, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: filler%06d\nVersion: 1.0\n" % i)' "$site" "$n"
		run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" check --json
		jq -c '{torch: .torch.version, python: .python.site_packages}' <<<"$output" || echo "$output" | head -5
		[ "$(jq -r '.python.site_packages[0].truncated' <<<"$output")" = true ]
		[ "$(jq -r '.torch.version' <<<"$output")" = 2.11.0+cu130 ]
		[ "$(jq -r '.packages.torch + " " + .packages["nvidia-cudnn-cu13"] + " " + .packages.transformers + " " + .packages.deepspeed' <<<"$output")" = \
			"2.11.0+cu130 9.19.0.56 5.17.0 0.18.0" ]
		[ "$(jq -r '[.findings[] | select(.id == "package-requirement-unmet")] | length' <<<"$output")" = 0 ]
		run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" --no-color -v check
		[[ "$output" == *"truncated at the scan's cap"* ]]
	done
}

# Item 11: the Markdown report, made to be pasted into an issue, stays well
# under GitHub's 65,536-character limit whatever the environment.
@test "check --format markdown with 2,000 distributions: under 50,000 bytes, key facts, how to get the rest" {
	local R site
	TOP=$(bigtmp)
	R="$TOP/root"
	site="$R/opt/torch/.venv/lib/python3.12/site-packages"
	make_h200 "$R"
	python3 -c '
import os, sys
for i in range(2000):
    d = os.path.join(sys.argv[1], "a-distribution-with-a-long-name-%06d-1.0.0.dist-info" % i)
    os.mkdir(d)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: a-distribution-with-a-long-name-%06d\nVersion: 1.0.0\n" % i)' "$site"
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" check --format markdown
	echo "${#output} bytes"
	[ "${#output}" -lt 50000 ]
	[[ "$output" == *"<summary>Key facts</summary>"* ]]
	[[ "$output" == *"| torch | 2.11.0+cu130, CUDA 13.0 |"* ]]
	[[ "$output" == *"distributions"* ]]
	[[ "$output" == *"--format markdown --full-json"* ]]
	[[ "$output" != *"Full report (JSON)"* ]]
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" check --format markdown --full-json
	[[ "$output" == *"Full report (JSON)"* ]]
	[[ "$output" == *"a-distribution-with-a-long-name-001999"* ]]
}

# Item 3: a signal to cuda-doctor's process group during jit --compile stops
# the isolated nvcc (its own group), removes the temporary directory, and
# exits 128+N.
@test "jit --compile: SIGINT, SIGTERM, SIGHUP, SIGQUIT to the group: no orphan nvcc, no directory left, 128+N" {
	command -v c++ >/dev/null || skip "no C++ compiler"
	local ft="$T/ft" sig num pid nv i rc
	mkdir -p "$ft/bin" "$ft/include" "$ft/lib64" "$T/tmp"
	printf '{"cuda_nvcc": {"version": "13.0.88"}}\n' >"$ft/version.json"
	printf '#!/bin/sh\necho $$ >"%s"\nexec sleep 30\n' "$T/nvcc.pid" >"$ft/bin/nvcc"
	chmod 755 "$ft/bin/nvcc"
	set -m # background jobs in their own process group, as a shell's foreground job is
	for sig in INT TERM HUP QUIT; do
		rm -f "$T/nvcc.pid"
		env TMPDIR="$T/tmp" CUDA_HOME="$ft" "$CD" jit --compile --json -q --gpu-cc 9.0 \
			--build-timeout 60 >/dev/null 2>&1 &
		pid=$!
		for i in $(seq 100); do [ -s "$T/nvcc.pid" ] && break; sleep 0.1; done
		nv=$(cat "$T/nvcc.pid")
		[ -n "$nv" ]
		kill -"$sig" -- -"$pid" # the group, as Ctrl-C (or a terminal hang-up) sends it
		rc=0
		wait "$pid" || rc=$?
		num=$(kill -l "$sig")
		echo "$sig: exit $rc, nvcc $nv"
		[ "$rc" -eq $((128 + num)) ]
		sleep 0.2
		! kill -0 "$nv" 2>/dev/null || false
		[ -z "$(ls -A "$T/tmp")" ]
	done
	set +m
}

# Item 4: a section header that claims 10 GB of a sparse file costs nothing.
@test "ldd: an .nv_fatbin header claiming 10 GB of a sparse file: no walk through it, under a second and 64 MB" {
	command -v objcopy >/dev/null || skip "needs objcopy"
	local so
	TOP=$(bigtmp)
	so="$TOP/huge.so"
	head -c 4096 /dev/urandom >"$TOP/junk"
	objcopy --add-section .nv_fatbin="$TOP/junk" "$CD_FAKES/libcuda.so.1" "$so" 2>/dev/null
	python3 -c '
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff = struct.unpack_from("<Q", d, 0x28)[0]
ent, num, stri = struct.unpack_from("<HHH", d, 0x3a)
strtab = struct.unpack_from("<Q", d, shoff + stri * ent + 0x18)[0]
for i in range(num):
    o = shoff + i * ent
    nm = struct.unpack_from("<I", d, o)[0]
    if d[strtab + nm:d.index(b"\0", strtab + nm)] == b".nv_fatbin":
        struct.pack_into("<Q", d, o + 0x20, 10 << 30)  # sh_size: 10 GiB
open(sys.argv[1], "wb").write(d)' "$so"
	truncate -s $(((10 << 30) + (1 << 20))) "$so" # sparse: the claim is inside the file
	run /usr/bin/time -f "%M %e" -o "$TOP/time" "$CD" ldd --json "$so"
	[ "$status" -eq 0 ]
	read -r kb secs <"$TOP/time"
	echo "$kb KB, $secs s"
	[ "$kb" -lt 65536 ]
	[ "${secs%%.*}" -lt 1 ]
	[[ "$(jq -r .fatbin.error <<<"$output")" == "no fatbin container in the 1048576 bytes after offset 0"* ]]
	[ "$(jq -r .fatbin.complete <<<"$output")" = false ]
}

# A sanitizer build: its allocator's redzones and quarantine make a heap's
# peak RSS no measure of the code (mapped files are still measured).
san_build() {
	ldd "$CD" | grep -q libasan
}

# Set the sh_size of section NAME in the ELF64 file FILE to SIZE.
section_size() {
	python3 -c '
import struct, sys
path, name, size = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
d = bytearray(open(path, "rb").read())
shoff = struct.unpack_from("<Q", d, 0x28)[0]
ent, num, stri = struct.unpack_from("<HHH", d, 0x3a)
strtab = struct.unpack_from("<Q", d, shoff + stri * ent + 0x18)[0]
hit = 0
for i in range(num):
    o = shoff + i * ent
    nm = struct.unpack_from("<I", d, o)[0]
    if d[strtab + nm:d.index(b"\0", strtab + nm)] == name:
        struct.pack_into("<Q", d, o + 0x20, size)
        hit = 1
        print(struct.unpack_from("<Q", d, o + 0x18)[0])  # the section offset
open(path, "wb").write(d)
sys.exit(0 if hit else 1)' "$@"
}

# One fatbin container (version 1, one sm_90 SASS entry of 64 bytes), as a
# data section would embed it, written into FILE at OFFSET.
fatbin_at() {
	python3 -c '
import struct, sys
entry = struct.pack("<HHIQ", 2, 0, 64, 64) + bytes(8) + struct.pack("<HHI", 0, 0, 90)
entry += bytes(8) + struct.pack("<Q", 0x11) + bytes(16)
blob = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, 128) + entry + b"\x7fELF" + bytes(60)
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2]))
    f.write(blob)' "$@"
}

# Item 4: a data section's header claiming 10 GiB of a sparse file costs what
# the file holds: the holes are skipped, not read as 10 GiB of zeros (10.5 GB
# and 34 s before), and a container past them is still found.
@test "ldd: a .rodata header claiming 10 GiB of a sparse file: holes skipped, a container past them found, under a second and 64 MB" {
	local so off
	TOP=$(bigtmp)
	so="$TOP/huge.so"
	cp "$CD_FAKES/libcuda.so.1" "$so"
	off=$(section_size "$so" .rodata $((10 << 30)))
	truncate -s $(((10 << 30) + (1 << 20))) "$so"
	fatbin_at "$so" $((off + (8 << 30) + 4096))
	run /usr/bin/time -f "%M %e" -o "$TOP/time" "$CD" ldd --json "$so"
	[ "$status" -eq 0 ]
	read -r kb secs <"$TOP/time"
	echo "$kb KB, $secs s"
	[ "$kb" -lt 65536 ]
	[ "${secs%%.*}" -lt 1 ]
	[ "$(jq -r '.archs.sass | join(" ")' <<<"$output")" = sm_90 ]
	[ "$(jq -r '.fatbin.embedded_sections | join(",")' <<<"$output")" = .rodata ]
	[ "$(jq -r .fatbin.embedded_containers <<<"$output")" = 1 ]
	[ "$(jq -r .fatbin.complete <<<"$output")" = true ]
}

# Item 4: a data section that claims more than the file holds is reported
# (it was skipped in silence: "no device code").
@test "ldd: a data section running past the end of the file is reported, not skipped in silence" {
	local so="$T/eof.so"
	cp "$CD_FAKES/libcuda.so.1" "$so"
	section_size "$so" .rodata $((10 << 30)) >/dev/null
	run "$CD" ldd --json "$so"
	[ "$status" -eq 0 ]
	[ "$(jq -r .fatbin.complete <<<"$output")" = false ]
	[[ "$(jq -r .fatbin.error <<<"$output")" == ".rodata: 10737418240 bytes at offset "*" run past the end of the "*"-byte file; not searched" ]]
	run "$CD" ldd "$so"
	[[ "$output" == *"cuda: data scan incomplete: .rodata: 10737418240 bytes at offset"* ]]
	[[ "$output" != *"no device code"* ]]
}

# Item 4: the bytes a data scan searches are capped (1 GiB; cuFFT's .ldata is
# 286 MB), --scan-data or not, and the cap is said; the pages behind the
# scan are dropped as it goes (1.1 GB of resident memory before).
@test "ldd: a data scan stops at its cap of 1 GiB of bytes really present and says so, in 64 MB" {
	local so
	TOP=$(bigtmp)
	so="$TOP/big.so"
	cp "$CD_FAKES/libcuda.so.1" "$so"
	section_size "$so" .rodata $((1100 << 20)) >/dev/null
	head -c $((1101 << 20)) /dev/zero >>"$so" # written: data, not a hole
	run /usr/bin/time -f "%M %e" -o "$TOP/time" "$CD" ldd --json --scan-data "$so"
	[ "$status" -eq 0 ]
	read -r kb secs <"$TOP/time"
	echo "$kb KB, $secs s"
	[ "$kb" -lt 65536 ]
	[ "${secs%%.*}" -lt 5 ]
	[ "$(jq -r .fatbin.complete <<<"$output")" = false ]
	[ "$(jq -r .fatbin.error <<<"$output")" = "data sections: only the first 1024 MiB were searched (the cap)" ]
}

# Item 8: a shard index naming 1,000,000 shards is refused at the cap of
# 4,096 shard files, said in the index's problem, in bounded memory: the
# index is read without a JSON tree and the read stops at the cap (14.9 s,
# then 2.6-3.95 s and 361 MB before, with 4,096 of the shards listed as
# missing and the rest dropped in silence).
@test "model: an index of 1,000,000 shards is refused at its cap of 4,096, in seconds and under 128 MB" {
	TOP=$(bigtmp)
	python3 -c '
import json, os, sys
d = sys.argv[1]
json.dump({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
           "num_hidden_layers": 1, "num_attention_heads": 1, "vocab_size": 10,
           "torch_dtype": "bfloat16"}, open(d + "/config.json", "w"))
n = 1000000
json.dump({"metadata": {"total_size": 1},
           "weight_map": {"t%d" % i: "model-%07d-of-%07d.safetensors" % (i, n) for i in range(n)}},
          open(d + "/model.safetensors.index.json", "w"))' "$TOP"
	local t0=$SECONDS kb
	run /usr/bin/time -f "%M" -o "$TOP/kb" "$CD" model "$TOP" --gpu-memory 80G --json
	echo "$((SECONDS - t0)) s"
	[ $((SECONDS - t0)) -lt 10 ]
	[ "$(jq -r .model.weights.format <<<"$output")" = safetensors-sharded ]
	kb=$(tail -n 1 "$TOP/kb")
	echo "$kb KB"
	san_build || [ "$kb" -lt 131072 ]
	[ "$(jq -r .model.weights.index_error <<<"$output")" = \
		"model.safetensors.index.json names more than 4096 shard files: cuda-doctor checks at most 4096 (a real checkpoint has at most a few thousand)" ]
	[ "$(jq -r '.model.weights.files | length' <<<"$output")" = 1 ]
	[ "$(jq -r '[.findings[].id] | index("model-weights-corrupt") != null' <<<"$output")" = true ]
}

# Item 8: an index of 1,000,000 tensors in 100 shards (under both caps) is
# read whole: every shard checked, in bounded memory (238 MB and 3.3 s before).
@test "model: an index of 1,000,000 tensors in 100 shards: every shard checked, under 128 MB" {
	TOP=$(bigtmp)
	python3 -c '
import json, sys
d = sys.argv[1]
json.dump({"model_type": "llama", "architectures": ["LlamaForCausalLM"]}, open(d + "/config.json", "w"))
json.dump({"metadata": {"total_size": 1},
           "weight_map": {"layers.%d.w" % i: "model-%05d.safetensors" % (i // 10000) for i in range(1000000)}},
          open(d + "/model.safetensors.index.json", "w"))' "$TOP"
	local kb
	run /usr/bin/time -f "%M %e" -o "$TOP/kb" "$CD" model "$TOP" --gpu-memory 80G --json
	read -r kb secs < <(tail -n 1 "$TOP/kb")
	echo "$kb KB, $secs s"
	san_build || [ "$kb" -lt 131072 ]
	[ "$(jq -r .model.weights.index_error <<<"$output")" = null ]
	[ "$(jq -r '[.model.weights.files[] | select(.state == "missing")] | length' <<<"$output")" = 100 ]
	[ "$(jq -r '.model.weights.files[1].name' <<<"$output")" = model-00000.safetensors ]
}
