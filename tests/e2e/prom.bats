#!/usr/bin/env bats
# check --format prometheus: node_exporter's textfile format, validated with
# promtool (Debian's prometheus package; scripts/install-deps.sh installs it).

load stacklibs_fixtures

setup_file() {
	S="$BATS_FILE_TMPDIR/src"
	mkdir -p "$S"
	fx_sources "$S"
	make_torch_root "$BATS_FILE_TMPDIR/torch" "$S"
	mkdir -p "$BATS_FILE_TMPDIR/empty"
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	T=$BATS_TEST_TMPDIR
	command -v promtool >/dev/null ||
		skip "promtool is not installed (Debian: apt-get install prometheus, or make deps)"
}

# metrics ROOT MODE [ARGS...]: check --format prometheus against the fakes.
metrics() {
	local root=$1 mode=$2
	shift 2
	run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent CD_FAKE_MODE="$mode" \
		"$CD" --root "$BATS_FILE_TMPDIR/$root" --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1" --timeout 5 check --format prometheus "$@"
	printf '%s\n' "$output" >"$T/m.prom"
}

@test "prometheus: promtool can tell a bad file (so the checks below mean something)" {
	printf '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n# HELP y\ny 1 2 3\n' >"$T/bad.prom"
	run promtool check metrics <"$T/bad.prom"
	[ "$status" -ne 0 ]
}

@test "prometheus: two H100s pass promtool, with the info metric, count, memory and health" {
	metrics empty ok
	[ "$status" -le 1 ]
	run promtool check metrics <"$T/m.prom"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ] # not even a lint warning
	grep -q '^cuda_doctor_info{driver="570.124.06",cuda_driver="12.8",torch="",' "$T/m.prom"
	grep -q '^cuda_doctor_driver_up 1$' "$T/m.prom"
	grep -q '^cuda_doctor_gpus 2$' "$T/m.prom"
	grep -q '^cuda_doctor_gpu_info{gpu="0",uuid="GPU-5a3f9c1e-7b2d-4e8a-9c61-0f2b8d4e7a13",name="NVIDIA H100 80GB HBM3",pci_bus_id="00000000:18:00.0",compute_capability="9.0"} 1$' "$T/m.prom"
	grep -q "^cuda_doctor_gpu_memory_total_bytes{gpu=\"0\",[^}]*} $((81559 * 1048576))\$" "$T/m.prom"
	[ "$(grep -c '^cuda_doctor_gpu_healthy{.*} 1$' "$T/m.prom")" -eq 2 ]
	grep -q '^cuda_doctor_findings{severity="error"} [0-9]*$' "$T/m.prom"
	# No timestamps: every sample is a name (with labels) and one value.
	! grep -v '^#' "$T/m.prom" | grep -qvE '^[a-z_]+(\{[^}]*\})? [0-9]+$' || false
	# Nothing time-varying unless asked.
	! grep -q free_bytes "$T/m.prom" || false
}

@test "prometheus: torch's stack in the info labels; --volatile adds free memory" {
	metrics torch h200 --volatile
	[ "$status" -le 1 ]
	run promtool check metrics <"$T/m.prom"
	[ "$status" -eq 0 ]
	grep -q '^cuda_doctor_info{driver="580.159.04",cuda_driver="13.0",torch="2.11.0+cu130",torch_cuda="13.0",cudnn="9.19.0.56",nccl="2.28.9",cuda_runtime="13.0.96",nvcc="",fingerprint="sha256:[0-9a-f]\{64\}",version="[0-9.]*"} 1$' "$T/m.prom"
	grep -q '^cuda_doctor_gpu_memory_free_bytes{gpu="0",' "$T/m.prom"
	# lib-duplicate is raised twice: one series that says 2.
	grep -q '^cuda_doctor_finding{id="lib-duplicate",severity="info"} 2$' "$T/m.prom"
}

@test "prometheus: uncorrectable ECC errors make a GPU unhealthy and count" {
	metrics empty ecc
	[ "$status" -eq 1 ]
	run promtool check metrics <"$T/m.prom"
	[ "$status" -eq 0 ]
	grep -q '^cuda_doctor_gpu_healthy{gpu="0",[^}]*} 1$' "$T/m.prom"
	grep -q '^cuda_doctor_gpu_healthy{gpu="1",[^}]*} 0$' "$T/m.prom"
	grep -q '^cuda_doctor_gpu_ecc_uncorrected_errors_total{gpu="1",[^}]*} 7$' "$T/m.prom"
	grep -q '^cuda_doctor_finding{id="gpu-ecc-errors",severity="error"} 1$' "$T/m.prom"
}

@test "prometheus: no driver is driver_up 0 and no GPU sample, still valid" {
	run env -i PATH=/usr/bin "$CD" --root "$BATS_FILE_TMPDIR/empty" check --format prometheus
	printf '%s\n' "$output" >"$T/m.prom"
	run promtool check metrics <"$T/m.prom"
	[ "$status" -eq 0 ]
	grep -q '^cuda_doctor_driver_up 0$' "$T/m.prom"
	! grep -q '^cuda_doctor_gpus ' "$T/m.prom" || false
}

@test "prometheus -o FILE: what the textfile collector reads, replaced atomically" {
	metrics empty ok
	cp "$T/m.prom" "$T/stdout.prom"
	echo stale >"$T/cuda_doctor.prom"
	metrics empty ok -o "$T/cuda_doctor.prom"
	[ "$status" -le 1 ]
	[ -z "$output" ]
	cmp "$T/stdout.prom" "$T/cuda_doctor.prom"
	[ ! -e "$T/cuda_doctor.prom.tmp" ]
}

@test "prometheus: only check and probe write metrics" {
	run "$CD" jit --format prometheus
	[ "$status" -eq 2 ]
	[[ "$output" == *"--format prometheus: only check and probe write metrics"* ]]
}

# probe_metrics MODE [ARGS...]: probe --format prometheus against the fakes.
probe_metrics() {
	local mode=$1
	shift
	run env CD_FAKE_MODE="$mode" "$CD" probe --format prometheus --root "$BATS_FILE_TMPDIR/empty" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" "$@"
	printf '%s\n' "$output" >"$T/p.prom"
}

@test "prometheus: probe's metrics pass promtool, in base units, one series per device and step" {
	probe_metrics h200
	[ "$status" -eq 0 ]
	run promtool check metrics <"$T/p.prom"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q '^cuda_doctor_probe_info{driver="580.159.04",cuda_driver="13.0",mode="quick",' "$T/p.prom"
	grep -q '^cuda_doctor_probe_devices 1$' "$T/p.prom"
	grep -q '^cuda_doctor_probe_device_passed{device="0",uuid="GPU-[0-9a-f-]*"} 1$' "$T/p.prom"
	grep -q '^cuda_doctor_probe_device_result{device="0",.*,name="NVIDIA H200",result="passed"} 1$' "$T/p.prom"
	# every quick step has its time, in seconds
	[ "$(grep -c '^cuda_doctor_probe_step_seconds{' "$T/p.prom")" -eq 10 ]
	grep -q '^cuda_doctor_probe_step_seconds{.*step="bandwidth"} [0-9.e-]*$' "$T/p.prom"
	grep -q '^cuda_doctor_probe_h2d_bytes_per_second{device="0",[^}]*} [1-9][0-9]*$' "$T/p.prom"
	grep -q '^cuda_doctor_probe_findings{severity="error"} 0$' "$T/p.prom"
	# --full's figures only when --full ran: no sample, not a zero
	! grep -q '^cuda_doctor_probe_memtest_errors{' "$T/p.prom" || false
}

@test "prometheus: a GPU that hangs among four is passed 0 with result hung; the others pass" {
	probe_metrics onebad --timeout 3
	[ "$status" -eq 1 ]
	run promtool check metrics <"$T/p.prom"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^cuda_doctor_probe_device_passed{.*} 1$' "$T/p.prom")" -eq 3 ]
	[ "$(grep -c '^cuda_doctor_probe_device_passed{.*} 0$' "$T/p.prom")" -eq 1 ]
	grep -q '^cuda_doctor_probe_device_result{.*result="hung"} 1$' "$T/p.prom"
	grep -q '^cuda_doctor_probe_finding{id="probe-hung",severity="error"} 1$' "$T/p.prom"
}

@test "prometheus: probe -o FILE is replaced atomically; a bad -o is refused before probing" {
	echo stale >"$T/probe.prom"
	probe_metrics h200 -o "$T/probe.prom"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	grep -q '^cuda_doctor_probe_devices 1$' "$T/probe.prom"
	[ ! -e "$T/probe.prom.tmp" ]
	mkdir "$T/adir"
	probe_metrics h200 -o "$T/adir"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cuda-doctor probe:"* ]]
	run "$CD" probe --nagios -o "$T/x"
	[ "$status" -eq 2 ]
}
