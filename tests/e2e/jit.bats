#!/usr/bin/env bats
# cuda-doctor jit: fixture toolkits and environments under --root (nothing in
# them is executed), and the real --compile on this machine when nvcc exists.

load jit_fixture
bats_require_minimum_version 1.5.0

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	JF_ENV=()
}

jqr() { jq -r "$1" <<<"$output"; }
ids() { jq -r '[.findings[].id] | join(" ")' <<<"$output"; }
sev() { jq -r --arg id "$1" '[.findings[] | select(.id == $id) | .severity] | first' <<<"$output"; }
fixes() { jq -r --arg id "$1" '.findings[] | select(.id == $id) | .fix[]' <<<"$output"; }
evidence() { jq -r --arg id "$1" '.findings[] | select(.id == $id) | .evidence[]' <<<"$output"; }
op_state() { jq -r --arg op "$1" '.jit.ops[] | select(.name == $op) | .state' <<<"$output"; }
op_reason() { jq -r --arg op "$1" '.jit.ops[] | select(.name == $op) | .reason_id' <<<"$output"; }

@test "jit --help documents its options" {
	run "$CD" jit --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--op NAME"* ]]
	[[ "$output" == *"--compile"* ]]
	[[ "$output" == *"--gpu-cc"* ]]
}

@test "healthy fixture: every op ready, exit 0, nothing under --root executed" {
	jf_healthy
	jf_run --json
	[ "$status" -eq 0 ]
	[ "$(jqr .schema)" = "cuda-doctor.report/1" ]
	[ "$(jqr .jit.toolkit.cuda_home)" = /usr/local/cuda-12.4 ]
	[ "$(jqr .jit.toolkit.nvcc_version)" = 12.4.99 ]
	[ "$(jqr .jit.toolkit.nvcc_version_source)" = version.json ]
	[ "$(jqr .jit.host_compiler.version)" = 12 ]
	[ "$(jqr .jit.host_compiler.version_source)" = "file name" ]
	[ "$(jqr .jit.python.python_h)" = /usr/include/python3.12/Python.h ]
	[ "$(jqr .jit.python.torch.cuda)" = 12.4 ]
	[ "$(op_state fused_adam)" = ready ]
	[ "$(op_state cpp_extension)" = ready ]
	[ "$(op_state cpu_adam)" = ready ]
	[ "$(op_state evoformer_attn)" = not-ready ]
	[ "$(jqr '[.findings[] | select(.severity != "info")] | length')" = 0 ]
	[ -z "$(ls "$MARK")" ]
}

@test "no VIRTUAL_ENV: the venv of the python3 on PATH, though it links to /usr/bin" {
	jf_healthy
	rm "$R/opt/venv/bin/python3"
	jf_script /usr/bin/python3.12 "Python 3.12.3"
	ln -s /usr/bin/python3.12 "$R/opt/venv/bin/python3"
	JF_ENV=(VIRTUAL_ENV= PATH=/opt/venv/bin:/usr/bin)
	jf_run --json
	[ "$status" -eq 0 ]
	[ "$(jqr .jit.python.prefix)" = /opt/venv ]
	[ "$(jqr .jit.python.via)" = PATH ]
	[ "$(jqr .jit.python.kind)" = venv ]
	[ "$(jqr .jit.python.torch.cuda)" = 12.4 ]
}

@test "torch on PYTHONPATH ahead of the venv: jit reads the copy Python imports" {
	jf_healthy
	pp="$R/srv/pp"
	mkdir -p "$pp/torch" "$pp/torch-2.4.0+cu121.dist-info"
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0+cu121\n\n' \
		>"$pp/torch-2.4.0+cu121.dist-info/METADATA"
	printf "__version__ = '2.4.0+cu121'\ncuda = '12.1'\n" >"$pp/torch/version.py"
	JF_ENV=(PYTHONPATH=/srv/pp)
	jf_run --json
	[ "$status" -eq 0 ]
	[ "$(jqr .jit.python.site_packages)" = /srv/pp ]
	[ "$(jqr .jit.python.torch.version)" = 2.4.0+cu121 ]
	[ "$(sev nvcc-torch-mismatch)" = warning ]
	[ "$(jqr .jit.python.prefix)" = /opt/venv ]
}

@test "golden: the jit object of the healthy fixture" {
	jf_healthy
	jf_run --json
	[ "$status" -eq 0 ]
	diff -u "$BATS_TEST_DIRNAME/golden/jit-healthy.json" <(jq -S .jit <<<"$output")
}

@test "text report of the healthy fixture" {
	jf_healthy
	jf_run --no-color
	[ "$status" -eq 0 ]
	[[ "$output" == *"CUDA_HOME /usr/local/cuda-12.4  [CUDA_HOME]"* ]]
	[[ "$output" == *"nvcc /usr/local/cuda-12.4/bin/nvcc, CUDA 12.4.99 (from version.json)"* ]]
	[[ "$output" == *"fused_adam             ready"* ]]
	[[ "$output" == *"0 errors, 0 warnings"* ]]
}

@test "missing cusparse.h: the header, where it exists, and the package for this CUDA" {
	jf_healthy
	jf_toolkit 12.1
	rm "$R/usr/local/cuda-12.4/include/cusparse.h"
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev toolkit-headers-missing)" = error ]
	evidence toolkit-headers-missing | grep -qx 'cusparse.h: not in /usr/local/cuda-12.4/include; present at /usr/local/cuda-12.1/include/cusparse.h'
	fixes toolkit-headers-missing | grep -q '^export CUDA_HOME=/usr/local/cuda-12.1'
	fixes toolkit-headers-missing | grep -q 'apt-get install libcusparse-dev-12-4'
	fixes toolkit-headers-missing | grep -q 'nvidia/label/cuda-12.4.0 libcusparse-dev'
	[ "$(op_reason fused_adam)" = toolkit-headers-missing ]
	[ "$(op_state inference_core_ops)" = ready ]
	[ "$(jqr '.jit.toolkit.other_toolkits[0].root')" = /usr/local/cuda-12.1 ]
}

@test "header in pip's nvidia wheel: CPATH fix" {
	jf_healthy
	rm "$R/usr/local/cuda-12.4/include/cusparse.h"
	inc="$R/opt/venv/lib/python3.12/site-packages/nvidia/cusparse/include"
	mkdir -p "$inc" && : >"$inc/cusparse.h"
	jf_run --json
	[ "$status" -eq 1 ]
	fixes toolkit-headers-missing | grep -q '^export CPATH=/opt/venv/lib/python3.12/site-packages/nvidia/cusparse/include:\$CPATH'
}

@test "a broken symlink header counts as missing" {
	jf_healthy
	rm "$R/usr/local/cuda-12.4/include/curand.h"
	ln -s /nonexistent/curand.h "$R/usr/local/cuda-12.4/include/curand.h"
	jf_run --json --op cpu_adagrad
	[ "$status" -eq 1 ]
	[ "$(op_reason cpu_adagrad)" = toolkit-headers-missing ]
	[[ "$(jqr '.findings[0].title')" == "curand.h is missing"* ]]
}

@test "library with only its versioned file: ln -s fix, not ready" {
	jf_healthy
	rm "$R/usr/local/cuda-12.4/lib64/libcurand.so"
	jf_run --json --op cpu_adam
	[ "$status" -eq 1 ]
	evidence toolkit-headers-missing | grep -q 'only /usr/local/cuda-12.4/lib64/libcurand.so.1 exists'
	fixes toolkit-headers-missing | grep -q '^ln -sf /usr/local/cuda-12.4/lib64/libcurand.so.1 '
	[ "$(op_reason cpu_adam)" = toolkit-headers-missing ]
}

@test "a library outside CUDA_HOME: LIBRARY_PATH and the linker's directories count, versions do not" {
	jf_healthy
	mkdir -p "$R/opt/ld" "$R/usr/lib64"
	rm "$R/usr/local/cuda-12.4/lib64/"{libcurand.so,libcublas.so}
	: >"$R/opt/ld/libcurand.so"
	: >"$R/usr/lib64/libcublas.so"
	JF_ENV=(LIBRARY_PATH=/opt/ld)
	jf_run --json --op cpu_adam
	[ "$status" -eq 0 ]
	[ "$(op_state cpu_adam)" = ready ]
	f() { jq -r --arg n "$1" '.jit.toolkit.files[] | select(.name == $n) | .path' <<<"$output"; }
	[ "$(f libcurand.so)" = /opt/ld/libcurand.so ]
	[ "$(f libcublas.so)" = /usr/lib64/libcublas.so ]
	# the same names with a version only: -lcurand does not take them
	rm "$R/opt/ld/libcurand.so" && : >"$R/opt/ld/libcurand.so.10"
	jf_run --json --op cpu_adam
	[ "$status" -eq 1 ]
	[ "$(op_reason cpu_adam)" = toolkit-headers-missing ]
	evidence toolkit-headers-missing | grep -q '^libcurand.so: not in /usr/local/cuda-12.4/lib64 (only /usr/local/cuda-12.4/lib64/libcurand.so.1 exists'
}

# The toolkit-* findings of the last run: "id | severity | title" lines.
tk_findings() { jq -r '.findings[] | select(.id | startswith("toolkit-")) | "\(.id) | \(.severity) | \(.title)"' <<<"$output"; }

# check and jit on the fixture, with the environment of jf_run plus JF_ENV.
check_and_jit() {
	run env -i HOME=/root PATH=/usr/bin VIRTUAL_ENV=/opt/venv CUDA_HOME=/usr/local/cuda-12.4 \
		"${JF_ENV[@]}" "$CD" --root "$R" check --json
	C=$(tk_findings)
	jf_run --json
	J=$(tk_findings)
	echo "check: $C"
	echo "jit:   $J"
	[ -n "$C" ] && [ "$C" = "$J" ]
}

@test "check and jit give the same toolkit finding for the same toolkit: id, severity, title" {
	tk() { # a fresh healthy fixture whose toolkit has every header check looks for
		rm -rf "$R"
		jf_healthy
		: >"$R/usr/local/cuda-12.4/include/cufft.h"
		: >"$R/usr/local/cuda-12.4/include/nvrtc.h"
	}
	tk # a build is expected (TORCH_CUDA_ARCH_LIST), torch's CUDA_HOME is None
	JF_ENV=(TORCH_CUDA_ARCH_LIST=9.0 CUDA_HOME=)
	check_and_jit
	[[ "$C" == "toolkit-missing | error | A CUDA toolkit is installed but PyTorch will not find it" ]]
	tk # CUDA_HOME names a broken link
	ln -s /usr/local/cuda-99.9 "$R/usr/local/cuda"
	JF_ENV=(TORCH_CUDA_ARCH_LIST=9.0 CUDA_HOME=/usr/local/cuda)
	check_and_jit
	tk # a relative CUDA_HOME is no toolkit directory
	JF_ENV=(TORCH_CUDA_ARCH_LIST=9.0 CUDA_HOME=cuda-12.4)
	check_and_jit
	tk # a runtime-only toolkit
	rm "$R/usr/local/cuda-12.4/bin/nvcc"
	JF_ENV=(TORCH_CUDA_ARCH_LIST=9.0)
	check_and_jit
	[[ "$C" == *"has no nvcc" ]]
	tk # a header missing
	rm "$R/usr/local/cuda-12.4/include/cusparse.h"
	check_and_jit
	[ "$C" = "toolkit-headers-missing | error | cusparse.h is missing where PyTorch extension builds look in /usr/local/cuda-12.4" ]
}

@test "CUDA_HOME is a broken symlink: toolkit-missing, other toolkit suggested" {
	jf_healthy
	ln -s /usr/local/cuda-99.9 "$R/usr/local/cuda"
	JF_ENV=(CUDA_HOME=/usr/local/cuda)
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev toolkit-missing)" = error ]
	[[ "$(jqr '.findings[0].title')" == *"/usr/local/cuda (from CUDA_HOME) does not exist"* ]]
	fixes toolkit-missing | grep -qx 'export CUDA_HOME=/usr/local/cuda-12.4'
}

@test "no CUDA_HOME, nvcc on PATH: CUDA_HOME is dirname(dirname(nvcc)), links not resolved" {
	jf_healthy
	mkdir -p "$R/opt/bin"
	ln -s /usr/local/cuda-12.4/bin/nvcc "$R/opt/bin/nvcc"
	JF_ENV=(CUDA_HOME= PATH=/opt/bin:/usr/bin)
	jf_run --json
	[ "$(jqr .jit.toolkit.via)" = PATH ]
	[ "$(jqr .jit.toolkit.cuda_home)" = /opt ]
	[ "$(jqr .jit.toolkit.nvcc)" = /opt/bin/nvcc ]
	[ "$(sev toolkit-headers-missing)" = error ]
}

@test "nothing set and no /usr/local/cuda: CUDA_HOME is None" {
	jf_healthy
	JF_ENV=(CUDA_HOME=)
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.toolkit.cuda_home)" = null ]
	[ "$(op_state cpu_adam)" = ready ]
	[ "$(op_reason fused_adam)" = toolkit-missing ]
}

@test "no selection by the toolkit probe: its reason, and toolkit-missing" {
	jf_healthy
	JF_ENV=(CUDA_HOME=cuda-12.4) # relative: no toolkit directory
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.toolkit.cuda_home)" = cuda-12.4 ]
	[ "$(jqr .jit.toolkit.exists)" = false ]
	[ "$(jqr .jit.toolkit.reason)" = "CUDA_HOME is set; torch.utils.cpp_extension uses it as is" ]
	[ "$(jqr '.findings[0].title')" = "CUDA_HOME cuda-12.4 is not a toolkit directory" ]
	fixes toolkit-missing | grep -qx 'export CUDA_HOME=/usr/local/cuda-12.4'
	[ "$(op_reason fused_adam)" = toolkit-missing ]
	JF_ENV=(CUDA_HOME= CUDA_PATH=) # torch takes the empty CUDA_PATH as it is
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.toolkit.cuda_home)" = null ]
	[ "$(jqr .jit.toolkit.via)" = none ]
	[[ "$(jqr .jit.toolkit.reason)" == "CUDA_PATH is set but empty"* ]]
	[ "$(sev toolkit-missing)" = error ]
}

@test "unreadable or corrupt version files: fall back to cuda.h; nvcc is never run" {
	jf_healthy
	t="$R/usr/local/cuda-12.4"
	rm "$t/version.json" && mkdir "$t/version.json"
	printf '\377\376garbage' >"$t/version.txt"
	printf '#define CUDA_VERSION 12040\n' >"$t/include/cuda.h"
	jf_run --json
	[ "$status" -eq 0 ]
	[ "$(jqr .jit.toolkit.nvcc_version)" = 12.4 ]
	[ "$(jqr .jit.toolkit.nvcc_version_source)" = cuda.h ]
	: >"$t/include/cuda.h"
	rm "$t/version.txt"
	jf_run --json
	[ "$(jqr .jit.toolkit.nvcc_version)" = null ]
	[ ! -e "$MARK/ran-nvcc" ]
}

@test "nvcc 12.4 vs torch built with CUDA 13.0: error, the matching toolkit suggested" {
	jf_healthy
	jf_toolkit 13.0
	jf_venv 3.12 13.0
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev nvcc-torch-mismatch)" = error ]
	fixes nvcc-torch-mismatch | grep -qx 'export CUDA_HOME=/usr/local/cuda-13.0'
	fixes nvcc-torch-mismatch | grep -q 'download.pytorch.org/whl/cu124'
	[ "$(op_reason fused_adam)" = nvcc-torch-mismatch ]
}

@test "minor mismatch: a warning for torch, an error for DeepSpeed when its table lacks the major" {
	jf_healthy
	jf_venv 3.12 12.1
	jf_run --json
	[ "$status" -eq 0 ]
	[ "$(sev nvcc-torch-mismatch)" = warning ]
	ds="$R/opt/venv/lib/python3.12/site-packages/deepspeed"
	mkdir -p "$ds/ops/op_builder" "$R/opt/venv/lib/python3.12/site-packages/ninja"
	: >"$R/opt/venv/lib/python3.12/site-packages/ninja/__init__.py"
	printf 'cuda_minor_mismatch_ok = {\n    11: ["11.0"],\n}\n' >"$ds/ops/op_builder/builder.py"
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev nvcc-torch-mismatch)" = error ]
	fixes nvcc-torch-mismatch | grep -q 'DS_SKIP_CUDA_CHECK=1'
	JF_ENV=(DS_SKIP_CUDA_CHECK=1)
	jf_run --json
	[ "$(sev nvcc-torch-mismatch)" = warning ]
}

@test "gcc too new for nvcc 12.4 (fixture gcc-14): host-compiler-unsupported, gcc-13 suggested" {
	jf_healthy
	jf_compilers 14
	jf_script /usr/bin/gcc-13 "13.2.0"
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev host-compiler-unsupported)" = error ]
	[[ "$(jqr '.findings[0].title')" == "gcc 14 is newer than nvcc 12.4.99 accepts (gcc <= 13)" ]]
	fixes host-compiler-unsupported | grep -qx 'export CC=/usr/bin/gcc-13 CXX=/usr/bin/g++-13'
	[ "$(op_reason fused_adam)" = host-compiler-unsupported ]
	[ -z "$(ls "$MARK")" ]
}

@test "CC with arguments is not one program for nvcc -ccbin" {
	jf_healthy
	JF_ENV=("CC=ccache gcc")
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.host_compiler.via)" = CC ]
	[[ "$(jqr '.findings[0].detail')" == *"-ccbin \$CC"* ]]
}

@test "host compiler from NVCC_APPEND_FLAGS -ccbin" {
	jf_healthy
	jf_script /opt/gcc/bin/gcc-11 "11.4.0"
	JF_ENV=("NVCC_APPEND_FLAGS=-O2 -ccbin /opt/gcc/bin/gcc-11")
	jf_run --json
	[ "$(jqr .jit.host_compiler.via)" = NVCC_APPEND_FLAGS ]
	[ "$(jqr .jit.host_compiler.path)" = /opt/gcc/bin/gcc-11 ]
}

@test "ninja missing; ninja only in the environment's bin" {
	jf_healthy
	rm "$R/usr/bin/ninja"
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev ninja-missing)" = error ]
	fixes ninja-missing | grep -q 'pip install ninja'
	jf_script /opt/venv/bin/ninja "1.11.1"
	jf_run --json
	[ "$status" -eq 1 ]
	fixes ninja-missing | grep -qx 'export PATH=/opt/venv/bin:$PATH'
}

@test "Python.h missing: the apt package for this Python" {
	jf_healthy
	rm "$R/usr/include/python3.12/Python.h"
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev python-headers-missing)" = error ]
	fixes python-headers-missing | grep -qx 'sudo apt-get install python3.12-dev'
	evidence python-headers-missing | grep -q '/usr/include/python3.12/Python.h'
}

@test "TORCH_CUDA_ARCH_LIST=garbage: torch's ValueError" {
	jf_healthy
	JF_ENV=(TORCH_CUDA_ARCH_LIST=garbage)
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev torch-arch-list-invalid)" = error ]
	[[ "$(jqr '.findings[0].title')" == *"Unknown CUDA arch (garbage)"* ]]
	fixes torch-arch-list-invalid | grep -qx 'export TORCH_CUDA_ARCH_LIST="9.0"'
	[ "$(op_reason cpp_extension)" = torch-arch-list-invalid ]
	[ "$(op_state fused_adam)" = ready ] # DeepSpeed's JIT ignores the list
}

# check and jit on the same root and environment: the finding's id, severity,
# title, detail, evidence and fix are the same (only the section differs).
same_arch_finding() {
	local sel='[.findings[] | select(.id == "torch-arch-list-invalid") | del(.section)]'
	jf_run --json
	jit=$(jq -S "$sel" <<<"$output")
	run env -i HOME=/root PATH=/usr/bin VIRTUAL_ENV=/opt/venv "${JF_ENV[@]}" "$CD" --root "$R" \
		check --json
	[ "$status" -le 1 ]
	chk=$(jq -S "$sel" <<<"$output")
	[ "$(jq length <<<"$jit")" = 1 ] || { echo "jit: $jit"; return 1; }
	diff <(echo "$jit") <(echo "$chk")
}

@test "TORCH_CUDA_ARCH_LIST: check and jit give the same finding" {
	jf_healthy
	# entries torch 2.5 rejects: a spelling, an unknown one, one of torch 2.7
	JF_ENV=(CUDA_HOME=/usr/local/cuda-12.4 "TORCH_CUDA_ARCH_LIST=8.0;sm_90;10.7;12.0")
	same_arch_finding
	[ "$(jq -r '.[0].severity' <<<"$jit")" = error ]
	[ "$(jq -r '.[0].title' <<<"$jit")" = \
		"TORCH_CUDA_ARCH_LIST has 3 entries torch 2.5.1+cu124 rejects: Unknown CUDA arch (sm_90)" ]
	jq -r '.[0].evidence[]' <<<"$jit" | grep -qx "'12.0': accepted from torch 2.7 on; this torch is 2.5"
	jq -r '.[0].fix[0]' <<<"$jit" | grep -qx 'export TORCH_CUDA_ARCH_LIST="8.0;9.0"'
	# accepted by torch, but CUDA 13's nvcc cannot build 7.0
	jf_toolkit 13.0
	jf_venv 3.12 13.0
	JF_ENV=(CUDA_HOME=/usr/local/cuda-13.0 "TORCH_CUDA_ARCH_LIST=7.0 8.0")
	same_arch_finding
	[ "$(jq -r '.[0].severity' <<<"$jit")" = error ]
	jq -r '.[0].fix[0]' <<<"$jit" | grep -qx 'export TORCH_CUDA_ARCH_LIST="8.0"'
}

@test "TORCH_CUDA_ARCH_LIST an nvcc cannot build, and one that misses the GPU" {
	jf_healthy
	jf_toolkit 13.0
	jf_venv 3.12 13.0
	JF_ENV=(CUDA_HOME=/usr/local/cuda-13.0 "TORCH_CUDA_ARCH_LIST=7.0 8.0")
	jf_run --json
	[ "$status" -eq 1 ]
	[[ "$(jqr '.findings[0].title')" == *"cannot build TORCH_CUDA_ARCH_LIST entry 7.0"* ]]
	JF_ENV=(CUDA_HOME=/usr/local/cuda-13.0 TORCH_CUDA_ARCH_LIST=8.0)
	jf_run --json
	[ "$status" -eq 0 ]
	[ "$(sev torch-arch-list-invalid)" = warning ]
	JF_ENV=(CUDA_HOME=/usr/local/cuda-13.0 TORCH_CUDA_ARCH_LIST=8.0+PTX)
	jf_run --json
	[ "$(sev torch-arch-list-invalid)" = null ]
}

@test "extensions cache: lock directory, stale lock, half-built, other Python/CUDA" {
	jf_healthy
	c="$R/root/.cache/torch_extensions"
	mkdir -p "$c/py312_cu124/fused_adam/lock" "$c/py312_cu124/quantizer" "$c/py310_cu118/x" \
		"$c/py312_cu124/cpu_adam"
	: >"$c/py312_cu124/quantizer/build.ninja"
	: >"$c/py312_cu124/cpu_adam/lock"
	touch -d '3 days ago' "$c/py312_cu124/cpu_adam/lock"
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(sev jit-cache-lock)" = error ]
	fixes jit-cache-lock | grep -qx "rm -rf /root/.cache/torch_extensions/py312_cu124/fused_adam/lock"
	fixes jit-cache-lock | grep -qx "rm -f /root/.cache/torch_extensions/py312_cu124/cpu_adam/lock"
	fixes jit-cache-stale | grep -qx "rm -rf /root/.cache/torch_extensions/py312_cu124/quantizer"
	fixes jit-cache-stale | grep -qx "rm -rf /root/.cache/torch_extensions/py310_cu118"
	[ "$(jqr .jit.cache.active)" = /root/.cache/torch_extensions/py312_cu124 ]
	[ "$(jqr .jit.cache.builds)" = 3 ]
}

@test "TORCH_EXTENSIONS_DIR: flat layout, a build made with another nvcc" {
	jf_healthy
	d="$R/srv/ext/fused_adam"
	mkdir -p "$d"
	printf 'nvcc = /usr/local/cuda-11.8/bin/nvcc\n' >"$d/build.ninja"
	: >"$d/fused_adam.so"
	JF_ENV=(TORCH_EXTENSIONS_DIR=/srv/ext)
	jf_run --json
	[ "$(jqr .jit.cache.via)" = TORCH_EXTENSIONS_DIR ]
	evidence jit-cache-stale | grep -q 'built with /usr/local/cuda-11.8/bin/nvcc'
}

@test "DeepSpeed prebuilt for another CUDA, and no ninja Python package" {
	jf_healthy
	ds="$R/opt/venv/lib/python3.12/site-packages/deepspeed"
	mkdir -p "$ds"
	printf "version='0.16.3'\ninstalled_ops={'fused_adam': True, 'cpu_adam': False}\ntorch_info={'version': '2.5', 'cuda_version': '11.8'}\n" \
		>"$ds/git_version_info_installed.py"
	jf_run --json
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.python.deepspeed.version)" = 0.16.3 ]
	[ "$(op_reason fused_adam)" = extension-abi-mismatch ]
	[ "$(sev extension-abi-mismatch)" = error ]
	[[ "$(ids)" == *ninja-missing* ]]
}

@test "--op evoformer_attn without CUTLASS: an error with the fix" {
	jf_healthy
	jf_run --json --op evoformer_attn
	[ "$status" -eq 1 ]
	[ "$(sev deepspeed-op-incompatible)" = error ]
	fixes deepspeed-op-incompatible | grep -q 'export CUTLASS_PATH='
	mkdir -p "$R/opt/cutlass/include"
	printf '# 3.1.0\n' >"$R/opt/cutlass/CHANGELOG.md"
	JF_ENV=(CUTLASS_PATH=/opt/cutlass)
	jf_run --json --op evoformer_attn
	[ "$status" -eq 0 ]
	[ "$(op_state evoformer_attn)" = ready ]
}

@test "no GPU and no TORCH_CUDA_ARCH_LIST: warning, DeepSpeed CUDA ops not buildable" {
	jf_healthy
	jf_run --json --gpu-cc none
	[ "$status" -eq 0 ]
	[ "$(sev torch-arch-list-invalid)" = warning ]
	[ "$(op_reason fused_adam)" = deepspeed-op-incompatible ]
	[ "$(op_state cpu_adam)" = ready ]
}

@test "--op with an unknown name is a usage error listing the ops" {
	run "$CD" jit --op nope
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown op 'nope'"* ]]
	[[ "$output" == *"fused_adam"* ]]
	run "$CD" jit --bogus
	[ "$status" -eq 2 ]
	run "$CD" jit --build-timeout 0
	[ "$status" -eq 2 ]
}

@test "--env names the environment; a missing one is a usage error" {
	jf_healthy
	jf_run --json --env /opt/venv
	[ "$status" -eq 0 ]
	[ "$(jqr .jit.python.via)" = --env ]
	jf_run --env /opt/nope
	[ "$status" -eq 2 ]
	[[ "$output" == *"--env /opt/nope: no such directory under --root"* ]]
}

@test "--compile is refused under --root" {
	jf_healthy
	jf_run --compile
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot be used with --root"* ]]
	[ -z "$(ls "$MARK")" ]
}

@test "markdown report carries the op table and fixes" {
	jf_healthy
	rm "$R/usr/bin/ninja"
	jf_run --format markdown
	[ "$status" -eq 1 ]
	[[ "$output" == "### cuda-doctor"*" jit"* ]]
	[[ "$output" == *"| fused_adam | not-ready |"* ]]
	[[ "$output" == *'```sh'* ]]
}

real_nvcc() {
	NVCC_HOME=${CD_TEST_CUDA_HOME:-/usr/local/cuda}
	[ -x "$NVCC_HOME/bin/nvcc" ] || skip "no nvcc at $NVCC_HOME/bin/nvcc"
	command -v c++ >/dev/null || skip "no C++ compiler"
}

@test "--compile on this machine builds and loads a test extension, and cleans up" {
	real_nvcc
	mkdir -p "$BATS_TEST_TMPDIR/tmp"
	run --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$NVCC_HOME" \
		TORCH_CUDA_ARCH_LIST=9.0 "$CD" jit --compile --json
	[[ "$stderr" == *"compiling a test extension with $NVCC_HOME/bin/nvcc"* ]]
	[ "$(jqr .jit.smoke.status)" = ok ]
	[ "$(jqr .jit.smoke.removed)" = true ]
	[ "$(jqr .jit.smoke.loaded)" = true ]
	[[ "$(jqr .jit.smoke.versions)" == cudart* ]]
	[[ "$(jqr .jit.smoke.compile_command)" == *"-gencode=arch=compute_90,code=sm_90"* ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}

@test "--compile against a toolkit without cusparse.h names the header and where it is" {
	real_nvcc
	farm="$BATS_TEST_TMPDIR/farm"
	mkdir -p "$farm/bin" "$farm/include" "$farm/targets/x86_64-linux" "$BATS_TEST_TMPDIR/tmp"
	for e in "$NVCC_HOME"/*; do
		case $(basename "$e") in bin | include | targets) ;; *) ln -s "$e" "$farm/" ;; esac
	done
	for e in "$NVCC_HOME"/bin/*; do ln -s "$e" "$farm/bin/"; done
	for e in "$NVCC_HOME"/include/*; do
		[ "$(basename "$e")" = cusparse.h ] || ln -s "$e" "$farm/include/"
	done
	ln -s ../../include "$farm/targets/x86_64-linux/include"
	ln -s "$(readlink -f "$NVCC_HOME/lib64")" "$farm/targets/x86_64-linux/lib"
	run env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$farm" TORCH_CUDA_ARCH_LIST=9.0 \
		"$CD" jit --compile --json -q
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = compile-failed ]
	[ "$(jqr .jit.smoke.diagnostics[0].subject)" = cusparse.h ]
	evidence toolkit-headers-missing | grep -q "present at $NVCC_HOME/include/cusparse.h"
	evidence toolkit-headers-missing | grep -q 'the test build confirms it: .*cusparse.h: No such file or directory'
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}

@test "--compile without --root: host gcc too new (fake gcc script, -dumpfullversion)" {
	real_nvcc
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho 16.1.0\n' >"$BATS_TEST_TMPDIR/bin/gcc-16"
	chmod 755 "$BATS_TEST_TMPDIR/bin/gcc-16"
	run env CC="$BATS_TEST_TMPDIR/bin/gcc-16" CUDA_HOME="$NVCC_HOME" "$CD" jit --json --gpu-cc 9.0
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.host_compiler.version)" = 16.1.0 ]
	[ "$(jqr .jit.host_compiler.version_source)" = -dumpfullversion ]
	[ "$(sev host-compiler-unsupported)" = error ]
}

fake_toolkit() { # NVCC-SCRIPT-BODY: a toolkit dir (real paths, no --root) whose nvcc is a script
	FT="$BATS_TEST_TMPDIR/ft"
	mkdir -p "$FT/bin" "$FT/include" "$FT/lib64" "$BATS_TEST_TMPDIR/tmp"
	printf '{"cuda_nvcc": {"version": "13.0.88"}}\n' >"$FT/version.json"
	printf '#!/bin/sh\n%s\n' "$1" >"$FT/bin/nvcc"
	chmod 755 "$FT/bin/nvcc"
	command -v c++ >/dev/null || skip "no C++ compiler"
}

@test "--compile: an nvcc that hangs is killed at --build-timeout and the directory removed" {
	fake_toolkit 'sleep 60'
	start=$SECONDS
	run env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" "$CD" jit --compile --json -q \
		--gpu-cc 9.0 --build-timeout 1
	[ $((SECONDS - start)) -lt 20 ]
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = timeout ]
	[ "$(sev jit-smoke-failed)" = error ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}

@test "--compile: nvcc's 'unsupported GNU version' maps to host-compiler-unsupported" {
	fake_toolkit 'echo "host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 15 are not supported!" >&2; exit 1'
	run env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" "$CD" jit --compile --json -q --gpu-cc 9.0
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = compile-failed ]
	[ "$(jqr '.jit.smoke.diagnostics[0].kind')" = compiler ]
	[ "$(sev host-compiler-unsupported)" = error ]
	[[ "$(jq -r '.findings[] | select(.id == "host-compiler-unsupported") | .title' <<<"$output")" == "The test build failed: "* ]]
}

@test "--compile: progress goes to stderr as two lines, none with -q, none in the report" {
	fake_toolkit 'echo "smoke.cu(1): error: boom" >&2; exit 1'
	run --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" "$CD" jit \
		--compile --json --gpu-cc 9.0
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = compile-failed ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "cuda-doctor jit: compiling a test extension with $FT/bin/nvcc ..." ]
	[[ "${stderr_lines[1]}" =~ ^"cuda-doctor jit: compile-failed after "[0-9]+\.[0-9]" s"$ ]]
	run --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" "$CD" jit \
		--compile --json -q --gpu-cc 9.0
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = compile-failed ]
	[ -z "$stderr" ]
}

fake_cxx() { # C++-SOURCE: a C++ "compiler" that links the -o file from that source
	printf '%s\n' "$1" >"$BATS_TEST_TMPDIR/ext.cc"
	printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && o=$2; shift; done\nexec c++ -shared -fPIC -o "$o" "%s"\n' \
		"$BATS_TEST_TMPDIR/ext.cc" >"$BATS_TEST_TMPDIR/cxx"
	chmod 755 "$BATS_TEST_TMPDIR/cxx"
}

@test "--compile: a test extension that cannot be loaded is load-failed with dlopen's words" {
	fake_toolkit 'exit 0'
	printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -o ] && echo junk >"$2"; shift; done\n' \
		>"$BATS_TEST_TMPDIR/cxx"
	chmod 755 "$BATS_TEST_TMPDIR/cxx"
	run env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" CXX="$BATS_TEST_TMPDIR/cxx" \
		"$CD" jit --compile --json -q --gpu-cc 9.0
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = load-failed ]
	[ "$(jqr .jit.smoke.loaded)" = false ]
	[[ "$(jqr .jit.smoke.detail)" == *"/smoke.so: file too short" ]]
	[[ "$(jqr .jit.smoke.log)" == "dlopen: "*"/smoke.so: file too short" ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}

@test "--compile: a crash while loading is load-failed with its signal" {
	fake_toolkit 'exit 0'
	fake_cxx '__attribute__((constructor)) static void boom() { __builtin_trap(); }'
	run env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" CXX="$BATS_TEST_TMPDIR/cxx" \
		"$CD" jit --compile --json -q --gpu-cc 9.0
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = load-failed ]
	[ "$(jqr .jit.smoke.detail)" = "the test child died from signal 4" ]
}

@test "--compile: a load that hangs is killed at --timeout, with what it started" {
	fake_toolkit 'exit 0'
	fake_cxx "#include <cstdio>
#include <unistd.h>
__attribute__((constructor)) static void hang()
{
	if (fork() == 0) {
		FILE *f = fopen(\"$BATS_TEST_TMPDIR/grandchild\", \"w\");
		fprintf(f, \"%d\\n\", (int)getpid());
		fclose(f);
	}
	fprintf(stderr, \"hanging\\n\");
	for (;;)
		pause();
}"
	start=$SECONDS
	run env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" CXX="$BATS_TEST_TMPDIR/cxx" \
		"$CD" --timeout 1 jit --compile --json -q --gpu-cc 9.0
	[ $((SECONDS - start)) -lt 10 ]
	[ "$status" -eq 1 ]
	[ "$(jqr .jit.smoke.status)" = timeout ]
	[ "$(jqr .jit.smoke.stage)" = load ]
	[ "$(jqr .jit.smoke.detail)" = "the test child did not finish in 1 s" ]
	[[ "$(jqr .jit.smoke.log)" == *hanging* ]]
	gc=$(cat "$BATS_TEST_TMPDIR/grandchild")
	# gone, or a zombie waiting for a reaper: killed either way
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$gc/status" 2>/dev/null || true)
		[ -z "$state" ] || [ "$state" = Z ] && break
		sleep 0.2
	done
	[ -z "$state" ] || [ "$state" = Z ] || { kill -9 "$gc"; false; }
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}

@test "--compile with a GPU (fake driver): the kernel step's words, and its log in order" {
	fake_toolkit 'exit 0'
	src='#include <cstdio>
extern "C" int cd_smoke_versions(char *out, int cap) { return snprintf(out, cap, "cudart fake"), 0; }
extern "C" int cd_smoke_run(char *msg, int cap)
{
	fprintf(stderr, "a library line\n");
	return snprintf(msg, cap, "kernel said %d", RC), RC;
}'
	for rc in 0 2; do
		fake_cxx "#define RC $rc
$src"
		run env TMPDIR="$BATS_TEST_TMPDIR/tmp" CUDA_HOME="$FT" CXX="$BATS_TEST_TMPDIR/cxx" \
			"$CD" --nvml-lib "$CD_FAKES/libnvidia-ml.so.1" --cuda-lib "$CD_FAKES/libcuda.so.1" \
			jit --compile --json -q
		[ "$(jqr .jit.smoke.loaded)" = true ]
		[ "$(jqr .jit.smoke.versions)" = "cudart fake" ]
		[ "$(jqr .jit.smoke.detail)" = "kernel said $rc" ]
		if [ "$rc" = 0 ]; then
			[ "$(jqr .jit.smoke.status)" = ok ]
			[ "$(jqr .jit.smoke.kernel_ran)" = true ]
		else
			[ "$(jqr .jit.smoke.status)" = run-failed ]
			[ "$(jqr .jit.smoke.kernel_ran)" = false ]
			[ "$(jqr .jit.smoke.log)" = "$(printf 'versions: cudart fake\na library line\nrun: kernel said 2')" ]
		fi
	done
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}
