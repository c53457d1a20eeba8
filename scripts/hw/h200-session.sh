#!/usr/bin/env bash
# One GPU-machine session for a release, with binaries built elsewhere (the
# GPU machine may lack the build dependencies; the binary needs glibc only):
#   check: facts against nvidia-smi / NVML / torch (h200-check.sh), faults,
#          speed beside nvidia-smi and collect_env, and before/after in one run;
#   probe: scripts/hw/probe-validate.sh (every mode, faults, torch beside it);
#   explain: throughput on one core (bench/explain.sh);
#   jit --compile: the smoke build and its kernel run.
# Usage: scripts/hw/h200-session.sh OUTDIR NEW_BINARY [OLD_BINARY]   (about 6 minutes)
# bench/explain.sh needs NEW_BINARY's gen/patterns.ere beside it.
set -u
out=${1:?usage: h200-session.sh OUTDIR NEW_BINARY [OLD_BINARY]}
new=$(realpath "${2:?usage: h200-session.sh OUTDIR NEW_BINARY [OLD_BINARY]}")
old=${3:+$(realpath "$3")}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
cd "$top" || exit 1
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0)) s] $*"; }
stamp "check: facts, faults, speed"
bash scripts/hw/h200-check.sh "$new" "$out/check" >/dev/null 2>&1
stamp "check: before and after"
if [ -n "$old" ]; then
	cc -O2 -o /tmp/timeit bench/timeit.c
	for _ in 1 2 3; do
		echo "old $(/tmp/timeit 21 "$old" check)"
		echo "new $(/tmp/timeit 21 "$new" check)"
	done >"$out/before-after.txt" 2>&1
	"$old" check -v 2>&1 | tail -1 >>"$out/before-after.txt"
	"$new" check -v 2>&1 | tail -1 >>"$out/before-after.txt"
	"$old" check --json >"$out/check-old.json" 2>/dev/null
	"$new" check --json >"$out/check-new.json" 2>/dev/null
fi
stamp "probe"
CD_BIN=$new timeout 240 bash scripts/hw/probe-validate.sh "$out/probe" >"$out/probe.log" 2>&1
stamp "jit --compile"
timeout 120 "$new" jit --compile --json >"$out/jit-compile.json" 2>"$out/jit-compile.err"
echo "exit $?" >>"$out/jit-compile.err"
stamp "explain speed"
timeout 150 bash bench/explain.sh "$new" 256 >"$out/explain-bench.txt" 2>&1
stamp "done"
