#!/usr/bin/env bats
# bats-par: alone (its tests time themselves: tests/bats-par.sh)
# The live driver probe and its checks, end to end: the binary against the
# fake libnvidia-ml.so.1 / libcuda.so.1 (tests/fakes, behaviour chosen by
# CD_FAKE_MODE), libraries built here with gcc, and this machine's own
# (absent) driver. Fake runs use an empty --root so the host's
# /proc/driver/nvidia/version cannot interfere.

bats_require_minimum_version 1.5.0

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	TMP=$(mktemp -d)
	ROOT="$TMP/root"
	mkdir -p "$ROOT"
	unset CUDA_VISIBLE_DEVICES CD_FAKE_TRACE CD_FAKE_MODE
}

teardown() {
	rm -rf "$TMP"
}

# fake MODE [ARGS...]: `check --json` against the fakes under the fixture root,
# with --volatile: these tests read every fact the probe gathers, free memory too.
fake() {
	local mode=$1
	shift
	run env CD_FAKE_MODE="$mode" "$CD" check --json --volatile --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" "$@"
}

# The kernel module version the fixture's /proc says is loaded.
kmod() {
	mkdir -p "$ROOT/proc/driver/nvidia"
	printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Thu Jun  5 19:20:11 UTC 2025\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n' \
		"$1" >"$ROOT/proc/driver/nvidia/version"
}

j() { jq -r "$1" <<<"$output"; }
ids() { j '[.findings[].id] | join(" ")'; }
has_id() { [[ " $(ids) " == *" $1 "* ]]; }
# Errors reported in the driver and gpus sections.
driver_errors() { j '[.findings[] | select((.section=="driver" or .section=="gpus") and .severity=="error") | .id] | join(" ")'; }
# Exit status 1 exactly when some finding is an error.
status_follows_findings() {
	local want
	want=$(j '[.findings[] | select(.severity=="error")] | if length > 0 then 1 else 0 end')
	[ "$status" -eq "$want" ]
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

@test "ok: two H100s, every fact from NVML and cuDriverGetVersion" {
	kmod 570.124.06
	fake ok
	status_follows_findings
	[ "$(driver_errors)" = "" ]
	[ "$(j .driver.status)" = ok ]
	[ "$(j .driver.version)" = 570.124.06 ]
	[ "$(j .driver.version_source)" = nvml ]
	[ "$(j .driver.cuda_version)" = 12.8 ]
	[ "$(j .driver.cuda_version_int)" = 12080 ]
	[ "$(j .driver.cuda_version_source)" = cuDriverGetVersion ]
	[ "$(j .driver.nvml_version)" = 12.570.124.06 ]
	[ "$(j .driver.kernel_module_version)" = 570.124.06 ]
	[ "$(j .driver.kernel_module_type)" = proprietary ]
	[ "$(j .driver.nvml.path)" = "$(realpath "$FAKES/libnvidia-ml.so.1")" ]
	[ "$(j .driver.cuda.path)" = "$(realpath "$FAKES/libcuda.so.1")" ]
	[ "$(j .driver.nvml.is_stub)" = false ]
	[ "$(j .driver.cuda.rc)" = 0 ]
	[ "$(j .driver.gpu_count)" = 2 ]
	[ "$(j '.gpus | length')" = 2 ]
	[ "$(j '.gpus[0].name')" = "NVIDIA H100 80GB HBM3" ]
	[ "$(j '.gpus[0].uuid')" = GPU-5a3f9c1e-7b2d-4e8a-9c61-0f2b8d4e7a13 ]
	[ "$(j '.gpus[0].pci_bus_id')" = 00000000:18:00.0 ]
	[ "$(j '.gpus[1].pci_bus_id')" = 00000000:2A:00.0 ]
	[ "$(j '.gpus[1].index')" = 1 ]
	[ "$(j '.gpus[0].compute_capability')" = 9.0 ]
	[ "$(j '.gpus[0].memory_total_bytes')" = $((81559 * 1048576)) ]
	[ "$(j '.gpus[0].memory_reserved_bytes')" = $((329 * 1048576)) ]
	[ "$(j '.gpus[0] | .memory_free_bytes + .memory_used_bytes + .memory_reserved_bytes == .memory_total_bytes')" = true ]
	[ "$(j '.gpus[0].mig_mode')" = disabled ]
	[ "$(j '.gpus[0].persistence_mode')" = enabled ]
	[ "$(j '.gpus[0].compute_mode')" = default ]
	[ "$(j '.gpus[0].ecc_mode')" = enabled ]
	[ "$(j '.gpus[0].ecc_volatile_uncorrected')" = 0 ]
	[ "$(j '.gpus[0].row_remap_pending')" = false ]
	# Hopper has no page retirement: NOT_SUPPORTED stays unknown
	[ "$(j '.gpus[0].retired_pages_pending')" = null ]
}

@test "h200: one H200, driver 580.159.04, CUDA 13.0, 143771 MiB" {
	kmod 580.159.04
	fake h200
	status_follows_findings
	[ "$(driver_errors)" = "" ]
	[ "$(j .driver.version)" = 580.159.04 ]
	[ "$(j .driver.cuda_version)" = 13.0 ]
	[ "$(j '.gpus | length')" = 1 ]
	[ "$(j '.gpus[0].name')" = "NVIDIA H200" ]
	[ "$(j '.gpus[0].pci_bus_id')" = 00000000:00:05.0 ]
	[ "$(j '.gpus[0].memory_total_bytes')" = $((143771 * 1048576)) ]
}

@test "old: a T4 on 470 without nvmlDeviceGetMemoryInfo_v2 falls back to v1" {
	fake old
	status_follows_findings
	[ "$(driver_errors)" = "" ]
	[ "$(j .driver.version)" = 470.256.02 ]
	[ "$(j .driver.cuda_version)" = 11.4 ]
	[ "$(j '.gpus[0].name')" = "Tesla T4" ]
	[ "$(j '.gpus[0].compute_capability')" = 7.5 ]
	[ "$(j '.gpus[0].memory_total_bytes')" = $((15109 * 1048576)) ]
	[ "$(j '.gpus[0].memory_reserved_bytes')" = null ]
	[ "$(j '.gpus[0].mig_mode')" = null ]
	[ "$(j '.gpus[0].row_remap_pending')" = null ]
	[ "$(j '.gpus[0].retired_pages_pending')" = false ]
}

@test "nogpu: the driver answers but sees no GPU" {
	fake nogpu
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = gpu-none-visible ]
	[ "$(j '.gpus | length')" = 0 ]
	[ "$(j .driver.gpu_count)" = 0 ]
}

@test "initfail: NVML_ERROR_DRIVER_NOT_LOADED is driver-init-failed" {
	fake initfail
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = driver-init-failed ]
	[ "$(j .driver.nvml.status)" = init-failed ]
	[ "$(j .driver.nvml.rc)" = 9 ]
	[ "$(j .driver.nvml.error)" = "Driver Not Loaded" ]
	[ "$(j .gpus)" = null ]
	# libcuda still says which CUDA it supports
	[ "$(j .driver.cuda.status)" = ok ]
	[ "$(j .driver.cuda_version)" = 12.8 ]
	[[ "$(j '.findings[0].fix | join("\n")')" == *"sudo modprobe nvidia"* ]]
}

@test "mismatch: kernel module 550.54.15 under user-space 570.124.06" {
	kmod 550.54.15
	fake mismatch
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = driver-library-mismatch ]
	[ "$(j .driver.nvml.rc)" = 18 ]
	[ "$(j .driver.kernel_module_version)" = 550.54.15 ]
	[ "$(j .driver.version)" = 550.54.15 ]
	[ "$(j .driver.version_source)" = kernel-module ]
	title=$(j '.findings[] | select(.id=="driver-library-mismatch") | .title')
	[[ "$title" == *550.54.15* && "$title" == *570.124.06* ]]
	fix=$(j '.findings[] | select(.id=="driver-library-mismatch") | .fix | join("\n")')
	[[ "$fix" == *"sudo reboot"* ]]
	[[ "$fix" == *"modprobe -r nvidia_drm nvidia_modeset nvidia_uvm nvidia"* ]]
}

@test "mismatch: the open kernel module's banner is read too" {
	mkdir -p "$ROOT/proc/driver/nvidia"
	printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Oct 22 2024\n' \
		>"$ROOT/proc/driver/nvidia/version"
	fake mismatch
	[ "$(j .driver.kernel_module_version)" = 565.57.01 ]
	[ "$(j .driver.kernel_module_type)" = open ]
	has_id driver-library-mismatch
}

@test "hang: ends within --timeout + 1 s and reports driver-timeout" {
	t0=$(now_ms)
	fake hang --timeout 1
	dt=$(($(now_ms) - t0))
	echo "elapsed ${dt} ms"
	[ "$dt" -lt 2000 ]
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = driver-timeout ]
	[ "$(j .driver.status)" = timeout ]
	[ "$(j .driver.nvml.status)" = timeout ]
	[ "$(j .driver.nvml.stage)" = nvmlInit_v2 ]
	[ "$(j .driver.timeout_ms)" = 1000 ]
	# the CUDA library answered in its own child meanwhile
	[ "$(j .driver.cuda.status)" = ok ]
	[ "$(j .driver.cuda_version)" = 12.8 ]
}

@test "hangall: both libraries hang; still one deadline" {
	t0=$(now_ms)
	fake hangall --timeout 0.5
	dt=$(($(now_ms) - t0))
	echo "elapsed ${dt} ms"
	[ "$dt" -lt 1500 ]
	[ "$(j .driver.nvml.status)" = timeout ]
	[ "$(j .driver.cuda.status)" = timeout ]
	[ "$(j .driver.cuda.stage)" = cuDriverGetVersion ]
	has_id driver-timeout
}

@test "crash: SIGSEGV in nvmlInit is driver-crashed, and the tool carries on" {
	fake crash
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = driver-crashed ]
	[ "$(j .driver.status)" = crashed ]
	[ "$(j .driver.signal)" = 11 ]
	[ "$(j .driver.nvml.stage)" = nvmlInit_v2 ]
	[ "$(j .schema)" = cuda-doctor.report/1 ]
	run env CD_FAKE_MODE=crash "$CD" check --root "$ROOT" --no-color \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[error driver-crashed]"* ]]
	[[ "$output" == *"killed by SIGSEGV"* ]]
}

@test "ecc: uncorrectable errors and retired pages pending on GPU 1" {
	fake ecc
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = "gpu-ecc-errors gpu-retired-pages-pending" ]
	[ "$(j '.gpus[1].ecc_volatile_uncorrected')" = 2 ]
	[ "$(j '.gpus[1].ecc_aggregate_uncorrected')" = 7 ]
	[ "$(j '.gpus[1].retired_pages_pending')" = true ]
	[ "$(j '.gpus[0].retired_pages_pending')" = false ]
	[[ "$(j '.findings[] | select(.id=="gpu-retired-pages-pending") | .fix | join("\n")')" == *"nvidia-smi -r -i 1"* ]]
}

@test "stub: libcuda answering CUDA_ERROR_STUB_LIBRARY is driver-stub-library" {
	fake stub
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = driver-stub-library ]
	[ "$(j .driver.cuda.rc)" = 34 ]
	[ "$(j .driver.cuda.is_stub)" = true ]
	# the CUDA version still comes from NVML
	[ "$(j .driver.cuda_version_source)" = nvml ]
}

@test "stub: the toolkit's own stub libcuda is recognised" {
	stub=/usr/local/cuda/lib64/stubs/libcuda.so
	[ -e "$stub" ] || skip "no CUDA toolkit stub at $stub"
	run "$CD" check --json --root "$ROOT" --cuda-lib "$stub"
	[ "$status" -eq 1 ]
	[ "$(j .driver.cuda.is_stub)" = true ]
	[ "$(j .driver.cuda.rc)" = 34 ]
	[ "$(j .driver.nvml.status)" = not-run ]
	has_id driver-stub-library
}

@test "stub: a stubs directory on LD_LIBRARY_PATH; the fix drops it" {
	mkdir -p "$TMP/cuda/lib64/stubs"
	cp "$FAKES/libcuda.so.1" "$TMP/cuda/lib64/stubs/libcuda.so.1"
	run env CD_FAKE_MODE=stub LD_LIBRARY_PATH="/opt/none:$TMP/cuda/lib64/stubs:$FAKES" \
		"$CD" check --json
	[ "$(j .driver.cuda.path)" = "$(realpath "$TMP/cuda/lib64/stubs/libcuda.so.1")" ]
	[ "$(j .driver.cuda.is_stub)" = true ]
	fix=$(j '.findings[] | select(.id=="driver-stub-library") | .fix | join("\n")')
	[[ "$fix" == *"export LD_LIBRARY_PATH=/opt/none:$FAKES"* ]]
}

@test "default search path: LD_LIBRARY_PATH=\$CD_FAKES loads the fakes" {
	run env CD_FAKE_MODE=h200 LD_LIBRARY_PATH="$FAKES" "$CD" check --json
	[ "$(j .driver.nvml.requested)" = libnvidia-ml.so.1 ]
	[ "$(j .driver.cuda.requested)" = libcuda.so.1 ]
	[ "$(j .driver.nvml.path)" = "$(realpath "$FAKES/libnvidia-ml.so.1")" ]
	[ "$(j .driver.cuda.path)" = "$(realpath "$FAKES/libcuda.so.1")" ]
	[ "$(j .driver.nvml.loaded_as)" = "$FAKES/libnvidia-ml.so.1" ]
	[ "$(j .driver.version)" = 580.159.04 ]
	[ "$(j '.gpus[0].name')" = "NVIDIA H200" ]
}

@test "check never calls cuInit and loads nothing under --root by itself" {
	export CD_FAKE_TRACE="$TMP/trace"
	fake ok
	grep -qx cuDriverGetVersion "$TMP/trace"
	grep -qx nvmlInit_v2 "$TMP/trace"
	! grep -qx cuInit "$TMP/trace" || false
	! grep -qx cuDeviceGetCount "$TMP/trace" || false
	rm -f "$TMP/trace"
	run env LD_LIBRARY_PATH="$FAKES" "$CD" check --json --root "$ROOT"
	[ ! -e "$TMP/trace" ]
	[ "$(j .driver.status)" = not-run ]
	[ "$(j .driver.nvml.requested)" = null ]
	[ "$(j .gpus)" = null ]
	[ "$(driver_errors)" = "" ]
}

@test "no driver: libraries that do not exist are driver-missing, quickly" {
	t0=$(now_ms)
	run "$CD" check --json --root "$ROOT" --nvml-lib "$TMP/none/libnvidia-ml.so.1" \
		--cuda-lib "$TMP/none/libcuda.so.1"
	dt=$(($(now_ms) - t0))
	[ "$dt" -lt 1000 ]
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = driver-missing ]
	[ "$(j .driver.status)" = library-missing ]
	[[ "$(j .driver.nvml.error)" == *"No such file"* ]]
}

@test "driver version without NVML: /sys/module/nvidia/version first, then /proc (as uv reads it)" {
	kmod 550.54.15
	mkdir -p "$ROOT/sys/module/nvidia"
	printf '580.95.05\n' >"$ROOT/sys/module/nvidia/version"
	run "$CD" check --json --root "$ROOT" --nvml-lib "$TMP/none/libnvidia-ml.so.1" \
		--cuda-lib "$TMP/none/libcuda.so.1"
	[ "$(j .driver.version)" = 580.95.05 ]
	[ "$(j .driver.version_source)" = sys-module ]
	[ "$(j .driver.kernel_module_version)" = 550.54.15 ]
	# not a version: ignored, /proc answers
	printf 'garbage\n' >"$ROOT/sys/module/nvidia/version"
	run "$CD" check --json --root "$ROOT" --nvml-lib "$TMP/none/libnvidia-ml.so.1" \
		--cuda-lib "$TMP/none/libcuda.so.1"
	[ "$(j .driver.version)" = 550.54.15 ]
	[ "$(j .driver.version_source)" = kernel-module ]
	# NVML, when it answers, wins over both
	printf '580.95.05\n' >"$ROOT/sys/module/nvidia/version"
	fake ok
	[ "$(j .driver.version)" = 570.124.06 ]
	[ "$(j .driver.version_source)" = nvml ]
}

@test "no driver on this machine: check says driver-missing quickly" {
	if ldconfig -p 2>/dev/null | grep -qE 'libcuda\.so\.1|libnvidia-ml\.so\.1'; then
		skip "this machine has an NVIDIA driver"
	fi
	t0=$(now_ms)
	run env -u LD_LIBRARY_PATH "$CD" check --json
	dt=$(($(now_ms) - t0))
	echo "elapsed ${dt} ms"
	[ "$dt" -lt 2000 ]
	[ "$status" -eq 1 ]
	has_id driver-missing
	[ "$(j .driver.nvml.status)" = library-missing ]
	[ "$(j .driver.cuda.status)" = library-missing ]
}

@test "CUDA_VISIBLE_DEVICES: an index past the last GPU hides them all" {
	export CUDA_VISIBLE_DEVICES=2
	fake ok
	[ "$status" -eq 1 ]
	[ "$(driver_errors)" = cuda-visible-devices-invalid ]
	[[ "$(j '.findings[0].fix | join("\n")')" == *"unset CUDA_VISIBLE_DEVICES"* ]]
}

@test "CUDA_VISIBLE_DEVICES: a list cut short is a warning with the value that works" {
	export CUDA_VISIBLE_DEVICES=0,5,1
	fake ok
	[ "$(j '.findings[] | select(.id=="cuda-visible-devices-invalid") | .severity')" = warning ]
	[[ "$(j '.findings[] | select(.id=="cuda-visible-devices-invalid") | .fix | join("\n")')" == *"export CUDA_VISIBLE_DEVICES=0,1"* ]]
}

@test "CUDA_VISIBLE_DEVICES: UUID prefixes, empty and -1" {
	CUDA_VISIBLE_DEVICES=GPU-c81e,GPU-5a3f fake ok
	! has_id cuda-visible-devices-invalid || false
	CUDA_VISIBLE_DEVICES= fake ok
	[ "$status" -eq 1 ]
	has_id cuda-visible-devices-invalid
	CUDA_VISIBLE_DEVICES=-1 fake ok
	[[ "$(j '.findings[] | select(.id=="cuda-visible-devices-invalid") | .detail')" == *"CPU"* ]]
}

# A small NVML built here: SRC is the C body; the result is $TMP/nvml/libnvidia-ml.so.1.
build_nvml() {
	command -v cc >/dev/null || skip "no C compiler"
	mkdir -p "$TMP/nvml"
	printf '%s\n' "$1" >"$TMP/nvml/nvml.c"
	cc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$TMP/nvml/libnvidia-ml.so.1" "$TMP/nvml/nvml.c"
}

@test "a minimal NVML: absent optional functions leave facts unknown" {
	build_nvml 'int nvmlInit_v2(void) { return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { *d = (void *)16; return 0; }'
	run "$CD" check --json --root "$ROOT" --nvml-lib "$TMP/nvml/libnvidia-ml.so.1"
	[ "$(j .driver.nvml.status)" = ok ]
	[ "$(j '.gpus | length')" = 1 ]
	[ "$(j '.gpus[0].name')" = null ]
	[ "$(j '.gpus[0].memory_total_bytes')" = null ]
	[ "$(j .driver.version)" = null ]
	[ "$(j '.driver.nvml.absent_symbols | index("nvmlDeviceGetName") != null')" = true ]
	[ "$(j '.driver.nvml.absent_symbols | index("nvmlDeviceGetMemoryInfo_v2") != null')" = true ]
}

@test "a library without nvmlDeviceGetCount is driver-init-failed, not a crash" {
	build_nvml 'int nvmlInit_v2(void) { return 0; }'
	run "$CD" check --json --root "$ROOT" --nvml-lib "$TMP/nvml/libnvidia-ml.so.1"
	[ "$status" -eq 1 ]
	[ "$(j .driver.nvml.status)" = init-failed ]
	[[ "$(j .driver.nvml.error)" == *"nvmlDeviceGetCount_v2 is missing"* ]]
	has_id driver-init-failed
}

@test "a chatty library cannot corrupt the JSON on stdout" {
	build_nvml '#include <stdio.h>
__attribute__((constructor)) static void noise(void) { printf("{garbage\n"); fflush(stdout); fprintf(stderr, "noise\n"); }
int nvmlInit_v2(void) { puts("more garbage"); return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 0; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { return 2; }'
	run --separate-stderr "$CD" check --json --root "$ROOT" --nvml-lib "$TMP/nvml/libnvidia-ml.so.1"
	[ "$(j .schema)" = cuda-doctor.report/1 ]
	[ "$(j .driver.nvml.status)" = ok ]
	[[ "$stderr" != *noise* ]]
}

@test "a library that exits in its init is driver-init-failed" {
	build_nvml '#include <stdlib.h>
int nvmlInit_v2(void) { exit(3); }
int nvmlDeviceGetCount_v2(unsigned *n) { return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { return 0; }'
	run "$CD" check --json --root "$ROOT" --nvml-lib "$TMP/nvml/libnvidia-ml.so.1"
	[ "$status" -eq 1 ]
	[ "$(j .driver.nvml.status)" = init-failed ]
	[[ "$(j .driver.nvml.error)" == *"exit status 3"* ]]
}

@test "text report: the driver and GPU sections" {
	kmod 580.159.04
	run env CD_FAKE_MODE=h200 "$CD" check --root "$ROOT" --no-color \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[[ "$output" == *"driver 580.159.04, supports CUDA 13.0"* ]]
	[[ "$output" == *"kernel module 580.159.04"* ]]
	[[ "$output" == *"0  NVIDIA H200  compute 9.0"* ]]
	[[ "$output" == *"00000000:00:05.0"* ]]
}

@test "a failed init stays the finding when the library then hangs" {
	build_nvml '#include <unistd.h>
int nvmlInit_v2(void) { return 18; }
int nvmlSystemGetNVMLVersion(char *v, unsigned n) { for (;;) pause(); }
int nvmlDeviceGetCount_v2(unsigned *n) { return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { return 0; }'
	kmod 550.54.15
	run "$CD" check --json --root "$ROOT" --timeout 0.3 --nvml-lib "$TMP/nvml/libnvidia-ml.so.1"
	[ "$status" -eq 1 ]
	[ "$(j .driver.nvml.status)" = init-failed ]
	[ "$(j .driver.nvml.rc)" = 18 ]
	[ "$(driver_errors)" = driver-library-mismatch ]
}

# The H200 machine's toolkit ships compat/libcuda.so.580.95.05 beside a
# 580.159.04 kernel module: first on the search path, cuInit would fail with 803.
compat_lib() { # VERSION: a libcuda named as the compat package names it
	mkdir -p "$TMP/cuda/compat"
	cp "$FAKES/libcuda.so.1" "$TMP/cuda/compat/libcuda.so.$1"
	ln -sf "libcuda.so.$1" "$TMP/cuda/compat/libcuda.so.1"
}

@test "libcuda older than the kernel module (a compat library first) is driver-library-mismatch" {
	kmod 580.159.04
	compat_lib 580.95.05
	run env CD_FAKE_MODE=h200 LD_LIBRARY_PATH="$TMP/cuda/compat:/usr/local/nvidia/lib64" \
		"$CD" check --json --root "$ROOT" --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$TMP/cuda/compat/libcuda.so.1"
	[ "$status" -eq 1 ]
	[ "$(j .driver.cuda.file_version)" = 580.95.05 ]
	[ "$(driver_errors)" = driver-library-mismatch ]
	x='.findings[] | select(.id=="driver-library-mismatch")'
	[[ "$(j "$x | .title")" == *"libcuda.so.1 580.95.05 does not match the NVIDIA kernel module 580.159.04"* ]]
	[[ "$(j "$x | .detail")" == *"803"* ]]
	[ "$(j "$x | .fix[0]")" = "export LD_LIBRARY_PATH=/usr/local/nvidia/lib64" ]
}

@test "a newer compat libcuda is forward compatibility: a note, not an error" {
	kmod 580.159.04
	compat_lib 590.48.01
	run env CD_FAKE_MODE=h200 "$CD" check --json --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$TMP/cuda/compat/libcuda.so.1"
	[ "$status" -eq 0 ]
	[ "$(driver_errors)" = "" ]
	has_id driver-forward-compat
}

@test "libcuda of the kernel module's own version is no finding" {
	kmod 580.159.04
	compat_lib 580.159.04
	run env CD_FAKE_MODE=h200 "$CD" check --json --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$TMP/cuda/compat/libcuda.so.1"
	[ "$status" -eq 0 ]
	[ "$(j '[.findings[] | select(.section=="driver")] | length')" = 0 ]
}

