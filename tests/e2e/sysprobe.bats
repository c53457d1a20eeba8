#!/usr/bin/env bats
# bats-par: alone (its tests time themselves: tests/bats-par.sh)
# Host, container, environment and CUDA toolkit probes and their checks,
# against fixture roots built at test time by sysfixtures.sh. Every run uses
# `env -i` so the machine's own variables do not leak into the results.

setup_file() {
	FX="$BATS_FILE_TMPDIR/fx"
	export FX
	"$BATS_TEST_DIRNAME/sysfixtures.sh" "$FX"
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
}

# cdj ROOT [VAR=value...] [-- extra args]: check --json under ROOT
cdj() {
	local root=$1
	shift
	local vars=(PATH=/usr/bin:/bin)
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		vars+=("$1")
		shift
	done
	[ "${1:-}" = "--" ] && shift
	run env -i "${vars[@]}" "$CD" --root "$FX/$root" --json check "$@"
	[ "$status" -le 1 ] || { echo "exit $status: $output"; return 1; }
	echo "$output" | jq -e . >/dev/null
}

jqr() { echo "$output" | jq -r "$@"; }
ids() { echo "$output" | jq -r '[.findings[].id] | join(" ")'; }
sel() { echo "$output" | jq -r ".toolkit.installations[] | select(.selected) | $1"; }

@test "host: os-release, kernel, arch and glibc read from the root's files" {
	cdj complete
	[ "$(jqr .host.os_id)" = ubuntu ]
	[ "$(jqr .host.os_version)" = 22.04 ]
	[ "$(jqr .host.os_pretty_name)" = "Ubuntu 22.04.4 LTS" ]
	[ "$(jqr .host.kernel)" = 5.15.0-105-generic ]
	[ "$(jqr .host.arch)" = x86_64 ]
	[ "$(jqr .host.glibc_version)" = 2.35 ]
	[ "$(jqr .host.hostname)" = gpu-node-7 ]
	[ "$(jqr -c .host.dev_nodes)" = '["/dev/nvidia-caps/nvidia-cap1","/dev/nvidia-uvm","/dev/nvidia0","/dev/nvidiactl"]' ]
	[ "$(jqr .host.shm_size_bytes)" = null ] # not knowable under --root
}

@test "host: unknown stays null in an empty root" {
	cdj empty
	[ "$(jqr '[.host.os_id, .host.kernel, .host.arch, .host.glibc_version] | unique | .[0]')" = null ]
	[ "$(jqr .container.kind)" = null ]
	[ "$(jqr .host.dev_nodes)" = null ]
}

@test "host: /usr/lib/os-release when /etc/os-release is absent; quotes decoded" {
	cdj osrel
	[ "$(jqr .host.os_id)" = rocky ]
	[ "$(jqr .host.os_version)" = 9.4 ]
	[ "$(jqr .host.os_pretty_name)" = 'Rocky "Blue Onyx" 9.4' ]
}

@test "host: the real root reports the running kernel and glibc" {
	run "$CD" --json check
	[ "$status" -le 1 ]
	[ "$(jqr .host.kernel)" = "$(uname -r)" ]
	[ "$(jqr .host.arch)" = "$(uname -m)" ]
	[ "$(jqr .host.glibc_version)" = "$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)" ]
	[ "$(jqr '.host.shm_size_bytes | type')" = number ]
}

@test "container: docker, kubernetes from cgroup, none, unknown" {
	cdj docker
	[ "$(jqr .container.kind)" = docker ]
	[ "$(jqr .container.evidence)" = "/.dockerenv exists" ]
	cdj cgroup
	[ "$(jqr .container.kind)" = kubernetes ]
	[[ "$(jqr .container.evidence)" == "/proc/1/cgroup: /kubepods/"* ]]
	cdj nocontainer
	[ "$(jqr .container.kind)" = none ]
	[ "$(jqr .container.evidence)" = null ]
}

@test "container: NVIDIA_* variables are recorded" {
	cdj empty NVIDIA_VISIBLE_DEVICES=0,1 NVIDIA_DRIVER_CAPABILITIES=compute,utility \
		'NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=535,driver<536'
	[ "$(jqr .container.nvidia_visible_devices)" = 0,1 ]
	[ "$(jqr .container.nvidia_driver_capabilities)" = compute,utility ]
	[ "$(jqr .container.nvidia_require_cuda)" = "cuda>=12.4 brand=tesla,driver>=535,driver<536" ]
}

@test "toolkit: runfile layout, version.json, /usr/local/cuda default" {
	cdj complete
	[ "$(jqr .toolkit.cuda_home)" = /usr/local/cuda ]
	[ "$(jqr .toolkit.nvcc_version)" = 12.4.131 ]
	[ "$(sel .version)" = 12.4.1 ]
	[ "$(sel .version_source)" = version.json ]
	[ "$(sel .realpath)" = /usr/local/cuda-12.4 ]
	[ "$(sel .found_via)" = default ]
	[ "$(sel '.headers_missing | length')" = 0 ]
	[ "$(sel '.headers[] | select(.name == "cusparse.h") | .path')" = \
		/usr/local/cuda/include/cusparse.h ]
	[ "$(sel '.headers[] | select(.name == "cusparse.h") | .scope')" = include ]
	[ "$(jqr '.toolkit.installations | length')" = 1 ] # /usr/local/cuda-12.4 merged
	[[ "$(ids)" != *toolkit* ]]
}

@test "toolkit: apt-installed toolkit: cuda.h version, nvcc version from dpkg" {
	cdj deb
	[ "$(jqr .toolkit.cuda_home)" = /usr/local/cuda ]
	[ "$(sel .realpath)" = /usr/local/cuda-13.0 ]
	[ "$(sel .version)" = 13.0 ]
	[ "$(sel .version_source)" = cuda.h ]
	[ "$(jqr .toolkit.nvcc_version)" = 13.0.88 ]
	[ "$(sel '.headers_missing | length')" = 0 ]
}

@test "toolkit: nvcc is never executed" {
	cdj complete
	cdj wrapper PATH=/usr/local/bin:/usr/bin
	cdj two PATH=/usr/local/cuda-12.4/bin
	cdj deb PATH=/usr/local/cuda/bin
	run find "$FX" -name '*.ran'
	[ -z "$output" ]
}

@test "toolkit: nvcc first on PATH selects the toolkit (torch's rule 2)" {
	cdj two PATH=/usr/local/cuda-12.4/bin:/usr/bin
	[ "$(jqr .toolkit.cuda_home)" = /usr/local/cuda-12.4 ]
	[[ "$(jqr .toolkit.selected_reason)" == *"nvcc is on PATH at /usr/local/cuda-12.4/bin/nvcc"* ]]
	[ "$(jqr '.toolkit.installations | length')" = 3 ]
	[ "$(jqr '.toolkit.installations[] | select(.root == "/opt/cuda-10.2") | .version_source')" = \
		version.txt ]
	[ "$(jqr '.toolkit.installations[] | select(.root == "/opt/cuda-10.2") | .version')" = 10.2.89 ]
}

@test "toolkit: CUDA_HOME beats PATH; empty CUDA_HOME falls through to CUDA_PATH" {
	cdj two PATH=/usr/local/cuda-12.4/bin CUDA_HOME=/usr/local/cuda-11.8
	[ "$(jqr .toolkit.cuda_home)" = /usr/local/cuda-11.8 ]
	[ "$(jqr .toolkit.nvcc_version)" = 11.8.89 ]
	cdj two CUDA_HOME= CUDA_PATH=/opt/cuda-10.2
	[ "$(jqr .toolkit.cuda_home)" = /opt/cuda-10.2 ]
	[ "$(sel .found_via)" = CUDA_PATH ]
}

@test "toolkit: an empty CUDA_PATH makes torch find nothing" {
	cdj two CUDA_PATH=
	[ "$(jqr .toolkit.cuda_home)" = null ]
	[[ "$(jqr .toolkit.selected_reason)" == *"CUDA_PATH is set but empty"* ]]
	[ "$(jqr '[.findings[] | select(.id == "toolkit-missing")] | length')" = 1 ]
}

@test "toolkit-missing: CUDA_HOME names a missing directory (warning)" {
	cdj two CUDA_HOME=/nonexistent/cuda
	[ "$(jqr .toolkit.cuda_home)" = /nonexistent/cuda ]
	[ "$(sel .exists)" = false ]
	[ "$(jqr '.findings[] | select(.id == "toolkit-missing") | .severity')" = warning ]
	[[ "$(jqr '.findings[] | select(.id == "toolkit-missing") | .fix[0]')" == \
		"export CUDA_HOME=/usr/local/cuda-12.4 "* ]]
}

@test "toolkit-missing: info without a build in sight, an error with TORCH_CUDA_ARCH_LIST (as jit)" {
	cdj empty
	[ "$(jqr '.findings[] | select(.id == "toolkit-missing") | .severity')" = info ]
	[ "$status" -eq 0 ]
	cdj empty TORCH_CUDA_ARCH_LIST=9.0
	[ "$(jqr '.findings[] | select(.id == "toolkit-missing") | .severity')" = error ]
	[ "$status" -eq 1 ]
}

@test "toolkit-headers-missing: lists the headers and where else they are" {
	cdj headers CUDA_HOME=/usr/local/cuda-12.1 CONDA_PREFIX=/opt/conda
	[ "$(jqr -c '.toolkit.installations[] | select(.selected) | .headers_missing')" = \
		'["cusparse.h","curand.h"]' ]
	[[ " $(ids) " == *" toolkit-headers-missing "* ]]
	f='.findings[] | select(.id == "toolkit-headers-missing")'
	[ "$(jqr "$f | .severity")" = warning ]
	[ "$(jqr "$f | .evidence[0]")" = \
		"cusparse.h: absent from /usr/local/cuda-12.1/include; present at /opt/conda/targets/x86_64-linux/include/cusparse.h" ]
	[[ "$(jqr "$f | .fix[0]")" == \
		'export CUDA_HOME=/opt/conda CPATH=/opt/conda/targets/x86_64-linux/include${CPATH:+:$CPATH} '* ]]
	[[ "$(jqr "$f | .fix[1]")" == "sudo apt-get install libcusparse-dev-12-1 libcurand-dev-12-1 "* ]]
}

@test "toolkit-headers-missing: cufft.h and nvrtc.h and their apt packages are rows of data/" {
	cdj devpkgs CUDA_HOME=/usr/local/cuda-12.6
	[ "$(jqr -c '.toolkit.installations[] | select(.selected) | .headers_missing')" = \
		'["cufft.h","nvrtc.h"]' ]
	f='.findings[] | select(.id == "toolkit-headers-missing")'
	[ "$(jqr "$f | .fix[0]")" = \
		"sudo apt-get install libcufft-dev-12-6 cuda-nvrtc-dev-12-6   # NVIDIA apt repository" ]
}

@test "toolkit-headers-missing: conda packages by the release's label, not pkg=X.Y (data/)" {
	# A conda package's version is its library's (libcufft-dev 11.2.1 came with CUDA
	# 12.4), so libcufft-dev=12.4 names nothing: the release is the channel's label.
	cdj devpkgs CUDA_HOME=/opt/conda/envs/dev CONDA_PREFIX=/opt/conda/envs/dev
	[ "$(sel .kind)" = conda ]
	f='.findings[] | select(.id == "toolkit-headers-missing")'
	[ "$(jqr "$f | .fix | last")" = \
		"conda install -c nvidia/label/cuda-12.4.0 libcusparse-dev libcufft-dev" ]
}

@test "toolkit: conda prefix with conda-meta versions" {
	cdj conda CONDA_PREFIX=/opt/conda/envs/train CUDA_HOME=/opt/conda/envs/train
	[ "$(sel .kind)" = conda ]
	[ "$(sel .version)" = 12.4 ]
	[ "$(sel .version_source)" = conda-meta ]
	[ "$(sel .nvcc_version)" = 12.4.131 ]
	[ "$(sel .headers[0].path)" = /opt/conda/envs/train/targets/x86_64-linux/include/cuda_runtime.h ]
	[ "$(sel .headers[0].scope)" = targets ]
	[ "$(sel .headers[0].present)" = false ]
}

@test "toolkit-headers-missing: conda headers only under targets/ need CPATH (pytorch#144690)" {
	cdj conda CONDA_PREFIX=/opt/conda/envs/train CUDA_HOME=/opt/conda/envs/train
	f='.findings[] | select(.id == "toolkit-headers-missing")'
	[ "$(jqr "$f | .evidence | length")" = 7 ]
	[[ "$(jqr "$f | .evidence[0]")" == *"which nvcc searches but the host compiler of .cpp sources does not" ]]
	[ "$(jqr "$f | .fix | length")" = 1 ]
	[[ "$(jqr "$f | .fix[0]")" == \
		'export CPATH=/opt/conda/envs/train/targets/x86_64-linux/include${CPATH:+:$CPATH} '* ]]
}

@test "toolkit: pip wheels, CUDA 12 per-component and CUDA 13 nvidia/cu13" {
	cdj pip VIRTUAL_ENV=/venv
	t='.toolkit.installations[0]'
	[ "$(jqr "$t.kind")" = pip ]
	[ "$(jqr "$t.root")" = /venv/lib/python3.11/site-packages/nvidia/cuda_nvcc ]
	[ "$(jqr "$t.nvcc_version")" = 12.4.131 ]
	[ "$(jqr "$t.version")" = 12.4 ]
	[ "$(jqr "$t.headers[] | select(.name == \"cusparse.h\") | .path")" = \
		/venv/lib/python3.11/site-packages/nvidia/cusparse/include/cusparse.h ]
	[ "$(jqr "$t.headers[] | select(.name == \"cusparse.h\") | .scope")" = wheel ]
	[ "$(jqr "$t.headers[] | select(.name == \"nvrtc.h\") | .present")" = false ]
	[ "$(jqr "$t.headers[] | select(.name == \"nvrtc.h\") | .scope")" = null ]
	[[ "$(jqr '.findings[] | select(.id == "toolkit-missing") | .title')" == \
		"A CUDA toolkit is installed but PyTorch will not find it" ]]
	cdj pip -- --env /venv13
	[ "$(jqr "$t.root")" = /venv13/lib/python3.12/site-packages/nvidia/cu13 ]
	[ "$(jqr "$t.nvcc_version")" = 13.0.88 ]
	[ "$(jqr "$t.headers_missing | length")" = 0 ]
}

@test "toolkit: a wrapper nvcc on PATH makes torch use its directory's parent" {
	cdj wrapper PATH=/usr/local/bin:/usr/bin
	[ "$(jqr .toolkit.cuda_home)" = /usr/local ]
	[ "$(sel .nvcc_target)" = /usr/local/cuda-13.0/bin/nvcc ]
	[ "$(jqr .toolkit.nvcc_version)" = 13.0.88 ]
	f='.findings[] | select(.id == "toolkit-headers-missing")'
	[ "$(jqr "$f | .evidence | length")" = 7 ]
	[ "$(jqr "$f | .evidence[0]")" = \
		"cuda_runtime.h: absent from /usr/local/include; present at /usr/local/cuda-13.0/include/cuda_runtime.h" ]
	[ "$(jqr "$f | .fix | length")" = 1 ]
	[[ "$(jqr "$f | .fix[0]")" == "export CUDA_HOME=/usr/local/cuda-13.0 "* ]]
}

@test "toolkit: a symbolic link nvcc is not resolved for CUDA_HOME, as in torch" {
	cdj wrapper PATH=/usr/bin
	[ "$(jqr .toolkit.cuda_home)" = /usr ]
	[ "$(sel .nvcc_target)" = /usr/local/cuda-13.0/bin/nvcc ]
	[ "$(jqr '.toolkit.installations[] | select(.found_via == "glob") | .root')" = /usr/local/cuda-13.0 ]
}

@test "broken inputs: malformed version.json, FIFOs, link loops: no hang, versions unknown" {
	run timeout 10 env -i PATH=/usr/bin "$CD" --root "$FX/broken" --json check
	[ "$status" -le 1 ]
	[ "$(jqr '[.toolkit.installations[].version] | unique | .[0]')" = null ]
	[ "$(jqr '.toolkit.installations | length')" = 2 ]
	[ "$(jqr .toolkit.cuda_home)" = null ] # /usr/local/cuda is a link loop
	[ "$(jqr .host.os_id)" = null ]	       # unterminated quote
	[ "$(jqr .host.os_version)" = 12 ]
	[ "$(jqr .host.hostname)" = null ] # a FIFO
}

@test "torch-arch-list-invalid: bad entries explained, fixed list offered" {
	cdj complete 'TORCH_CUDA_ARCH_LIST=sm_90;8.0;12.0f;;10.1'
	f='.findings[] | select(.id == "torch-arch-list-invalid")'
	[ "$(jqr "$f | .severity")" = error ] # torch's ValueError stops every build
	[ "$(jqr "$f | .fix[0]")" = 'export TORCH_CUDA_ARCH_LIST="9.0;8.0;12.0;11.0"' ]
	[[ "$(jqr "$f | .detail")" == *"Unknown CUDA arch (sm_90)"* ]]
	[ "$(jqr "$f | .evidence | length")" = 5 ]
}

@test "torch-arch-list-invalid: accepted forms raise nothing" {
	for v in "8.0;8.6;9.0" "8.0 9.0a+PTX" "Ampere;Hopper" native; do
		cdj complete "TORCH_CUDA_ARCH_LIST=$v"
		[[ "$(ids)" != *torch-arch-list-invalid* ]] || { echo "rejected: $v"; return 1; }
	done
	# torch accepts these, the fixture's nvcc 12.4 cannot build them
	for v in "Blackwell+Tegra" "12.0a"; do
		cdj complete "TORCH_CUDA_ARCH_LIST=$v"
		t=$(jqr '.findings[] | select(.id == "torch-arch-list-invalid") | .title')
		[[ "$t" == "nvcc 12.4.131 cannot build TORCH_CUDA_ARCH_LIST entry "* ]] || {
			echo "$v: $t"
			return 1
		}
	done
}

@test "torch-arch-list-invalid: an absurdly long value is reported, not parsed" {
	# 120 KiB: close to the kernel's limit on one environment string (128 KiB)
	big=$(head -c 122880 /dev/zero | tr '\0' '8')
	cdj complete "TORCH_CUDA_ARCH_LIST=$big"
	[ "$(jqr '.findings[] | select(.id == "torch-arch-list-invalid") | .title')" = \
		"TORCH_CUDA_ARCH_LIST is over 16384 bytes long" ]
	[ "$(jqr -c .env.truncated_variables)" = '["TORCH_CUDA_ARCH_LIST"]' ]
	[ "$(jqr '.env.variables.TORCH_CUDA_ARCH_LIST | length')" = 16384 ]
}

@test "nccl-transport-disabled: P2P/SHM off is a warning, IB off alone is info" {
	cdj empty NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1
	f='.findings[] | select(.id == "nccl-transport-disabled")'
	[ "$(jqr "$f | .severity")" = warning ]
	[ "$(jqr -c "$f | .fix")" = '["unset NCCL_P2P_DISABLE","unset NCCL_SHM_DISABLE"]' ]
	cdj empty NCCL_IB_DISABLE=1 NCCL_NET=Socket
	[ "$(jqr "$f | .severity")" = info ]
	[ "$(jqr "$f | .evidence | length")" = 2 ]
	cdj empty NCCL_P2P_LEVEL=LOC
	[ "$(jqr "$f | .severity")" = warning ]
	cdj empty NCCL_P2P_DISABLE=0 NCCL_P2P_LEVEL=NVL NCCL_DEBUG=INFO
	[[ "$(ids)" != *nccl* ]]
}

@test "env: variables recorded sorted, credentials never" {
	cdj empty HF_TOKEN=hf_secret NCCL_DEBUG=WARN CUDA_VISIBLE_DEVICES=0 HF_HOME=/data/hf
	[ "$(jqr -c '.env.variables | keys')" = '["CUDA_VISIBLE_DEVICES","HF_HOME","NCCL_DEBUG","PATH"]' ]
	[[ "$output" != *hf_secret* ]]
}

@test "ld-library-path-invalid: empty and missing entries, a cleaned value to paste" {
	cdj complete 'LD_LIBRARY_PATH=:/usr/local/cuda/lib64:/nonexistent/lib::/usr/local/cuda/include/'
	f='.findings[] | select(.id == "ld-library-path-invalid")'
	[ "$(jqr "$f | .severity")" = warning ]
	[ "$(jqr .env.ld_library_path_empty_entries)" = 2 ]
	[ "$(jqr .env.ld_library_path_total_entries)" = 5 ]
	[ "$(jqr "$f | .fix[0]")" = 'export LD_LIBRARY_PATH="/usr/local/cuda/include"' ]
	cdj complete 'LD_LIBRARY_PATH=/nonexistent/lib:/usr/local/cuda/include'
	[ "$(jqr "$f | .severity")" = info ]
}

@test "LD_LIBRARY_PATH with 10,000 entries stays fast and bounded" {
	# short entries: one environment string is limited to 128 KiB
	v=$(seq -f '/n/%g' 1 10000 | paste -sd: -)
	# CPU time, not wall time: a loaded machine must not fail it
	rc=0
	/usr/bin/time -f '%U %S' -o "$BATS_TEST_TMPDIR/cpu" env -i PATH=/usr/bin:/bin \
		"LD_LIBRARY_PATH=:$v::/n/1" "$CD" --root "$FX/complete" --json check >/dev/null || rc=$?
	[ "$rc" -le 1 ]
	ms=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$BATS_TEST_TMPDIR/cpu")
	echo "cpu ${ms} ms"
	[ "$ms" -lt 2000 ]
	cdj complete "LD_LIBRARY_PATH=:$v::/n/1"
	[ "$(jqr .env.ld_library_path_total_entries)" = 10003 ]
	[ "$(jqr .env.ld_library_path_empty_entries)" = 2 ]
	[ "$(jqr .env.ld_library_path_truncated)" = true ]
	[ "$(jqr '.env.ld_library_path | length')" = 256 ]
	[[ "$(jqr '.findings[] | select(.id == "ld-library-path-invalid") | .fix[0]')" == "#"* ]]
}

@test "text report: toolkit section names the selection" {
	run env -i PATH=/usr/local/bin:/usr/bin "$CD" --root "$FX/wrapper" --no-color check
	[[ "$output" == *"/usr/local  unknown  nvcc 13.0.88  [PATH]  <- extension builds use this"* ]]
	[[ "$output" == *"selection: CUDA_HOME and CUDA_PATH are unset; nvcc is on PATH at /usr/local/bin/nvcc"* ]]
}

@test "check on a fixture root stays fast" {
	start=$(date +%s%N)
	for _ in 1 2 3 4 5; do
		env -i PATH=/usr/bin "$CD" --root "$FX/complete" --json check >/dev/null
	done
	ms=$(( ($(date +%s%N) - start) / 5000000 ))
	echo "mean ${ms} ms"
	[ "$ms" -lt 250 ]
}
