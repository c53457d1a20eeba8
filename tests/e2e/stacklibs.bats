#!/usr/bin/env bats
# What `import torch` will really load, read from files: the libraries of
# torch's wheel layout resolved as glibc would (RPATH, RUNPATH, LD_LIBRARY_PATH,
# LD_PRELOAD, torch's preloads, cuDNN's dlopens), their versions and copies,
# the arch list of libtorch_cuda.so against the GPUs of the fake NVML, the ABI
# of extensions, JAX / TensorFlow builds, and the lib-* / arch-unsupported /
# extension-abi-mismatch / driver-too-old findings. Fixtures: stacklibs_fixtures.bash.

load stacklibs_fixtures

setup_file() {
	T="$BATS_FILE_TMPDIR/template"
	S="$BATS_FILE_TMPDIR/src"
	mkdir -p "$S"
	fx_sources "$S"
	fx_fatbins "$S"
	make_torch_root "$T" "$S"
	export T S
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	R="$BATS_TEST_TMPDIR/root"
	cp -a "$T" "$R"
	SITE=$R/opt/torch/.venv/lib/python3.12/site-packages
	VSITE=/opt/torch/.venv/lib/python3.12/site-packages
}

# cdj [ENV=VALUE...] -- [ARGS...]: `check --json` on the fixture, clean environment.
cdj() {
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "${envs[@]}" \
		"$CD" --root "$R" check --json "$@"
}

# with_gpu MODE [ENV...]: the same with the fake NVML / libcuda.
with_gpu() {
	local mode=$1
	shift
	cdj CD_FAKE_MODE="$mode" "$@" -- --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1"
}

item() { # item SONAME-PREFIX FIELDS: fields of the first item with that soname
	jq -r --arg s "$1" "[.libraries.items[] | select((.soname // \"\") | startswith(\$s))][0] | $2"
}
ids() { jq -r '[.findings[].id] | join(" ")'; }
finding() { jq -c --arg id "$1" '[.findings[] | select(.id == $id)]'; }
need_nvcc() { [ -f "$S/torch_k.o" ] || skip "nvcc is not installed"; }

@test "H200 layout: what loads, by which rule, versions from the wheels' RECORD" {
	run cdj
	[ "$status" -eq 0 ]
	[ "$(jq -r .libraries.resolved_from <<<"$output")" = "$VSITE/torch/_C.cpython-312-x86_64-linux-gnu.so" ]
	[ "$(jq -r .libraries.program <<<"$output")" = /usr/bin/python3.12 ]
	# torch/__init__.py (>= 2.10) preloads the wheels' copies by path
	[ "$(item libcudnn.so.9 '.path + " " + .how + " " + .rule' <<<"$output")" = \
		"$VSITE/nvidia/cudnn/lib/libcudnn.so.9 torch_preload path" ]
	[ "$(item libcudnn.so.9 '.version + " " + .version_source + " " + .owner' <<<"$output")" = \
		"9.19.0.56 wheel nvidia-cudnn-cu13 9.19.0.56" ]
	# DT_NEEDED through torch's RPATH, as the loader names it
	[ "$(item libcudart.so.13 '.path + " " + .rule + " " + .realpath' <<<"$output")" = \
		"$VSITE/torch/lib/../../nvidia/cu13/lib/libcudart.so.13 rpath $VSITE/nvidia/cu13/lib/libcudart.so.13" ]
	# cuDNN's sub-libraries: dlopen from libcudnn / libcudnn_graph, their RUNPATH
	[ "$(item libcudnn_graph.so.9 '.how + " " + .rule + " " + .requested_by' <<<"$output")" = \
		"dlopen runpath $VSITE/nvidia/cudnn/lib/libcudnn.so.9" ]
	[ "$(item libcudnn_engines_precompiled.so.9 .requested_by <<<"$output")" = \
		"$VSITE/nvidia/cudnn/lib/libcudnn_graph.so.9" ]
	# NVRTC's builtins: MAJOR.MINOR from the nvrtc wheel (a quoted RECORD row)
	[ "$(item libnvrtc-builtins.so.13.0 '.owner' <<<"$output")" = "nvidia-cuda-nvrtc 13.0.88" ]
	[ "$(jq -c '.torch | [.cudnn_version, .nccl_version, .cuda_runtime_version]' <<<"$output")" = \
		'["9.19.0.56","2.28.9","13.0.96"]' ]
	# the copies on disk, with the version each file name carries
	[ "$(item libcudnn.so.9 '.other_copies | map(.path + " " + .version) | join(",")' <<<"$output")" = \
		"/usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0 9.14.0" ]
	# only the driver, torch's lazy linalg library and a cuDNN 9.20 engine are not found
	[ "$(jq -r '[.libraries.not_found[] | .name + ":" + (.optional|tostring)] | join(" ")' <<<"$output")" = \
		"libcudnn_engines_tensor_ir.so.9:true libcuda.so.1:false libtorch_cuda_linalg.so:true" ]
	[ "$(ids <<<"$output")" = "toolkit-missing lib-duplicate lib-duplicate" ] ||
		[ "$(ids <<<"$output")" = "lib-duplicate lib-duplicate toolkit-missing" ]
}

@test "lib-duplicate: the system cuDNN 9.14 is on disk, torch loads the pip 9.19" {
	run cdj
	f=$(finding lib-duplicate <<<"$output")
	[ "$(jq -r '.[] | select(.title | startswith("cuDNN")) | .severity' <<<"$f")" = info ]
	[ "$(jq -r '.[] | select(.title | startswith("cuDNN")) | .title' <<<"$f")" = \
		"cuDNN 9.14.0 is on disk next to the cuDNN 9.19.0.56 torch loads" ]
	[ "$(jq -r '.[] | select(.title | startswith("cuDNN")) | .evidence[0]' <<<"$f")" = \
		"loaded: $VSITE/nvidia/cudnn/lib/libcudnn.so.9 9.19.0.56 (path, nvidia-cudnn-cu13 9.19.0.56)" ]
	[ "$(jq -r '.[] | select(.title | startswith("NCCL")) | .title' <<<"$f")" = \
		"NCCL 2.28.3 is on disk next to the NCCL 2.28.9 torch loads" ]
}

@test "lib-shadowed: LD_LIBRARY_PATH before cuDNN's RUNPATH mixes two cuDNN releases" {
	run cdj LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/opt/other
	[ "$status" -eq 1 ]
	# libcudnn.so.9 itself still comes from the wheel (torch preloads it; RPATH beats LD_LIBRARY_PATH)
	[ "$(jq -r .torch.cudnn_version <<<"$output")" = 9.19.0.56 ]
	[ "$(item libcudnn_graph.so.9 '.rule + " " + .realpath + " " + .shadowed.intended' <<<"$output")" = \
		"ld_library_path /usr/lib/x86_64-linux-gnu/libcudnn_graph.so.9.14.0 $VSITE/nvidia/cudnn/lib/libcudnn_graph.so.9" ]
	f=$(finding lib-shadowed <<<"$output")
	[ "$(jq length <<<"$f")" -eq 1 ]
	[ "$(jq -r '.[0].severity' <<<"$f")" = error ]
	[ "$(jq -r '.[0].title' <<<"$f")" = \
		"7 libraries torch loads come from /usr/lib/x86_64-linux-gnu instead of $VSITE/nvidia/cudnn/lib" ]
	[[ "$(jq -r '.[0].detail' <<<"$f")" == *CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH* ]]
	[ "$(jq -r '.[0].fix[0]' <<<"$f")" = \
		"export LD_LIBRARY_PATH='/opt/other'   # without /usr/lib/x86_64-linux-gnu" ]
	# the same with nothing else on the path: unset it
	run cdj LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/
	[[ "$(finding lib-shadowed <<<"$output" | jq -r '.[0].fix[0]')" == "unset LD_LIBRARY_PATH"* ]]
}

@test "lib-shadowed: an LD_PRELOAD copy answers torch's DT_NEEDED" {
	# the host's loader warns on stderr about the in-root path: keep stdout only
	run bash -c "$(declare -f cdj); CD=$CD R=$R cdj LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 2>/dev/null"
	[ "$(jq -r .torch.nccl_version <<<"$output")" = 2.28.3 ]
	[ "$(item libnccl.so.2 '.how + " " + .shadowed.intended_version' <<<"$output")" = "ld_preload 2.28.9" ]
	f=$(finding lib-shadowed <<<"$output")
	[ "$(jq -r '.[0].severity' <<<"$f")" = error ]
	[[ "$(jq -r '.[0].fix[0]' <<<"$f")" == "unset LD_PRELOAD"* ]]
}

@test "lib-shadowed: a sub-library missing from the cuDNN wheel comes from the system one" {
	rm "$SITE/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9"
	run cdj
	[ "$(item libcudnn_engines_precompiled.so.9 '.rule + " " + .realpath + " " + (.shadowed.mixed|tostring)' <<<"$output")" = \
		"default /usr/lib/x86_64-linux-gnu/libcudnn_engines_precompiled.so.9.14.0 true" ]
	f=$(finding lib-shadowed <<<"$output")
	[ "$(jq -r '.[0].severity' <<<"$f")" = error ]
	[[ "$(jq -r '.[0].fix | join("\n")' <<<"$f")" == *"pip install --force-reinstall --no-deps 'nvidia-cudnn-cu13==9.19.0.56'"* ]]
}

@test "lib-missing: a DT_NEEDED of torch found nowhere predicts the ImportError" {
	rm "$SITE/nvidia/nccl/lib/libnccl.so.2" "$R/usr/lib/x86_64-linux-gnu/libnccl.so.2"*
	mkdir -p "$R/usr/local/cuda-13.0/lib64"
	cp "$T/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3" "$R/usr/local/cuda-13.0/lib64/libnccl.so.2"
	run cdj
	[ "$status" -eq 1 ]
	f=$(finding lib-missing <<<"$output")
	[ "$(jq length <<<"$f")" -eq 1 ]
	[ "$(jq -r '.[0].title' <<<"$f")" = \
		"libnccl.so.2, needed by $VSITE/torch/lib/libtorch_cuda.so, is found by no rule of the loader" ]
	[[ "$(jq -r '.[0].detail' <<<"$f")" == *'ImportError: libnccl.so.2: cannot open shared object file'* ]]
	[ "$(jq -r '.[0].fix[0]' <<<"$f")" = \
		'export LD_LIBRARY_PATH=/usr/local/cuda-13.0/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}' ]
	[[ "$(jq -r '.[0].fix[1]' <<<"$f")" == *"--force-reinstall --no-deps 'nvidia-nccl-cu13==2.28.9'"* ]]
	[ "$(jq -r .torch.nccl_version <<<"$output")" = null ]
}

@test "lib-missing: a run-time dlopen found nowhere is a warning" {
	rm "$SITE/nvidia/cu13/lib/libnvrtc.so.13"
	run cdj
	f=$(finding lib-missing <<<"$output")
	[ "$(jq -r '[.[] | .severity + " " + (.title | split(",")[0])] | join(";")' <<<"$f")" = \
		"warning libnvrtc.so.13;warning libnvrtc.so.13" ] ||
		[ "$(jq -r '.[0].severity' <<<"$f")" = warning ]
	[[ "$(jq -r '.[0].detail' <<<"$f")" == *"torch imports, but"* ]]
}

@test "lib-missing: with no pin to copy, the fix names the wheel of torch's CUDA major (13: no -cu13 suffix)" {
	# torch pins NVRTC through cuda-toolkit[nvrtc]; this root's cuda-toolkit pins no NVRTC
	rm "$SITE/nvidia/cu13/lib/libnvrtc.so.13"
	run cdj
	f=$(finding lib-missing <<<"$output")
	[[ "$(jq -r '.[0].fix | join("\n")' <<<"$f")" == *"--force-reinstall --no-deps 'nvidia-cuda-nvrtc'   # the wheel that ships libnvrtc.so.13"* ]]
	[[ "$(jq -r '.[0].fix | join("\n")' <<<"$f")" != *"cu13'"* ]]
}

@test "lib-missing: libcublasLt names the pinned cuBLAS wheel that ships it" {
	rm "$SITE/nvidia/cu13/lib/libcublasLt.so.13"
	run cdj
	f=$(finding lib-missing <<<"$output")
	[[ "$(jq -r '.[0].title' <<<"$f")" == "libcublasLt.so.13, needed by "* ]]
	[[ "$(jq -r '.[0].fix | join("\n")' <<<"$f")" == *"--force-reinstall --no-deps 'nvidia-cublas==13.1.0.3.*'   # the wheel that ships libcublasLt.so.13"* ]]
}

@test "arch_list from libtorch_cuda.so's fatbin; arch-unsupported on a T4 with the wheel to install" {
	need_nvcc
	run with_gpu old
	[ "$(jq -c .torch.arch_list <<<"$output")" = '["sm_80","sm_90"]' ]
	[ "$(jq -r '.libraries.torch_archs.containers' <<<"$output")" -ge 1 ]
	f=$(finding arch-unsupported <<<"$output")
	[ "$(jq length <<<"$f")" -eq 1 ]
	[ "$(jq -r '.[0].severity + " " + .[0].title' <<<"$f")" = \
		"error torch 2.11.0+cu130 has no kernels for GPU 0 (Tesla T4, compute capability 7.5)" ]
	[[ "$(jq -r '.[0].evidence | join("\n")' <<<"$f")" == *"libtorch_cuda.so holds sm_80 sm_90"* ]]
	# the installed cu130 wheel's own fatbin lacks sm_75, so reinstalling it cannot
	# help: cu126 has it, once the 470 driver is upgraded; 2.5.1 runs on it as it is
	[[ "$(jq -r '.[0].fix[0]' <<<"$f")" == *"--force-reinstall 'torch==2.11.0' --index-url https://download.pytorch.org/whl/cu126   # after the driver upgrade to >= 560.28.03" ]]
	[[ "$(jq -r '.[0].fix[1]' <<<"$f")" == *"--force-reinstall 'torch==2.5.1' --index-url https://download.pytorch.org/whl/cu118   # or, on this driver: torch 2.5.1, the newest release it runs" ]]
	# the 470 driver (CUDA 11.4) cannot run torch's CUDA 13.0 either
	[ "$(finding driver-too-old <<<"$output" | jq -r '.[0].section + " " + .[0].severity')" = "python error" ]
}

@test "H100 (9.0) is covered; a CUDA 12.8 driver is too old for torch cu130: the cu128 wheel" {
	need_nvcc
	run with_gpu ok
	[ "$(finding arch-unsupported <<<"$output" | jq length)" -eq 0 ]
	f=$(finding driver-too-old <<<"$output")
	[ "$(jq -r '.[0].title' <<<"$f")" = "The driver supports CUDA 12.8; torch 2.11.0+cu130 needs CUDA 13.0" ]
	[[ "$(jq -r '.[0].evidence | join("\n")' <<<"$f")" == *"libcudart torch loads: $VSITE/nvidia/cu13/lib/libcudart.so.13 (13.0.96)"* ]]
	[[ "$(jq -r '.[0].fix | join("\n")' <<<"$f")" == *"--force-reinstall 'torch==2.11.0' --index-url https://download.pytorch.org/whl/cu128"* ]]
	# the H200's driver runs it
	run with_gpu h200
	[ "$(finding driver-too-old <<<"$output" | jq length)" -eq 0 ]
}

@test "extension-abi-mismatch: an extension importing a symbol this torch lacks" {
	add_ext "$R" "$S"
	run cdj
	[ "$status" -eq 1 ]
	f=$(finding extension-abi-mismatch <<<"$output")
	[ "$(jq length <<<"$f")" -eq 1 ]
	[ "$(jq -r '.[0].title' <<<"$f")" = \
		"flash-attn 2.8.3 was built against another torch: 1 of the torch symbols it imports are missing from torch 2.11.0+cu130" ]
	[ "$(jq -r '.[0].evidence[1]' <<<"$f")" = "missing: _ZN3c1010TensorImpl19fixture_gone_in_2_11Ev" ]
	[[ "$(jq -r '.[0].detail' <<<"$f")" == *"undefined symbol: _ZN3c1010TensorImpl19fixture_gone_in_2_11Ev"* ]]
	e=$(jq -c '.libraries.extensions | map({p: (.path | split("/") | last), package, links_torch, abi})' <<<"$output")
	[ "$(jq -c '.[] | select(.package == "torchvision") | .abi' <<<"$e")" = \
		'{"torch_imports":2,"missing_count":0,"missing":[]}' ]
	[ "$(jq -c '.[] | select(.package == "flash-attn") | .abi.torch_imports' <<<"$e")" = 2 ]
}

@test "arch-unsupported for an extension: flash-attn holds sm_80 only, the H200 is 9.0" {
	need_nvcc
	add_ext "$R" "$S"
	run with_gpu h200
	f=$(finding arch-unsupported <<<"$output")
	[ "$(jq length <<<"$f")" -eq 1 ]
	[ "$(jq -r '.[0].severity + " " + .[0].title' <<<"$f")" = \
		"warning flash-attn 2.8.3 has no kernels for compute capability 9.0" ]
	[[ "$(jq -r '.[0].fix[0]' <<<"$f")" == 'TORCH_CUDA_ARCH_LIST="9.0" '*"--no-binary 'flash-attn' --force-reinstall --no-deps 'flash-attn==2.8.3'" ]]
	[ "$(jq -c '.libraries.extensions[] | select(.package == "flash-attn") | .archs.sass' <<<"$output")" = '["sm_80"]' ]
}

@test "JAX plugins and TensorFlow's build_info.py in frameworks" {
	dist "$SITE" jax 0.11.2
	dist "$SITE" jaxlib 0.11.2
	dist "$SITE" jax-cuda13-plugin 0.11.2 'jax-cuda13-pjrt==0.11.2' \
		'nvidia-cudnn-cu13<10.0,>=9.8; extra == "with-cuda"'
	dist "$SITE" tensorflow 2.20.0 'nvidia-cublas-cu12==12.5.3.2; extra == "and-cuda"'
	mkdir -p "$SITE/tensorflow/python/platform"
	printf "build_info = {'cuda_compute_capabilities': ['sm_60', 'sm_80', 'compute_90'], 'cuda_version': '12.5.1', 'cudnn_version': '9', 'is_cuda_build': True}\n" \
		>"$SITE/tensorflow/python/platform/build_info.py"
	run cdj
	[ "$(jq -c .frameworks.jax <<<"$output")" = \
		'{"jax":"0.11.2","jaxlib":"0.11.2","cuda_major":13,"plugins":[{"name":"jax-cuda13-plugin","version":"0.11.2","cuda_major":13,"nvidia_requires":["nvidia-cudnn-cu13<10.0,>=9.8; extra == \"with-cuda\""]}]}' ]
	[ "$(jq -c '.frameworks.tensorflow | [.version, .cuda_version, .cudnn_version, .is_cuda_build, .compute_capabilities, .nvidia_requires]' <<<"$output")" = \
		'["2.20.0","12.5.1","9",true,["sm_60","sm_80","compute_90"],["nvidia-cublas-cu12==12.5.3.2; extra == \"and-cuda\""]]' ]
	rm "$SITE/tensorflow/python/platform/build_info.py"
	run cdj
	[[ "$(jq -r .frameworks.tensorflow.problem <<<"$output")" == *"build_info.py is missing" ]]
	[ "$(jq -r .frameworks.tensorflow.cuda_version <<<"$output")" = null ]
}

@test "no torch/_C: libraries says why, no library findings" {
	rm "$SITE/torch/_C.cpython-312-x86_64-linux-gnu.so"
	run cdj
	[[ "$(jq -r .libraries.problem <<<"$output")" == *"No module named 'torch._C'"* ]]
	[ "$(jq '.libraries.items | length' <<<"$output")" -eq 0 ]
	[ "$(ids <<<"$output" | tr ' ' '\n' | grep -c '^lib-')" -eq 0 ]
	# not an ELF object: the loader's message, still no crash
	echo "not an elf" >"$SITE/torch/_C.cpython-312-x86_64-linux-gnu.so"
	rm "$R/usr/bin/python3.12"
	printf 'x' >"$R/usr/bin/python3.12"
	run cdj
	[ "$status" -eq 0 ]
	[[ "$(jq -r .libraries.problem <<<"$output")" == *"not an ELF object"* ]]
}

# Issue 16 item 4: a .dynsym header claiming 4,194,304 entries of a sparse
# file is read one entry at a time with its pages dropped behind (an array
# for every entry made it 170 MB before); the answer is the same.
@test "extension ABI: a .dynsym claiming 4 million entries of a sparse file costs no array of them" {
	local so kb
	add_ext "$R" "$S"
	so=$SITE/torchvision/_C.so
	python3 -c '
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
shoff = struct.unpack_from("<Q", d, 0x28)[0]
ent, num = struct.unpack_from("<HH", d, 0x3a)
for i in range(num):
    o = shoff + i * ent
    if struct.unpack_from("<I", d, o + 4)[0] == 11:  # SHT_DYNSYM
        struct.pack_into("<QQ", d, o + 0x18, 64 << 20, (4 << 20) * 24)
open(sys.argv[1], "wb").write(d)' "$so"
	truncate -s $(((64 << 20) + (4 << 20) * 24)) "$so"
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent \
		/usr/bin/time -f "%M" -o "$BATS_TEST_TMPDIR/kb" "$CD" --root "$R" check --json
	kb=$(tail -n 1 "$BATS_TEST_TMPDIR/kb") # after "Command exited with non-zero status 1"
	echo "$kb KB"
	[ "$kb" -lt 65536 ]
	[ "$(jq -c '.libraries.extensions[] | select(.package == "torchvision") | [.abi, .error]' <<<"$output")" = \
		'[{"torch_imports":0,"missing_count":0,"missing":[]},null]' ]
	# past the end of the file: an error of that extension, no verdict
	truncate -s $((64 << 20)) "$so"
	run cdj
	[ "$(jq -r '.libraries.extensions[] | select(.package == "torchvision") | .error' <<<"$output")" = \
		".dynsym or its strings outside the file" ]
}

# Issue 16 item 4: libtorch_cuda.so's .nv_fatbin header claiming 10 GiB of a
# sparse file: the walk stops after 1 MiB without a container and says so in
# torch_archs.error (it stopped there before, in silence).
@test "torch archs: a .nv_fatbin claiming 10 GiB of a sparse file: what is there, and the rest said" {
	local lib=$SITE/torch/lib/libtorch_cuda.so
	readelf -SW "$lib" | grep -q ' \.nv_fatbin ' || skip "no fatbin in the fixture (nvcc is not installed)"
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
        struct.pack_into("<Q", d, o + 0x20, 10 << 30)
open(sys.argv[1], "wb").write(d)' "$lib"
	truncate -s $(((10 << 30) + (1 << 20))) "$lib"
	run cdj
	[ "$(jq -c .libraries.torch_archs.sass <<<"$output")" = '["sm_80","sm_90"]' ]
	[[ "$(jq -r .libraries.torch_archs.error <<<"$output")" == "no fatbin container in the 1048576 bytes after offset "*" of the 10737418240-byte section: the rest is not read" ]]
}

@test "bad input under site-packages: corrupt ELF, symlink loop, 10,000 .so files (bounded)" {
	dist "$SITE" badext 1.0 'torch'
	mkdir -p "$SITE/badext/deep/er"
	printf '\177ELF\002\001\001\000garbage' >"$SITE/badext/_C.so"
	head -c 64 "$SITE/torch/lib/libc10.so" >"$SITE/badext/deep/trunc.so"
	ln -s .. "$SITE/badext/deep/er/loop"
	ln -s loop2.so "$SITE/badext/loop1.so"
	ln -s loop1.so "$SITE/badext/loop2.so"
	printf '\177ELF' >"$SITE/top_garbage.cpython-312-x86_64-linux-gnu.so"
	dist "$SITE" many 1.0 'torch'
	mkdir -p "$SITE/many"
	for i in $(seq 1 10000); do : >"$SITE/many/m$i.so"; done
	start=$(date +%s%N)
	run cdj
	end=$(date +%s%N)
	[ "$status" -eq 0 ]
	[ $(((end - start) / 1000000)) -lt 3000 ]
	[ "$(jq -r .libraries.extensions_truncated <<<"$output")" = true ]
	[ "$(jq -r .libraries.extension_files_examined <<<"$output")" -le 256 ]
	[ "$(jq -r '[.libraries.extensions[] | select(.package == "badext") | .error != null] | all' <<<"$output")" = true ]
	[ "$(jq -r '.libraries.extensions | length' <<<"$output")" -le 128 ]
	# a symbolic link loop where the wheel's NCCL should be: the loader goes on to the system copy
	rm "$SITE/nvidia/nccl/lib/libnccl.so.2"
	ln -s libnccl.so.2 "$SITE/nvidia/nccl/lib/libnccl.so.2"
	run cdj
	[ "$status" -eq 0 ]
	[ "$(jq -r .torch.nccl_version <<<"$output")" = 2.28.3 ]
	[ "$(finding lib-missing <<<"$output" | jq length)" -eq 0 ]
	# --deep lifts the caps but stays bounded
	run cdj -- --deep
	[ "$status" -eq 0 ]
	[ "$(jq -r .libraries.extension_files_examined <<<"$output")" -le 2048 ]
}

@test "text report: cuDNN, NCCL and the CUDA runtime torch loads, and the archs" {
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" check --no-color
	[[ "$output" == *"cuDNN 9.19.0.56: $VSITE/nvidia/cudnn/lib/libcudnn.so.9 [path]"* ]]
	[[ "$output" == *"NCCL 2.28.9: $VSITE/nvidia/nccl/lib/libnccl.so.2 [path]"* ]]
	[[ "$output" == *"CUDA runtime 13.0.96: $VSITE/nvidia/cu13/lib/libcudart.so.13 [rpath]"* ]]
	if [ -f "$S/torch_k.o" ]; then [[ "$output" == *"archs: sm_80 sm_90"* ]]; fi
}

@test "the program stands in as _C when the Python executable cannot be read" {
	rm "$R/usr/bin/python3.12"
	printf '#!/bin/sh\n' >"$R/usr/bin/python3.12"
	chmod +x "$R/usr/bin/python3.12"
	run cdj
	[ "$(jq -r .libraries.program <<<"$output")" = null ]
	[ "$(jq -r .torch.cudnn_version <<<"$output")" = 9.19.0.56 ]
	[ "$(item libtorch_python.so .rule <<<"$output")" = rpath ]
}

@test "-v prints the time and the peak memory of each stage of the library probe" {
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" check -v
	[[ "$output" == *"load "*" ms, copies "*" ms, archs "*" ms, extensions "*" ms, abi "*" ms"* ]]
	line=$(grep "peak memory after each stage (MB)" <<<"$output")
	[[ "$line" =~ load\ [0-9]+\.[0-9],\ copies\ [0-9]+\.[0-9],\ archs\ [0-9]+\.[0-9],\ extensions\ [0-9]+\.[0-9],\ abi\ [0-9]+\.[0-9]$ ]]
	[[ "$output" == *"peak memory: cuda-doctor "*" MB, isolated driver queries "*" MB"* ]]
}

@test "a pure-Python wheel's package tree is not searched for extensions, except under --deep" {
	add_ext "$R" "$S"
	# A distribution that requires torch, with an extension in its tree: its
	# WHEEL decides whether the tree is walked.
	mkdir -p "$SITE/puretorch/sub"
	cp "$SITE/torchvision/_C.so" "$SITE/puretorch/sub/_ops.so"
	dist "$SITE" puretorch 1.0 'torch'
	w=$SITE/puretorch-1.0.dist-info/WHEEL
	printf 'Wheel-Version: 1.0\nGenerator: fixture\nRoot-Is-Purelib: true\nTag: py3-none-any\n' >"$w"
	pkgs() { jq -r '[.libraries.extensions[].package] | sort | join(" ")'; }
	run cdj
	[ "$(pkgs <<<"$output")" = "flash-attn torchvision" ]
	run cdj -- --deep
	[ "$(pkgs <<<"$output")" = "flash-attn puretorch torchvision" ]
	# a platform tag (or no WHEEL) means compiled code may be there: walked
	printf 'Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n' >"$w"
	run cdj
	[ "$(pkgs <<<"$output")" = "flash-attn puretorch torchvision" ]
	rm "$w"
	run cdj
	[ "$(pkgs <<<"$output")" = "flash-attn puretorch torchvision" ]
}

@test "-v ends with the time of every stage, the driver wait and the checks included" {
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" check -v
	line=$(grep '^stages (ms): ' <<<"$output")
	for s in host toolkit packages libs stack checks-early driver-wait checks render; do
		[[ "$line" =~ [:,]\ $s\ [0-9]+\.[0-9](,|$) ]]
	done
	# not in the JSON report
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" check --json
	[[ "$output" != *stages* ]]
}
