#!/usr/bin/env bash
# The performance record on a GPU machine (docs/performance.md, the GPU rows):
#   sudo scripts/hw/perf.sh CUDA_DOCTOR OUTDIR [RUNS]
# 1. warm: `check` beside the smallest NVML query a process makes (nvidia-smi --query-gpu=name
#    --format=csv,noheader), interleaved run by run in one go; target check <= 1.2x of it.
# 2. model with a live GPU (bench/model.sh with MODEL_LIVE=1: the GPUs from the driver) and with
#    --gpu-memory; target live <= 25 ms.
# 3. cold: the page cache dropped (sync; echo 3 > /proc/sys/vm/drop_caches, as root) before each
#    run of check, nvidia-smi's query and torch's collect_env alike; target check <= 2x nvidia-smi.
#    Needs root; without it the cold rows say so. The driver stays loaded (persistence mode as the
#    machine has it): a dropped page cache is a node just booted, not a driver just installed.
# 4. bench/all.sh: every side-by-side row of this machine in one table.
# Writes OUTDIR/perf.txt (the table) and the raw per-run milliseconds beside it.
# COLD_RUNS: cold runs per tool (default 7; 0 skips the cold rows).
set -u
cd_bin=$(realpath "${1:?usage: perf.sh CUDA_DOCTOR OUTDIR [RUNS]}")
out=${2:?usage: perf.sh CUDA_DOCTOR OUTDIR [RUNS]}
runs=${3:-21}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
py=${PYTHON:-python3}
command -v nvidia-smi >/dev/null || { echo "perf.sh: no nvidia-smi here; this script is for a GPU machine (make bench elsewhere)" >&2; exit 2; }
mkdir -p "$out"
timeit=$out/timeit
cc -O2 -o "$timeit" "$repo/bench/timeit.c" 2>/dev/null || gcc -O2 -o "$timeit" "$repo/bench/timeit.c"
smi=(nvidia-smi --query-gpu=name '--format=csv,noheader')
report=$out/perf.txt
: >"$report"
say() { echo "$*" | tee -a "$report"; }

say "perf.sh: $cd_bin ($("$cd_bin" --version)) on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
say "GPUs: $(nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader | sort | uniq -c | tr '\n' ';')"
say "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) ($(nproc) cores)"

# one_ms CMD...: the wall ms of one run (output to /dev/null)
one_ms() { "$timeit" 1 "$@" | awk '{ print $1 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", v[int((NR + 1) / 2)] }'; }

# 1. warm, interleaved: each pair of runs sees the same machine
for ((i = 0; i < 3; i++)); do "$cd_bin" check >/dev/null 2>&1; "${smi[@]}" >/dev/null 2>&1; done
: >"$out/warm.check.ms"
: >"$out/warm.smi.ms"
for ((i = 0; i < runs; i++)); do
	one_ms "$cd_bin" check >>"$out/warm.check.ms"
	one_ms "${smi[@]}" >>"$out/warm.smi.ms"
done
wc=$(median <"$out/warm.check.ms")
ws=$(median <"$out/warm.smi.ms")
say ""
say "warm, $runs interleaved runs each (median):"
say "  cuda-doctor check                               $wc ms"
say "  nvidia-smi --query-gpu=name --format=csv,noheader $ws ms"
awk -v c="$wc" -v s="$ws" 'BEGIN { printf "  ratio check / query: %.2fx (target <= 1.2x: %s)\n", c / s, (c <= 1.2 * s ? "met" : "MISSED") }' |
	tee -a "$report"
"$cd_bin" check --json >"$out/check.json" 2>&1

# 2. model, live GPU and given memory
say ""
say "model (bench/model.sh, Llama-2-70B's 30 shards):"
MODEL_LIVE=1 RUNS=$runs bash "$repo/bench/model.sh" "$cd_bin" >"$out/model.live.txt" 2>&1
RUNS=$runs bash "$repo/bench/model.sh" "$cd_bin" >"$out/model.given.txt" 2>&1
say "  live GPU:     $(sed -n 's/^cuda-doctor model .*: \([0-9.]*\) ms .*/\1/p' "$out/model.live.txt") ms ($(grep '^target' "$out/model.live.txt"))"
say "  --gpu-memory: $(sed -n 's/^cuda-doctor model .*: \([0-9.]*\) ms .*/\1/p' "$out/model.given.txt") ms"

# 3. cold: the page cache dropped before every run of every tool
say ""
if [ "${COLD_RUNS:-7}" -eq 0 ]; then
	say "cold: skipped (COLD_RUNS=0)"
elif [ "$(id -u)" -ne 0 ]; then
	say "cold: not measured (dropping the page cache needs root: sudo $0 ...)"
else
	cold_runs=${COLD_RUNS:-7}
	cold() { # NAME CMD...: median of cold_runs cold runs into OUTDIR/cold.NAME.ms
		local name=$1 i
		shift
		: >"$out/cold.$name.ms"
		for ((i = 0; i < cold_runs; i++)); do
			sync
			echo 3 >/proc/sys/vm/drop_caches
			one_ms "$@" >>"$out/cold.$name.ms"
		done
		median <"$out/cold.$name.ms"
	}
	cc_=$(cold check "$cd_bin" check)
	cs=$(cold smi "${smi[@]}")
	say "cold (page cache dropped before each run, $cold_runs runs, median):"
	say "  cuda-doctor check                                 $cc_ ms"
	say "  nvidia-smi --query-gpu=name --format=csv,noheader $cs ms"
	if "$py" -c 'import torch' 2>/dev/null; then
		cold_runs=3
		say "  python3 -m torch.utils.collect_env                $(cold ce "$py" -m torch.utils.collect_env) ms"
	else
		say "  python3 -m torch.utils.collect_env                absent (no torch for $py)"
	fi
	awk -v c="$cc_" -v s="$cs" 'BEGIN { printf "  ratio check / query, cold: %.2fx (target <= 2x: %s)\n", c / s, (c <= 2 * s ? "met" : "MISSED") }' |
		tee -a "$report"
	# where a cold check spends its time: the system calls, by wall time
	if command -v strace >/dev/null; then
		sync
		echo 3 >/proc/sys/vm/drop_caches
		strace -f -tt -T -o "$out/cold.check.strace" "$cd_bin" check >/dev/null 2>&1
		say "  cold check's strace: $out/cold.check.strace ($(wc -l <"$out/cold.check.strace") calls)"
	fi
fi

# 4. every side-by-side row of this machine
say ""
TIMEIT=$timeit PYTHON=$py bash "$repo/bench/all.sh" "$cd_bin" 15 >"$out/all.txt" 2>&1
sed -n '/^task /,$p' "$out/all.txt" | tee -a "$report"
echo "perf.sh: $report"
