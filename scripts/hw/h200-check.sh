#!/usr/bin/env bash
# Validate `cuda-doctor check` on a GPU machine: facts against nvidia-smi / NVML
# / torch / nvcc (validate.py), speed beside the reference tools (bench/check.sh),
# and faults injected one at a time, each expected to produce a finding.
# Usage: scripts/hw/h200-check.sh CUDA_DOCTOR OUTDIR
set -u
cd_bin=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
py=${PYTHON:-python3}

"$cd_bin" check -v >"$out/check.txt" 2>&1
"$cd_bin" check --json >"$out/check.json" 2>&1
"$py" "$here/validate.py" "$cd_bin" "$out/validation.md" >/dev/null 2>"$out/validate.err"

cc -O2 -o /tmp/timeit "$here/../../bench/timeit.c" 2>/dev/null ||
	gcc -O2 -o /tmp/timeit "$here/../../bench/timeit.c"
TIMEIT=/tmp/timeit PYTHON=$py bash "$here/../../bench/check.sh" "$cd_bin" 21 >"$out/bench.txt" 2>&1

# expect ID ENV... -- ARGS: run check with the environment changes, report the finding ids.
f="$out/faults.txt"
: >"$f"
expect() {
	local want=$1; shift
	local envs=()
	while [ "$1" != "--" ]; do envs+=("$1"); shift; done
	shift
	local got
	got=$(env "${envs[@]}" "$cd_bin" check --json "$@" 2>/dev/null | "$py" -c 'import json,sys; r=json.load(sys.stdin); print(" ".join(x["id"]+":"+x["severity"] for x in r["findings"]))')
	local verdict=MISSING
	case " $got " in *" $want:"*) verdict=found ;; esac
	[ "$want" = "none" ] && { [ -z "$(tr ' ' '\n' <<<"$got" | grep -v ':info$')" ] && verdict=found; }
	printf '%-32s %-8s %s | %s | %s\n' "$want" "$verdict" "${envs[*]}" "$*" "$got" >>"$f"
}
uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
stubs=/usr/local/cuda/targets/x86_64-linux/lib/stubs
expect none X=1 --
expect cuda-visible-devices-invalid CUDA_VISIBLE_DEVICES=1 --
expect cuda-visible-devices-invalid CUDA_VISIBLE_DEVICES= --
expect none "CUDA_VISIBLE_DEVICES=${uuid:0:12}" --
expect cuda-visible-devices-invalid CUDA_VISIBLE_DEVICES=GPU-ffffffff --
expect driver-stub-library X=1 -- --cuda-lib "$stubs/libcuda.so"
# The stubs directory holds libcuda.so only, so putting it on LD_LIBRARY_PATH
# changes nothing; the real mistake is a libcuda.so.1 link to the stub.
sl=$(mktemp -d); ln -s "$stubs/libcuda.so" "$sl/libcuda.so.1"
expect driver-stub-library "LD_LIBRARY_PATH=$sl:${LD_LIBRARY_PATH:-}" --
rm -rf "$sl"
expect torch-arch-list-invalid TORCH_CUDA_ARCH_LIST=garbage --
expect nccl-transport-disabled NCCL_P2P_DISABLE=1 --
expect ld-library-path-invalid "LD_LIBRARY_PATH=:${LD_LIBRARY_PATH:-}" --
# A toolkit newer than the driver: CUDA 13.2 headers and version.json in a temp dir.
t=$(mktemp -d); mkdir -p "$t/bin" "$t/include"
cp /usr/local/cuda/include/*.h "$t/include/" 2>/dev/null
printf '#!/bin/sh\nexit 1\n' >"$t/bin/nvcc"; chmod +x "$t/bin/nvcc"
printf '{"cuda":{"version":"13.2.0"},"cuda_nvcc":{"version":"13.2.51"}}' >"$t/version.json"
expect driver-too-old "CUDA_HOME=$t" --
printf '{"cuda":{"version":"14.0.0"},"cuda_nvcc":{"version":"14.0.10"}}' >"$t/version.json"
sed -i 's/#define CUDA_VERSION [0-9]*/#define CUDA_VERSION 14000/' "$t/include/cuda.h"
expect driver-too-old "CUDA_HOME=$t" --
rm -rf "$t"
# The forward-compatibility libcuda of the toolkit first on the search path.
# (its libcuda is 580.95.05, older than the 580.159.04 kernel module: cuInit would fail with 803)
[ -d /usr/local/cuda/compat ] && expect driver-library-mismatch "LD_LIBRARY_PATH=/usr/local/cuda/compat:${LD_LIBRARY_PATH:-}" --
# A driver that cannot answer within the deadline.
start=$(date +%s%N)
"$cd_bin" check --timeout 0.1 --json >"$out/timeout.json" 2>&1
echo "check --timeout 0.1: exit $? in $(( ($(date +%s%N) - start) / 1000000 )) ms" >>"$f"
cat "$f"
