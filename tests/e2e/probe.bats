#!/usr/bin/env bats
# bats-par: alone (its tests time themselves: tests/bats-par.sh)
# `cuda-doctor probe` end to end against the fake libnvidia-ml.so.1 /
# libcuda.so.1 (tests/fakes; the machine and its faults chosen by
# CD_FAKE_MODE): every result a step can have, the time bounds (measured),
# CUDA_VISIBLE_DEVICES, MIG, --devices, --nagios. An empty --root keeps the
# host's /proc and /dev/kmsg out of it.

bats_require_minimum_version 1.5.0

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	TMP=$(mktemp -d)
	ROOT="$TMP/root"
	mkdir -p "$ROOT"
	unset CUDA_VISIBLE_DEVICES CD_FAKE_TRACE CD_FAKE_MODE CD_FAKE_FREE_MIB
	# A sanitizer build's relocations, globals' redzones and shadow take about
	# 15 MB before main(): memory budgets are the release build's (make e2e).
	SAN_BUILD=
	if ldd "$CD" | grep -q libasan; then SAN_BUILD=1; fi
}

teardown() {
	rm -rf "$TMP"
}

# probe MODE [ARGS...]: `probe --json` against the fakes under the fixture root.
probe() {
	local mode=$1
	shift
	run env CD_FAKE_MODE="$mode" "$CD" probe --json --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" "$@"
}

j() { jq -r "$1" <<<"$output"; }
ids() { j '[.findings[].id] | join(" ")'; }
has_id() { [[ " $(ids) " == *" $1 "* ]]; }
step() { j ".devices[$1].steps.$2.$3"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

@test "h200: every quick step passes, measured, verified" {
	probe h200
	[ "$status" -eq 0 ]
	[ "$(j .schema)" = cuda-doctor.probe/1 ]
	[ "$(j .mode)" = quick ]
	[ "$(j .enumerated_by)" = nvml ]
	[ "$(j '.devices | length')" = 1 ]
	[ "$(j '.devices[0].label')" = "GPU 0" ]
	[ "$(j '.devices[0].name')" = "NVIDIA H200" ]
	[ "$(j '.devices[0].uuid')" = GPU-0e6b8f52-9a1c-4d37-b2e5-c4f81a7d0936 ]
	# its child saw that one GPU alone, and CUDA named it the same
	[ "$(j '.devices[0].cuda_visible_devices')" = GPU-0e6b8f52-9a1c-4d37-b2e5-c4f81a7d0936 ]
	[ "$(j '.devices[0].cuda_uuid')" = GPU-0e6b8f52-9a1c-4d37-b2e5-c4f81a7d0936 ]
	[ "$(j '.devices[0].compute_capability')" = 9.0 ]
	[ "$(j '.devices[0].absent_symbols | length')" = 0 ]
	[ "$(j '.devices[0].result')" = passed ]
	for s in load init device context meminfo alloc copy module launch bandwidth; do
		[ "$(step 0 $s result)" = passed ] || { echo "$s: $(step 0 $s result)"; false; }
		[ "$(step 0 $s rc)" = 0 ]
	done
	[ "$(step 0 memtest result)" = skipped ]
	[ "$(step 0 compute result)" = skipped ]
	[ "$(j '.devices[0].measurements.alloc_bytes')" = $((24 * 1048576)) ]
	[ "$(j '.devices[0].measurements.h2d_bytes_per_s / 1e9 | round')" = 25 ]
	[ "$(j '.devices[0].measurements.kernel_round_trip_us >= 0')" = true ]
	[ "$(j '.devices[0].measurements.jit_wall_us')" = 1500 ]
	[[ "$(j '.devices[0].jit_log[0]')" == "ptxas info"* ]]
	[ "$(j '.summary.passed')" = 1 ]
	# no kernel log under the empty root: only the note that Xids were not read
	[ "$(ids)" = probe-xid-unreadable ]
	# the parent stays small: every driver call ran in a child
	[ -n "$SAN_BUILD" ] || [ "$(j '.peak_rss_kb < 16384')" = true ]
}

@test "text report: one line per step, then the summary" {
	run env CD_FAKE_MODE=h200 "$CD" probe --root "$ROOT" --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1"
	[ "$status" -eq 0 ]
	[[ "$output" == *"✓ GPU 0  NVIDIA H200, GPU-0e6b8f52-9a1c-4d37-b2e5-c4f81a7d0936: passed"* ]]
	[[ "$output" == *"✓ bandwidth"*"host to device 25.0 GB/s, device to host 25.0 GB/s"* ]]
	[[ "$output" == *"- memtest"*"not asked for (--full)"* ]]
	[[ "$output" == *"1 device: 1 passed, 0 failed, 0 hung, 0 crashed"* ]]
	run env CD_FAKE_MODE=h200 "$CD" probe --format markdown --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| launch | passed |"* ]]
}

@test "cuInit 999: failed with CUDA_ERROR_UNKNOWN, explained, the rest not run" {
	probe cuinit999
	[ "$status" -eq 1 ]
	[ "$(step 0 init result)" = failed ]
	[ "$(step 0 init rc)" = 999 ]
	[ "$(step 0 init rc_name)" = CUDA_ERROR_UNKNOWN ]
	[ "$(step 0 device result)" = not-run ]
	[ "$(j '.devices[0].result')" = failed ]
	has_id probe-init-failed
	[[ "$(j '.findings[] | select(.id=="probe-init-failed") | .fix | join("\n")')" == *"modprobe nvidia_uvm"* ]]
}

@test "no device: NVML sees none (gpu-none-visible); cuInit's 100 is not repeated" {
	probe nogpu
	[ "$status" -eq 1 ]
	[ "$(j '.devices | length')" = 0 ]
	[ "$(j .enumerated_by)" = cuda ]
	[ "$(j .enumerate.rc_name)" = CUDA_ERROR_NO_DEVICE ]
	has_id gpu-none-visible
	! has_id probe-no-device || false
}

@test "NVML down: CUDA enumerates, cuInit's CUDA_ERROR_NO_DEVICE is probe-no-device" {
	probe initfail
	[ "$status" -eq 1 ]
	[ "$(j .enumerated_by)" = cuda ]
	[ "$(j .enumerate.result)" = failed ]
	[ "$(j .enumerate.rc)" = 100 ]
	has_id probe-no-device
	has_id driver-init-failed
}

@test "a hang in cuInit is hung, not failed, and --timeout holds (measured)" {
	t0=$(now_ms)
	probe hanginit --timeout 1.5
	dt=$(($(now_ms) - t0))
	[ "$status" -eq 1 ]
	[ "$dt" -lt 2500 ] || { echo "took $dt ms"; false; }
	[ "$(step 0 init result)" = hung ]
	[ "$(step 0 init call)" = cuInit ]
	[[ "$(step 0 init error)" == *"--timeout ran out"* ]]
	[ "$(j .timed_out)" = true ]
	has_id probe-hung
	! has_id probe-init-failed || false
}

@test "a kernel that never completes is killed at the launch step's own deadline" {
	t0=$(now_ms)
	probe hanglaunch --timeout 30
	dt=$(($(now_ms) - t0))
	[ "$status" -eq 1 ]
	# 3 s for the launch step, not the 30 s of --timeout
	[ "$dt" -lt 5000 ] || { echo "took $dt ms"; false; }
	[ "$(step 0 module result)" = passed ]
	[ "$(step 0 launch result)" = hung ]
	[[ "$(step 0 launch call)" == cuEventQuery* ]]
	[[ "$(step 0 launch error)" == *"3000 ms"* ]]
	[ "$(step 0 bandwidth result)" = not-run ]
	[ "$(j .devices[0].killed_at_timeout)" = false ]
	has_id probe-hung
}

@test "a copy that blocks in the driver is hung in cuMemcpyHtoDAsync_v2, within --timeout" {
	t0=$(now_ms)
	probe hangcopy --timeout 2
	dt=$(($(now_ms) - t0))
	[ "$dt" -lt 3000 ] || { echo "took $dt ms"; false; }
	[ "$status" -eq 1 ]
	[ "$(step 0 alloc result)" = passed ]
	[ "$(step 0 copy result)" = hung ]
	[ "$(step 0 copy call)" = cuMemcpyHtoDAsync_v2 ]
}

@test "a launch failure is failed with CUDA_ERROR_LAUNCH_FAILED" {
	probe launchfail
	[ "$status" -eq 1 ]
	[ "$(step 0 launch result)" = failed ]
	[ "$(step 0 launch rc)" = 719 ]
	[ "$(step 0 launch rc_name)" = CUDA_ERROR_LAUNCH_FAILED ]
	[[ "$(step 0 launch call)" == cuEventQuery* ]]
	has_id probe-step-failed
}

@test "wrong bytes on readback are found, byte for byte" {
	probe badcopy
	[ "$status" -eq 1 ]
	[ "$(step 0 copy result)" = failed ]
	[ "$(step 0 copy error)" = "1 of 6291456 words differ; the first at byte 4096: 0x31b53e63 written, 0x31b53e73 read" ]
	has_id probe-data-mismatch
}

@test "a crash in the driver is crashed with its signal; the tool carries on" {
	probe crashlaunch
	[ "$status" -eq 1 ]
	[ "$(step 0 launch result)" = crashed ]
	[ "$(step 0 launch signal)" = 11 ]
	[ "$(step 0 launch call)" = cuLaunchKernel ]
	has_id probe-crashed
}

@test "one bad GPU among four: it hangs, the other three pass, all within --timeout" {
	t0=$(now_ms)
	probe onebad --timeout 3
	dt=$(($(now_ms) - t0))
	[ "$dt" -lt 4000 ] || { echo "took $dt ms"; false; }
	[ "$status" -eq 1 ]
	[ "$(j '.devices | length')" = 4 ]
	[ "$(j '[.devices[].result] | join(" ")')" = "passed passed hung passed" ]
	[ "$(j '.devices[2].uuid')" = GPU-1a2b3c4d-0000-4000-8000-00000000a102 ]
	[ "$(step 2 launch result)" = hung ]
	[ "$(j '.summary.passed')" = 3 ]
	[ "$(j '.summary.hung')" = 1 ]
	[ "$(j '[.findings[] | select(.id=="probe-hung")] | length')" = 1 ]
}

@test "NVML and cuInit both hang: driver-timeout and probe-hung, within --timeout" {
	t0=$(now_ms)
	probe hang --timeout 2
	dt=$(($(now_ms) - t0))
	[ "$dt" -lt 3000 ] || { echo "took $dt ms"; false; }
	[ "$status" -eq 1 ]
	[ "$(j .enumerate.result)" = hung ]
	has_id driver-timeout
	has_id probe-hung
}

@test "a missing PTX JIT compiler is probe-jit-failed with the JIT log" {
	probe nojit
	[ "$status" -eq 1 ]
	[ "$(step 0 module rc)" = 221 ]
	has_id probe-jit-failed
	[[ "$(j '.findings[] | select(.id=="probe-jit-failed") | .evidence | join("\n")')" == *"libnvidia-ptxjitcompiler.so.1 not found"* ]]
}

@test "too little free memory to test: the alloc step fails with what holds the memory" {
	CD_FAKE_FREE_MIB=4 probe h200
	[ "$status" -eq 1 ]
	[ "$(step 0 meminfo result)" = passed ]
	[ "$(step 0 alloc result)" = failed ]
	[ "$(step 0 alloc error)" = "only 4194304 bytes of GPU memory are free" ]
	[ "$(j '.findings[] | select(.id=="probe-step-failed") | .title')" = \
		"GPU 0: the alloc step failed: only 4194304 bytes of GPU memory are free" ]
	[[ "$(j '.findings[] | select(.id=="probe-step-failed") | .fix | join("\n")')" == *"--query-compute-apps"* ]]
}

@test "a GPU held in exclusive-process mode: CUDA_ERROR_DEVICE_UNAVAILABLE at the context" {
	probe busy
	[ "$status" -eq 1 ]
	[ "$(step 0 context rc)" = 46 ]
	[ "$(step 0 context call)" = cuDevicePrimaryCtxRetain ]
	[[ "$(j '.findings[] | select(.id=="probe-step-failed") | .fix | join("\n")')" == *"compute_mode"* ]]
}

@test "a toolkit stub: driver-stub-library, and cuInit's 34 on every device" {
	probe stub
	[ "$status" -eq 1 ]
	has_id driver-stub-library
	[ "$(step 0 init rc)" = 34 ]
	[ "$(j '[.findings[] | select(.id=="probe-init-failed")] | length')" = 1 ]
	[[ "$(j '.findings[] | select(.id=="probe-init-failed") | .title')" == "2 devices:"* ]]
}

@test "MIG: each instance is probed in its own child by its MIG UUID" {
	probe mig
	[ "$status" -eq 0 ]
	[ "$(j '.gpus[0].mig_enabled')" = true ]
	[ "$(j '.gpus[0].mig_instances | length')" = 2 ]
	[ "$(j '.devices | length')" = 2 ]
	[ "$(j '.devices[1].label')" = "GPU 0 MIG 1" ]
	[ "$(j '.devices[1].cuda_visible_devices')" = MIG-6c9f2d3e-5a4b-5f7c-8d9e-9fa0b1c2d3e4 ]
	[ "$(j '.devices[1].mig.gpu_instance')" = 2 ]
	[ "$(j '.devices[1].name')" = "NVIDIA A100-SXM4-80GB MIG 3g.40gb" ]
	[ "$(j '[.devices[].result] | join(" ")')" = "passed passed" ]
	# CUDA_VISIBLE_DEVICES naming one instance by a prefix of its UUID
	CUDA_VISIBLE_DEVICES=MIG-6c9f probe mig
	[ "$status" -eq 0 ]
	[ "$(j '[.devices[].uuid] | join(" ")')" = MIG-6c9f2d3e-5a4b-5f7c-8d9e-9fa0b1c2d3e4 ]
}

@test "CUDA_VISIBLE_DEVICES is honoured and reported" {
	CUDA_VISIBLE_DEVICES=1 probe ok
	[ "$status" -eq 0 ]
	[ "$(j .cuda_visible_devices)" = 1 ]
	[ "$(j '.devices | length')" = 1 ]
	[ "$(j '.devices[0].label')" = "GPU 1" ]
	[ "$(j '.devices[0].ordinal')" = 0 ]
	[ "$(j '.devices[0].uuid')" = GPU-c81e2a47-3d95-4b0f-8e26-71a9f5d0b3c4 ]
	# the runtime stops at an entry naming no GPU: 1 is visible, 5 and 0 are not
	CUDA_VISIBLE_DEVICES=1,5,0 probe ok
	[ "$(j '.devices | length')" = 1 ]
	[[ "$(j .cuda_visible_devices_note)" == *'"5"'* ]]
	has_id cuda-visible-devices-invalid
	# hiding every GPU: CUDA's own answer, with the variable as evidence
	CUDA_VISIBLE_DEVICES= probe ok
	[ "$status" -eq 1 ]
	[ "$(j '.devices | length')" = 0 ]
	has_id probe-no-device
	[[ "$(j '.findings[] | select(.id=="probe-no-device") | .evidence | join("\n")')" == *"CUDA_VISIBLE_DEVICES="* ]]
}

@test "--devices narrows the visible list; a device that is not there is a usage error" {
	probe ok --devices 1
	[ "$status" -eq 0 ]
	[ "$(j '[.devices[].label] | join(" ")')" = "GPU 1" ]
	probe ok --devices GPU-5a3f
	[ "$(j '[.devices[].label] | join(" ")')" = "GPU 0" ]
	probe ok --devices 7
	[ "$status" -eq 2 ]
	[[ "$output" == *"--devices: '7' is not a visible device (2 visible"* ]]
}

@test "--nagios: one status line, exit 0/1/2/3 for OK/WARNING/CRITICAL/UNKNOWN" {
	run env CD_FAKE_MODE=h200 "$CD" probe --nagios --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" =~ ^"CUDA PROBE OK - 1 of 1 device passed in "[0-9.]+" s | devices=1 passed=1 failed=0 hung=0 crashed=0 wall=" ]]
	run env CD_FAKE_MODE=onebad "$CD" probe --nagios --timeout 3 --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "CUDA PROBE CRITICAL - GPU 2 hung in cuEventQuery"*"[probe-hung]; 3 of 4 devices passed"* ]]
	# warnings only: WARNING, 1
	run env CD_FAKE_MODE=nopeer "$CD" probe --nagios --full --root "$ROOT" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	[ "$status" -eq 1 ]
	[[ "$output" == "CUDA PROBE WARNING - Some GPUs cannot access each other's memory directly [probe-peer-unavailable]; 2 of 2 devices passed"* ]]
	# nothing could be probed and nothing says why: UNKNOWN, 3
	run "$CD" probe --nagios --root "$ROOT"
	[ "$status" -eq 3 ]
	[[ "$output" == "CUDA PROBE UNKNOWN - 0 of 0 devices passed"* ]]
}

@test "--quick and --full exclude each other; unknown options are usage errors" {
	run "$CD" probe --quick --full
	[ "$status" -eq 2 ]
	run "$CD" probe --bogus
	[ "$status" -eq 2 ]
	run "$CD" probe --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--nagios"* ]]
}

@test "the embedded PTX is ISA 6.0 for sm_50 and assembles for today's GPUs" {
	run "$CD" probe --print-ptx
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == ".version 6.0" ]]
	[[ "${lines[1]}" == ".target sm_50" ]]
	[[ "$output" == *".entry cd_fill("* ]]
	command -v ptxas >/dev/null || skip "no ptxas here"
	"$CD" probe --print-ptx >"$TMP/k.ptx"
	for a in sm_75 sm_80 sm_90 sm_120; do
		ptxas -arch=$a "$TMP/k.ptx" -o "$TMP/k.cubin"
	done
}

@test "--full: half the free memory pattern-tested, a verified loop on every SM" {
	probe h200 --full
	[ "$status" -eq 0 ]
	[ "$(j .mode)" = full ]
	[ "$(step 0 memtest result)" = passed ]
	[ "$(step 0 compute result)" = passed ]
	# 192 MiB free, 24 MiB taken by the quick test: half of the rest, in 2 MiB units
	[ "$(j '.devices[0].measurements.memtest_bytes')" = $((84 * 1048576)) ]
	[ "$(j '.devices[0].measurements.memtest_errors')" = 0 ]
	[ "$(j '.devices[0].measurements.compute_threads')" = $((132 * 2048)) ]
	[ "$(j '.devices[0].measurements.compute_iterations')" = 1048576 ]
	[ "$(j '.peers.child.result')" = skipped ]
}

@test "peers: the matrix and a verified copy for each pair that reports access" {
	probe ok --full
	[ "$status" -eq 0 ]
	[ "$(j '.peers.child.result')" = passed ]
	[ "$(j '.peers.pairs | length')" = 2 ]
	[ "$(j '[.peers.pairs[] | "\(.from)>\(.to) \(.access) \(.copy.result)"] | join(", ")')" = \
		"0>1 true passed, 1>0 true passed" ]
	[ "$(j '.peers.pairs[0].bytes_per_s / 1e9 | round')" = 200 ]
	probe nopeer --full
	[ "$status" -eq 0 ]
	[ "$(j '[.peers.pairs[] | .copy.result] | join(" ")')" = "skipped skipped" ]
	has_id probe-peer-unavailable
	# access reported, and the bytes that arrive are not the bytes sent
	probe badpeer --full
	[ "$status" -eq 1 ]
	[ "$(j '[.peers.pairs[] | .copy.result] | join(" ")')" = "failed failed" ]
	has_id probe-peer-failed
}

@test "NCCL: a communicator over the GPUs and an all-reduce checked exactly" {
	probe ok --nccl-lib "$FAKES/libnccl.so.2"
	[ "$status" -eq 0 ]
	[ "$(j .nccl.requested)" = true ]
	[ "$(j .nccl.source)" = --nccl-lib ]
	[ "$(j .nccl.version)" = 2.27.3 ]
	[ "$(j .nccl.version_code)" = 22703 ]
	[ "$(j .nccl.ranks)" = 2 ]
	[ "$(j '[.nccl.load.result, .nccl.init.result, .nccl.allreduce.result] | join(" ")')" = \
		"passed passed passed" ]
	[ "$(j '.nccl.bus_bytes_per_s > 0')" = true ]
	# one GPU: a communicator of one
	probe h200 --nccl-lib "$FAKES/libnccl.so.2"
	[ "$status" -eq 0 ]
	[ "$(j .nccl.ranks)" = 1 ]
	[ "$(j .nccl.allreduce.result)" = passed ]
	# not asked for: not loaded
	probe ok
	[ "$(j .nccl.load.result)" = skipped ]
	[ "$(j .nccl.path)" = null ]
	# NCCL's transport switches matter to --nccl alone
	NCCL_P2P_DISABLE=1 probe ok --nccl-lib "$FAKES/libnccl.so.2"
	has_id nccl-transport-disabled
	NCCL_P2P_DISABLE=1 probe ok
	! has_id nccl-transport-disabled || false
}

@test "NCCL faults: init fails with its result by name, a wrong sum, a hang within --timeout" {
	probe ncclfail --nccl-lib "$FAKES/libnccl.so.2"
	[ "$status" -eq 1 ]
	[ "$(j .nccl.init.rc_name)" = ncclSystemError ]
	[[ "$(j .nccl.init.error)" == *"/dev/shm"* ]]
	[ "$(j .nccl.allreduce.result)" = not-run ]
	[[ "$(j '.findings[] | select(.id=="probe-nccl-failed") | .fix | join("\n")')" == *"df -h /dev/shm"* ]]
	probe ncclwrong --nccl-lib "$FAKES/libnccl.so.2"
	[ "$status" -eq 1 ]
	[ "$(j .nccl.allreduce.error)" = "rank 0 element 12345: 1147, expected 1146" ]
	t0=$(now_ms)
	probe ncclhang --nccl-lib "$FAKES/libnccl.so.2" --timeout 3
	dt=$(($(now_ms) - t0))
	[ "$dt" -lt 4000 ] || { echo "took $dt ms"; false; }
	[ "$(j .nccl.init.result)" = hung ]
	[ "$(j .nccl.init.call)" = ncclCommInitAll ]
	[ "$(j '[.devices[].result] | join(" ")')" = "passed passed" ]
	probe ok --nccl-lib "$TMP/absent/libnccl.so.2"
	[ "$(j .nccl.load.result)" = failed ]
	has_id probe-nccl-failed
}

@test "--nccl finds the libnccl.so.2 import torch would load, and never loads it under --root" {
	load stacklibs_fixtures
	src="$TMP/src"
	mkdir -p "$src"
	fx_sources "$src"
	make_torch_root "$ROOT" "$src"
	run env CD_FAKE_MODE=h200 "$CD" probe --json --nccl --root "$ROOT" \
		--env /opt/torch/.venv --nvml-lib "$FAKES/libnvidia-ml.so.1" \
		--cuda-lib "$FAKES/libcuda.so.1"
	[ "$(j .nccl.source)" = torch ]
	[ "$(j .nccl.path)" = /opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2 ]
	[ "$(j .nccl.load.result)" = skipped ]
	[[ "$(j .nccl.load.error)" == *"--nccl-lib"* ]]
}

@test "Xid lines of the kernel log, classified by the three tools, matched to GPUs" {
	mkdir -p "$ROOT/dev"
	printf '%s\n' '6,1,100,-;NVRM: loading NVIDIA UNIX x86_64 Kernel Module' \
		'4,2,5000000,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1234, name=python3, GPU has fallen off the bus.' \
		' SUBSYSTEM=pci' \
		'4,3,6000000,-;NVRM: Xid (PCI:0000:2a:00): 13, pid=99, Graphics Exception' \
		'4,4,7000000,-;NVRM: Xid (PCI:0000:18:00): 79, pid=1234, GPU has fallen off the bus.' \
		>"$ROOT/dev/kmsg"
	probe ok
	[ "$status" -eq 1 ]
	[ "$(j .xid.readable)" = true ]
	[ "$(j '.xid.events | length')" = 3 ]
	[ "$(j '[.xid.events[] | "\(.xid)@\(.gpu)"] | join(" ")')" = "79@0 13@1 79@0" ]
	[ "$(j '.xid.events[0].dcgm_health')" = fail ]
	[ "$(j '.xid.events[1].k8s_device_plugin')" = ignored ]
	[ "$(j '[.findings[] | select(.id=="probe-xid") | .severity] | join(" ")')" = "error info" ]
	x79=$(j '.findings[] | select(.id=="probe-xid" and .severity=="error")')
	[[ "$(jq -r .title <<<"$x79")" == "Xid 79 (GPU has fallen off the bus) in the kernel log: 2 lines since boot" ]]
	[[ "$(jq -r .detail <<<"$x79")" == *"EKS node monitoring agent calls it fatal"* ]]
	[[ "$(jq -r '.fix[0]' <<<"$x79")" == "power-cycle the node"* ]]
	# no log at all under this root: unknown, said as such
	rm "$ROOT/dev/kmsg"
	probe ok
	[ "$(j .xid.readable)" = false ]
	has_id probe-xid-unreadable
}

@test "NVML's recovery action and retired pages; MIG enabled without an instance" {
	probe ecc
	[ "$(j '.gpus[1].recovery_action')" = 1 ]
	[ "$(j '.gpus[1].recovery_action_name')" = NVML_GPU_RECOVERY_ACTION_GPU_RESET ]
	[ "$(j '.gpus[1].retired_pages_dbe')" = 7 ]
	[ "$(j '.gpus[0].recovery_action')" = 0 ]
	has_id probe-recovery-action
	probe migempty
	[ "$(j '.gpus[0].mig_enabled')" = true ]
	[ "$(j '.devices[0].result')" = skipped ]
	[[ "$(j '.devices[0].steps.init.error')" == *"no MIG instance"* ]]
	has_id probe-mig-empty
}
