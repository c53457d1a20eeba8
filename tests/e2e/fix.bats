#!/usr/bin/env bats
# cuda-doctor fix: the plan and the torch for this machine. The fake driver
# (tests/fakes, CD_FAKE_MODE) gives the driver and the GPUs - old (470, T4),
# h100-550, pascal (580, GTX 1080 Ti, sm_61), mixed (H100 9.0 + A40 8.6),
# h200, and no driver at all (libraries that do not exist) - and the
# environments are a pip venv, a uv venv, a uv project and a conda prefix
# (fix_fixtures.bash) with torch whose fatbin holds a chosen arch list
# (written by helpers/mkfatbin.c, or built by nvcc where it is installed).
# The chosen variant and the printed line are asserted exactly.

bats_require_minimum_version 1.5.0

load fix_fixtures

REAL_2_11='sm_75 sm_80 sm_86 sm_90 sm_100 sm_120' # torch 2.11.0+cu130's own list

setup_file() {
	TOOLS="$BATS_FILE_TMPDIR/tools"
	mkdir -p "$TOOLS"
	fx_tools "$TOOLS"
	export TOOLS
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	R="$BATS_TEST_TMPDIR/root"
	mkdir -p "$R"
}

# fixj MODE PREFIX [ARGS...]: `fix --json` under $R with the fake driver in
# MODE ("none": no driver library at all) and the environment at PREFIX.
fixj() {
	local mode=$1 env=$2 libs
	shift 2
	libs=(--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1")
	[ "$mode" = none ] && libs=(--nvml-lib "$R/none/libnvidia-ml.so.1" --cuda-lib "$R/none/libcuda.so.1")
	run env -i PATH=/usr/bin:/bin HOME=/nonexistent CD_FAKE_MODE="$mode" "$CD" --root "$R" \
		--env "$env" fix --json "${libs[@]}" --timeout 2 "$@"
}

j() { jq -r "$1" <<<"$output"; }
verdict() { j ".install.pick.variants[] | select(.variant == \"$1\") | .verdict"; }

@test "470 + T4, pip venv, torch 2.11.0+cu130: no variant runs on the driver; the smallest upgrade, and what runs now" {
	p=$(fx_env "$R" pip)
	# shellcheck disable=SC2086
	fx_torch "$R" "$p" 2.11.0+cu130 13.0 $REAL_2_11
	fixj old "$p"
	[ "$status" -eq 1 ]
	[ "$(j .install.release_from)" = installed ]
	[ "$(j .install.status)" = needs-driver ]
	[ "$(j .install.pick.variant)" = cu126 ]
	[ "$(j .install.driver_needed)" = 560.28.03 ]
	[ "$(j .install.pick.line)" = \
		"/opt/venv/bin/python3 -m pip install --force-reinstall 'torch==2.11.0' --index-url https://download.pytorch.org/whl/cu126" ]
	[ "$(verdict cu130)" = driver-too-old ]
	[ "$(j .install.alternative.torch)" = 2.5.1 ]
	[ "$(j .install.alternative.variant)" = cu118 ]
	[ "$(j .install.alternative.line)" = \
		"/opt/venv/bin/python3 -m pip install --force-reinstall 'torch==2.5.1' --index-url https://download.pytorch.org/whl/cu118" ]
	[ "$(j '.install.alternative.variants[] | select(.variant == "cu118") | .verdict')" = minor-version-compatibility ]
	# driver-too-old carries the line that runs on this driver
	[[ "$(j '.findings[] | select(.id == "driver-too-old") | .fix | join("\n")')" == *"'torch==2.5.1' --index-url https://download.pytorch.org/whl/cu118   # torch 2.5.1 (CUDA 11.8): the newest release this driver runs"* ]]
}

@test "550 + H100, uv venv without torch: the newest release, cu126 through minor-version compatibility, labelled" {
	p=$(fx_env "$R" uv)
	fixj h100-550 "$p"
	[ "$(j .install.release_from)" = newest ]
	[ "$(j .install.pick.torch)" = 2.14.1 ]
	[ "$(j .install.installer)" = uv ]
	[ "$(j .install.pick.variant)" = cu126 ]
	[ "$(verdict cu126)" = minor-version-compatibility ]
	[ "$(verdict cu130)" = driver-too-old ]
	[ "$(verdict cu132)" = driver-too-old ]
	[ "$(j .install.pick.line)" = \
		"uv pip install --python /work/proj/.venv/bin/python3 'torch==2.14.1' 'torchvision==0.29.1' 'torchaudio==2.11.0' --default-index https://download.pytorch.org/whl/cu126" ]
	[[ "$(j .install.label)" == *"PTX"*"driver >= 560.28.03 runs it directly" ]]
	# torch is missing from the environment: the plan installs it, last
	[ "$(j '.plan[-1].title')" = "Install torch 2.14.1 (cu126) for this machine" ]
	[ "$(j '.plan[-1].command')" = "$(j .install.pick.line)" ]
}

@test "580 + GTX 1080 Ti (sm_61), conda prefix: only cu126 has Pascal kernels" {
	p=$(fx_env "$R" conda)
	fixj pascal "$p"
	[ "$(j .install.machine.lowest_compute_capability)" = 6.1 ]
	[ "$(j .install.installer)" = conda ]
	[ "$(j .install.pick.variant)" = cu126 ]
	[ "$(verdict cu126)" = direct ]
	[ "$(verdict cu130)" = arch-unsupported ]
	[ "$(verdict cu132)" = arch-unsupported ]
	[[ "$(j '.install.pick.variants[] | select(.variant == "cu132") | .why')" == "no kernels for compute capability 6.1 ("* ]]
	[ "$(j .install.pick.line)" = \
		"conda install -p /opt/conda/envs/ml -c conda-forge 'pytorch=2.14.1=cuda*' 'torchvision=0.29.1' 'torchaudio=2.11.0' 'cuda-version=12.6'" ]
}

@test "a mixed 9.0 + 8.6 node, pip venv, torch 2.14.1+cu132: cu130 runs directly where cu132 needs minor-version compatibility" {
	p=$(fx_env "$R" pip)
	fx_torch "$R" "$p" 2.14.1+cu132 13.2 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120
	fixj mixed "$p"
	[ "$(j .install.machine.gpus)" = 2 ]
	[ "$(j .install.machine.lowest_compute_capability)" = 8.6 ]
	[ "$(j '.install.machine.compute_capabilities | join(" ")')" = "9.0 8.6" ]
	[ "$(verdict cu132)" = minor-version-compatibility ]
	[ "$(j '.install.pick.variants[] | select(.variant == "cu132") | .archs_from')" = \
		"the fatbin of the installed /opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so" ]
	[ "$(j .install.pick.variant)" = cu130 ]
	[ "$(j .install.pick.line)" = \
		"/opt/venv/bin/python3 -m pip install --force-reinstall 'torch==2.14.1' --index-url https://download.pytorch.org/whl/cu130" ]
	# the driver-too-old warning carries it, and the plan has the step
	[[ "$(j '.findings[] | select(.id == "driver-too-old") | .fix | join("\n")')" == *"--index-url https://download.pytorch.org/whl/cu130   # CUDA 13.0.x, which this driver supports"* ]]
	[ "$(j '[.plan[] | select(.ids | index("driver-too-old"))] | length')" = 1 ]
}

@test "no driver, pip venv without torch: PyPI's default, the driver unknown; the driver first in the plan" {
	p=$(fx_env "$R" pip)
	fixj none "$p"
	[ "$(j .install.machine.driver)" = null ]
	[ "$(j .install.machine.gpus)" = 0 ]
	[ "$(j .install.pick.variant)" = cu132 ]
	[ "$(verdict cu132)" = driver-unknown ]
	[ "$(j .install.pick.line)" = \
		"/opt/venv/bin/python3 -m pip install 'torch==2.14.1' 'torchvision==0.29.1' 'torchaudio==2.11.0' --index-url https://download.pytorch.org/whl/cu132" ]
	[ "$(j '.plan[0].ids[0]')" = driver-missing ]
}

@test "the driver version from /sys/module/nvidia/version alone decides the variant" {
	p=$(fx_env "$R" pip)
	mkdir -p "$R/sys/module/nvidia"
	echo 550.54.15 >"$R/sys/module/nvidia/version"
	fixj none "$p"
	[ "$(j .install.machine.driver)" = 550.54.15 ]
	[ "$(j .install.machine.driver_source)" = sys-module ]
	[ "$(j .install.machine.driver_cuda)" = 12.4 ]
	[ "$(j .install.pick.variant)" = cu126 ]
	[ "$(verdict cu126)" = minor-version-compatibility ]
}

@test "H200, uv project, torch 2.11.0+cu130: the installed build fits, uv add keeps it pinned to the index" {
	p=$(fx_env "$R" uvproj)
	# shellcheck disable=SC2086
	fx_torch "$R" "$p" 2.11.0+cu130 13.0 $REAL_2_11
	fixj h200 "$p"
	[ "$(j .install.installer)" = uv-add ]
	[ "$(j .install.pick.variant)" = cu130 ]
	[ "$(verdict cu130)" = direct ]
	[ "$(j .install.pick.line)" = \
		"cd /work/proj && uv add 'torch==2.11.0' --index pytorch-cu130=https://download.pytorch.org/whl/cu130" ]
	[ "$(j '[.plan[] | select(.title | startswith("Install torch"))] | length')" = 0 ]
	run env -i PATH=/usr/bin:/bin HOME=/nonexistent CD_FAKE_MODE=h200 "$CD" --root "$R" --env "$p" \
		fix --no-color --nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[[ "$output" == *"  the installed torch is this build; to reinstall it: cd /work/proj && uv add 'torch==2.11.0' --index pytorch-cu130=https://download.pytorch.org/whl/cu130"* ]]
}

@test "--torch: the release asked, its newest patch; a release the data lacks is a usage error" {
	p=$(fx_env "$R" pip)
	fixj pascal "$p" --torch 2.9
	[ "$(j .install.release_from)" = --torch ]
	[ "$(j .install.pick.line)" = \
		"/opt/venv/bin/python3 -m pip install 'torch==2.9.1' 'torchvision==0.24.1' 'torchaudio==2.9.1' --index-url https://download.pytorch.org/whl/cu126" ]
	fixj pascal "$p" --torch 2.9.0
	[ "$(j .install.pick.torch)" = 2.9.0 ]
	fixj pascal "$p" --torch 3.0
	[ "$status" -eq 2 ]
	fixj pascal "$p" --torch 2.9.7
	[ "$status" -eq 2 ]
}

@test "--wheel: the arch list of a wheel's own fatbin, stored or deflated, decides its variant" {
	p=$(fx_env "$R" pip)
	fx_libtorch "$BATS_TEST_TMPDIR/lib.so" sm_90 compute_90
	for how in -z -0; do
		fx_wheel "$BATS_TEST_TMPDIR/torch-2.14.1+cu130-cp312-cp312-manylinux_2_28_x86_64.whl" \
			2.14.1+cu130 "$BATS_TEST_TMPDIR/lib.so" "$how"
		fixj mixed "$p" --wheel "$BATS_TEST_TMPDIR/torch-2.14.1+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
		[ "$(j .wheel.version)" = 2.14.1+cu130 ]
		[ "$(j .wheel.variant)" = cu130 ]
		[ "$(j '.wheel.sass | join(" ")')" = sm_90 ]
		[ "$(j '.wheel.ptx | join(" ")')" = compute_90 ]
		[ "$(j .wheel.containers)" = 3 ]
		[ "$(j .install.release_from)" = --wheel ]
		# the A40 (8.6) has no kernels in it: the table's cu126 has
		[ "$(verdict cu130)" = arch-unsupported ]
		[[ "$(j '.install.pick.variants[] | select(.variant == "cu130") | .archs_from')" == *"torch-2.14.1+cu130-cp312"*.whl ]]
		[ "$(j .install.pick.variant)" = cu126 ]
	done
	# a wheel without a local version: its torch/version.py names the CUDA
	fx_wheel "$BATS_TEST_TMPDIR/torch-2.14.1-cp312-cp312-manylinux_2_28_x86_64.whl" 2.14.1 \
		"$BATS_TEST_TMPDIR/lib.so" -z 13.2
	fixj h200 "$p" --wheel "$BATS_TEST_TMPDIR/torch-2.14.1-cp312-cp312-manylinux_2_28_x86_64.whl"
	[ "$(j .wheel.variant)" = cu132 ]
	[[ "$(j '.install.pick.variants[] | select(.variant == "cu132") | .archs_from')" == *.whl ]]
	# not a zip: said, and the data decides
	echo junk >"$BATS_TEST_TMPDIR/bad.whl"
	fixj h200 "$p" --wheel "$BATS_TEST_TMPDIR/bad.whl"
	[ "$status" -le 1 ]
	[[ "$(j .wheel.error)" == *"not a zip archive"* ]]
}

@test "--wheel and the installed torch with nvcc-built fatbins" {
	p=$(fx_env "$R" pip)
	fx_nvcc_libtorch "$BATS_TEST_TMPDIR/lib.so" -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code='[sm_90,compute_90]' || skip "nvcc is not installed"
	fx_wheel "$BATS_TEST_TMPDIR/torch-2.14.1+cu130-cp312-cp312-linux_x86_64.whl" 2.14.1+cu130 \
		"$BATS_TEST_TMPDIR/lib.so"
	fixj pascal "$p" --wheel "$BATS_TEST_TMPDIR/torch-2.14.1+cu130-cp312-cp312-linux_x86_64.whl"
	[ "$(j '.wheel.sass | join(" ")')" = "sm_80 sm_90" ]
	[ "$(j '.wheel.ptx | join(" ")')" = compute_90 ]
	[ "$(verdict cu130)" = arch-unsupported ]
	[ "$(j .install.pick.variant)" = cu126 ]
	# installed: the arch-unsupported finding names the wheel to install
	site=$R$p/lib/python3.12/site-packages
	torch_pkg "$site" 2.14.1+cu130 "'13.0'"
	mkdir -p "$site/torch/lib"
	cp "$BATS_TEST_TMPDIR/lib.so" "$site/torch/lib/libtorch_cuda.so"
	fixj pascal "$p"
	[ "$(j '.findings[] | select(.id == "arch-unsupported") | .fix[0]')" = \
		"/opt/venv/bin/python3 -m pip install --force-reinstall 'torch==2.14.1' --index-url https://download.pytorch.org/whl/cu126" ]
}

@test "the text report: the plan, then every variant judged and the line" {
	p=$(fx_env "$R" pip)
	run env -i PATH=/usr/bin:/bin HOME=/nonexistent CD_FAKE_MODE=mixed "$CD" --root "$R" \
		--env "$p" fix --no-color --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1"
	[[ "$output" == *"Plan: 1 step, in this order"* ]]
	[[ "$output" == *"1. ! Install torch 2.14.1 (cu130) for this machine"* ]]
	[[ "$output" == *"2 GPUs, lowest compute capability 8.6 (9.0, 8.6)"* ]]
	[[ "$output" == *"→ cu130  CUDA 13.0.x  direct: driver 580.95.05 runs CUDA 13.0.x directly (>= 580.65.06)"* ]]
	[[ "$output" == *"  cu132  CUDA 13.2.x  (PyPI's default) minor-version-compatibility:"* ]]
	[[ "$output" == *"  install: /opt/venv/bin/python3 -m pip install 'torch==2.14.1' 'torchvision==0.29.1' 'torchaudio==2.11.0' --index-url https://download.pytorch.org/whl/cu130"* ]]
}

@test "causes before effects: CUDA_VISIBLE_DEVICES before the GPUs it hides; check prints that first step" {
	p=$(fx_env "$R" pip)
	run env -i PATH=/usr/bin:/bin HOME=/nonexistent CD_FAKE_MODE=h200 CUDA_VISIBLE_DEVICES=3 \
		"$CD" --root "$R" --env "$p" fix --json --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1"
	[ "$(j '.plan[0].ids[0]')" = cuda-visible-devices-invalid ]
	[ "$(j '.plan[0].command')" = "unset CUDA_VISIBLE_DEVICES   # every GPU (1)" ]
	[[ "$(j '.plan[0].verify[0]')" == *"nvidia-smi -L" ]]
	run env -i PATH=/usr/bin:/bin HOME=/nonexistent CD_FAKE_MODE=h200 CUDA_VISIBLE_DEVICES=3 \
		"$CD" --root "$R" --env "$p" check --no-color --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1"
	[[ "$output" == *'First step (1 of '*', `cuda-doctor fix` for the plan): CUDA_VISIBLE_DEVICES="3" hides every GPU'* ]]
	[[ "$output" == *$'\n    unset CUDA_VISIBLE_DEVICES   # every GPU (1)' ]]
}

@test "every finding id in data/fix_causes.tsv and fix_verify.tsv is one the code emits" {
	ids=$("$BATS_TEST_DIRNAME/../../scripts/finding-ids.sh")
	for f in fix_causes.tsv:1 fix_causes.tsv:2 fix_verify.tsv:1; do
		while read -r id; do
			grep -qx -- "$id" <<<"$ids" || { echo "unknown id $id in ${f%%:*}"; return 1; }
		done < <(grep -v '^#' "$BATS_TEST_DIRNAME/../../data/${f%%:*}" | tail -n +2 | cut -f"${f##*:}")
	done
}

@test "without --apply, fix opens nothing for writing (strace)" {
	command -v strace >/dev/null || skip "strace is not installed"
	p=$(fx_env "$R" pip)
	mkdir -p "$R/home/u/.cache/torch_extensions/py312_cu130/fused_adam"
	: >"$R/home/u/.cache/torch_extensions/py312_cu130/fused_adam/build.ninja"
	run strace -f -o "$BATS_TEST_TMPDIR/trace" \
		-e trace=open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,truncate,ftruncate \
		env -i PATH=/usr/bin:/bin HOME=/home/u CD_FAKE_MODE=h200 "$CD" --root "$R" --env "$p" \
		fix --jit --nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[ "$status" -le 1 ]
	grep -q 'openat(' "$BATS_TEST_TMPDIR/trace"
	if grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(|rename|unlink|mkdir|rmdir|truncate\(' \
		"$BATS_TEST_TMPDIR/trace" | grep -v '"/dev/null"'; then
		echo "fix wrote (above)"
		return 1
	fi
}

# apply_fixture: a pip venv with torch 2.11.0+cu130, and in HOME=/home/u a
# torch extensions cache with a half-built extension (build.ninja, no .so),
# a lock left 3 hours ago and a folder of another Python (a note: kept).
apply_fixture() {
	local c=$R/home/u/.cache/torch_extensions
	P=$(fx_env "$R" pip)
	# shellcheck disable=SC2086
	fx_torch "$R" "$P" 2.11.0+cu130 13.0 $REAL_2_11
	mkdir -p "$c/py312_cu130/fused_adam" "$c/py312_cu130/cpu_adam" "$c/py311_cu121/old"
	echo 'rule cc' >"$c/py312_cu130/fused_adam/build.ninja"
	: >"$c/py312_cu130/cpu_adam/lock"
	touch -d '3 hours ago' "$c/py312_cu130/cpu_adam/lock"
	cp -a "$R/home" "$BATS_TEST_TMPDIR/home.before"
	W="$BATS_TEST_TMPDIR/work"
	mkdir -p "$W"
}

# apply [ARGS...]: fix --apply in $W, with TORCH_CUDA_ARCH_LIST set wrong.
apply() {
	(cd "$W" && env -i PATH=/usr/bin:/bin HOME=/home/u CD_FAKE_MODE=h200 \
		'TORCH_CUDA_ARCH_LIST=8.0;sm_90' "$CD" --root "$R" --env "$P" fix --apply --no-color \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" "$@")
}

@test "--apply --yes: stale builds and locks moved into a dated backup, cuda-doctor.env written; the printed undo puts everything back" {
	apply_fixture
	run apply --yes
	[ "$status" -le 1 ]
	b=$(ls -d "$R"/home/u/.cache/torch_extensions.cuda-doctor-backup-*)
	[[ "$b" =~ backup-[0-9]{8}-[0-9]{6}$ ]]
	[ -f "$b/py312_cu130/fused_adam/build.ninja" ]
	[ -e "$b/py312_cu130/cpu_adam/lock" ]
	[ ! -e "$R/home/u/.cache/torch_extensions/py312_cu130/fused_adam" ]
	[ ! -e "$R/home/u/.cache/torch_extensions/py312_cu130/cpu_adam/lock" ]
	[ -d "$R/home/u/.cache/torch_extensions/py311_cu121/old" ] # a note: not touched
	grep -qx 'export TORCH_CUDA_ARCH_LIST="8.0;9.0"' "$W/cuda-doctor.env"
	[[ "$output" == *"moved $R/home/u/.cache/torch_extensions/py312_cu130/fused_adam -> $b/py312_cu130/fused_adam"* ]]
	# the environment file loads and sets what the plan says
	[ "$(cd "$W" && bash -c '. ./cuda-doctor.env && echo "$TORCH_CUDA_ARCH_LIST"')" = "8.0;9.0" ]
	undo=$(grep '^undo: ' <<<"$output")
	(cd "$W" && bash -c "${undo#undo: }")
	diff -r "$BATS_TEST_TMPDIR/home.before" "$R/home"
	[ "$(stat -c %Y "$R/home/u/.cache/torch_extensions/py312_cu130/cpu_adam/lock")" = \
		"$(stat -c %Y "$BATS_TEST_TMPDIR/home.before/u/.cache/torch_extensions/py312_cu130/cpu_adam/lock")" ]
	[ ! -e "$b" ]
	[ ! -e "$W/cuda-doctor.env" ]
}

@test "--apply asks before each step: declined steps are not done" {
	apply_fixture
	run apply <<<$'n\nn\nn\n'
	[[ "$output" == *"step 1: move 1 item of the extensions cache"*"[y/N]"* ]]
	[[ "$output" == *"Nothing applied."* ]]
	diff -r "$BATS_TEST_TMPDIR/home.before" "$R/home"
	[ ! -e "$W/cuda-doctor.env" ]
	# yes to the first question only: the lock alone
	run apply <<<$'y\nn\nn\n'
	[ -e "$(ls -d "$R"/home/u/.cache/torch_extensions.cuda-doctor-backup-*)/py312_cu130/cpu_adam/lock" ]
	[ -d "$R/home/u/.cache/torch_extensions/py312_cu130/fused_adam" ]
	[ ! -e "$W/cuda-doctor.env" ]
}

@test "--apply: a folder that vanished between the plan and the answer is said, and nothing moves" {
	apply_fixture
	mkfifo "$BATS_TEST_TMPDIR/in"
	apply <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" 2>&1 &
	exec 7>"$BATS_TEST_TMPDIR/in"
	for _ in $(seq 100); do grep -q 'step 1:' "$BATS_TEST_TMPDIR/out" && break; sleep 0.05; done
	rm -rf "$R/home/u/.cache/torch_extensions/py312_cu130/fused_adam"
	printf 'y\ny\ny\n' >&7
	exec 7>&-
	wait $! && rc=0 || rc=$?
	[ "$rc" -eq 1 ]
	grep -q "fused_adam is gone (No such file or directory); nothing was moved" "$BATS_TEST_TMPDIR/out"
	[ -e "$R/home/u/.cache/torch_extensions/py312_cu130/cpu_adam/lock" ]
	! ls -d "$R"/home/u/.cache/torch_extensions.cuda-doctor-backup-* 2>/dev/null || false
	[ ! -e "$W/cuda-doctor.env" ]
}

@test "--apply in a read-only home: said, nothing half-done" {
	if [ "$(id -u)" = 0 ]; then
		command -v setpriv >/dev/null || skip "root without setpriv"
		# root writes anywhere: the run drops to nobody, on a tree nobody may read
		R=$(mktemp -d /tmp/cd-fix-ro.XXXXXX)
		chmod 755 "$R"
		RUNAS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		RUNAS=()
	fi
	apply_fixture
	W=$R/work
	mkdir -p "$W"
	chmod a-w "$R/home/u/.cache" "$W"
	run "${RUNAS[@]}" env -i PATH=/usr/bin:/bin HOME=/home/u CD_FAKE_MODE=h200 \
		'TORCH_CUDA_ARCH_LIST=8.0;sm_90' "$CD" --root "$R" --env "$P" fix --apply --yes \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	chmod u+w "$R/home/u/.cache" "$W"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$R/home/u/.cache is not writable (Permission denied); nothing was changed"* ]]
	diff -r "$BATS_TEST_TMPDIR/home.before" "$R/home"
	[ ! -e "$W/cuda-doctor.env" ]
	[[ "$R" != /tmp/cd-fix-ro.* ]] || rm -rf "$R"
}

@test "--for vllm: the torch the installed vLLM pins; --for jax: JAX's CUDA wheels for the driver" {
	p=$(fx_env "$R" pip)
	dist "$R$p/lib/python3.12/site-packages" vllm 0.11.0 'torch==2.9.0' 'numpy'
	fixj mixed "$p" --for vllm
	[ "$(j .install.release_from)" = "vLLM's pin" ]
	[ "$(j .install.pick.torch)" = 2.9.0 ]
	[ "$(j .install.pick.line)" = \
		"/opt/venv/bin/python3 -m pip install 'torch==2.9.0' 'torchvision==0.24.0' 'torchaudio==2.9.0' --index-url https://download.pytorch.org/whl/cu128" ]
	fixj mixed "$p" --for jax
	[ "$(j .install)" = null ]
	[ "$(j .jax_line)" = "/opt/venv/bin/python3 -m pip install -U 'jax[cuda13]'" ]
	fixj h100-550 "$p" --for jax
	[ "$(j .jax_line)" = "/opt/venv/bin/python3 -m pip install -U 'jax[cuda12]'" ]
	fixj old "$p" --for jax
	[ "$(j .jax_line)" = null ]
	fixj mixed "$p" --for nothing
	[ "$status" -eq 2 ]
}

@test "--model: the model's findings join the plan" {
	p=$(fx_env "$R" pip)
	fixj h200 "$p" --model /models/none
	[ "$(j '[.findings[] | select(.id == "model-not-found")] | length')" = 1 ]
	[ "$(j '[.plan[] | select(.ids | index("model-not-found"))] | length')" = 1 ]
	fixj h200 "$p"
	[ "$(j '[.findings[] | select(.id | startswith("model-"))] | length')" = 0 ]
}

@test "a pixi environment: pixi add in its workspace, with the build pin" {
	e=/w/.pixi/envs/default
	mkdir -p "$R$e/bin" "$R$e/conda-meta" "$R$e/lib/python3.12/site-packages"
	printf '\177ELF pixi python\n' >"$R$e/bin/python3.12"
	ln -s python3.12 "$R$e/bin/python3"
	echo '{"name": "python", "version": "3.12.3", "build": "h0_0", "channel": "conda-forge"}' \
		>"$R$e/conda-meta/python-3.12.3-h0_0.json"
	printf '[workspace]\nname = "w"\n' >"$R/w/pixi.toml"
	fixj pascal "$e"
	[ "$(j .install.installer)" = pixi ]
	[ "$(j .install.pick.line)" = \
		"cd /w && pixi add 'pytorch=2.14.1=cuda*' 'torchvision=0.29.1' 'torchaudio=2.11.0' 'cuda-version=12.6'" ]
}
