#!/usr/bin/env bash
# Validate the fleet features on a GPU machine (the lead runs this; the tests
# have fakes only): check --json twice gives the same bytes and fingerprint
# with live GPUs, --volatile keeps the fingerprint, --format prometheus passes
# promtool (when installed) and its info labels match the JSON, gate with a
# policy this machine meets exits 0 and with one it cannot meet exits 1 within
# a Slurm prolog's budget, and diff of the runs finds nothing.
# Usage: scripts/hw/h200-fleet.sh CUDA_DOCTOR OUTDIR
set -u
cd_bin=$(realpath "$1")
out=$2
mkdir -p "$out/reports"
res="$out/fleet.txt"
: >"$res"
say() { printf '%s\n' "$*" | tee -a "$res"; }
ms() { echo $(($(date +%s%N) / 1000000)); }

"$cd_bin" check --json -o "$out/reports/run1.json"
"$cd_bin" check --json -o "$out/reports/run2.json"
"$cd_bin" check --json --volatile >"$out/volatile.json"
if cmp -s "$out/reports/run1.json" "$out/reports/run2.json"; then
	say "check --json twice: byte-identical"
else
	say "check --json twice: DIFFERENT"
	diff "$out/reports/run1.json" "$out/reports/run2.json" >>"$res"
fi
fp() { jq -r .fleet.fingerprint "$1"; }
if [ "$(fp "$out/reports/run1.json")" = "$(fp "$out/volatile.json")" ]; then
	say "--volatile keeps the fingerprint"
else
	say "--volatile CHANGES the fingerprint"
fi
say "free memory with --volatile: $(jq -c '[.gpus[].memory_free_bytes]' "$out/volatile.json")"

"$cd_bin" check --format prometheus -o "$out/cuda_doctor.prom"
if command -v promtool >/dev/null; then
	if promtool check metrics <"$out/cuda_doctor.prom" >>"$res" 2>&1; then
		say "promtool: clean"
	else
		say "promtool: FAILED"
	fi
else
	say "promtool: not installed"
fi
say "info: $(grep '^cuda_doctor_info' "$out/cuda_doctor.prom")"
say "json: driver $(jq -r .driver.version "$out/reports/run1.json") cuda $(jq -r .driver.cuda_version "$out/reports/run1.json") torch $(jq -r .torch.version "$out/reports/run1.json") nccl $(jq -r .torch.nccl_version "$out/reports/run1.json")"
say "gpus: $(grep -c '^cuda_doctor_gpu_healthy{.*} 1$' "$out/cuda_doctor.prom") healthy of $(jq '.gpus | length' "$out/reports/run1.json")"

n=$(jq '.gpus | length' "$out/reports/run1.json")
cat >"$out/meets.policy" <<P
driver >= 535
cuda >= 12.1
gpu.count >= $n
gpu.cc >= 9.0
gpu.memory >= 140GiB
P
t0=$(ms)
"$cd_bin" gate --policy "$out/meets.policy" >"$out/gate-meets.txt" 2>&1
st=$?
say "gate (a policy this machine meets): exit $st in $(($(ms) - t0)) ms"
t0=$(ms)
"$cd_bin" gate --require "gpu.count >= $((n + 1))" --require 'driver >= 999' --json >"$out/gate-fails.json" 2>&1
st=$?
say "gate (one it cannot meet): exit $st in $(($(ms) - t0)) ms; $(jq -r '[.requirements[] | .found] | join(", ")' "$out/gate-fails.json")"

"$cd_bin" diff "$out/reports" >"$out/diff.txt" 2>&1
say "diff of the two runs: exit $? ($(head -1 "$out/diff.txt"))"
