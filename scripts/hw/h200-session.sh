#!/usr/bin/env bash
# One GPU-machine session for a release: builds this tree (and, when OLD
# holds another tree, that one too, for before/after figures), then
#   check: facts against nvidia-smi / NVML / torch (h200-check.sh), faults,
#          speed beside nvidia-smi and collect_env, and before/after in one run;
#   probe: scripts/hw/probe-validate.sh (every mode, faults, torch beside it);
#   explain: throughput on one core (bench/explain.sh);
#   jit --compile: the smoke build and its kernel run.
# Usage: scripts/hw/h200-session.sh OUTDIR [OLD_TREE]      (about 6 minutes)
set -u
out=${1:?usage: h200-session.sh OUTDIR [OLD_TREE]}
old=${2:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cd "$top" || exit 1
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
stamp "build"
make -j"$(nproc)" >"$out/build.log" 2>&1 || { make deps >>"$out/build.log" 2>&1 && make -j"$(nproc)" >>"$out/build.log" 2>&1; } || { echo "build failed"; tail -20 "$out/build.log"; exit 1; }
new=$top/build/cuda-doctor
if [ -n "$old" ]; then
	(cd "$old" && make -j"$(nproc)" >"$out/build-old.log" 2>&1) || echo "old build failed"
fi
stamp "check: facts, faults, speed"
bash scripts/hw/h200-check.sh "$new" "$out/check" >/dev/null 2>&1
stamp "check: before and after"
if [ -x "$old/build/cuda-doctor" ]; then
	cc -O2 -o /tmp/timeit bench/timeit.c
	for _ in 1 2 3; do
		echo "old $(/tmp/timeit 21 "$old/build/cuda-doctor" check)"
		echo "new $(/tmp/timeit 21 "$new" check)"
	done >"$out/before-after.txt" 2>&1
	"$old/build/cuda-doctor" check -v 2>&1 | tail -1 >>"$out/before-after.txt"
	"$new" check -v 2>&1 | tail -1 >>"$out/before-after.txt"
	"$old/build/cuda-doctor" check --json >"$out/check-old.json" 2>/dev/null
	"$new" check --json >"$out/check-new.json" 2>/dev/null
fi
stamp "probe"
timeout 240 bash scripts/hw/probe-validate.sh "$out/probe" >"$out/probe.log" 2>&1
stamp "jit --compile"
timeout 120 "$new" jit --compile --json >"$out/jit-compile.json" 2>"$out/jit-compile.err"
echo "exit $?" >>"$out/jit-compile.err"
stamp "explain speed"
timeout 150 bash bench/explain.sh "$new" 256 >"$out/explain-bench.txt" 2>&1
stamp "done"
