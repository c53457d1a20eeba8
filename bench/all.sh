#!/usr/bin/env bash
# bench/all.sh (make bench): every side-by-side benchmark of bench/ in one go, then one table:
# each cuda-doctor command beside the anchor people use for the same job today, as the ratio
# cuda-doctor / anchor (below 1: cuda-doctor is faster). An anchor this machine lacks is
# printed "absent" with the reason. docs/performance.md keeps the latest table.
#   bench/all.sh [CUDA_DOCTOR] [RUNS]    BENCH_LOG_MIB: explain's log (default 256 MiB)
#   BENCH_LDD_FILE: the library for ldd (default: torch's libtorch_cuda.so, else libhs.so)
# The whole-program timings are medians of RUNS runs (bench/timeit.c, wall time, output to
# /dev/null); explain's and model's come from bench/explain.sh and bench/model.sh.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd_bin=$(realpath "${1:-$here/../build/cuda-doctor}")
runs=${2:-15}
timeit=${TIMEIT:-$here/../build/bench/timeit}
[ -x "$timeit" ] || { mkdir -p "$(dirname "$timeit")"; cc -O2 -o "$timeit" "$here/timeit.c" || exit 1; }
py=${PYTHON:-python3}
tmp=$(mktemp -d /tmp/cd-bench-all.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows

# med CMD...: the median wall ms of RUNS runs (empty when the command is absent);
# med_n N CMD...: of N runs (the slow anchors)
med_n() {
	local n=$1
	shift
	command -v "$1" >/dev/null 2>&1 || return 1
	"$timeit" "$n" "$@" | awk '{ print $1 }'
}
med() { med_n "$runs" "$@"; }
# pair TASK OURS_MS ANCHOR_LABEL ANCHOR_MS|absent-reason
pair() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$rows"; }
has_torch() { "$py" -c 'import torch' 2>/dev/null; }
has_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }

echo "bench/all.sh: $cd_bin on $(uname -n) ($(nproc) cores, $(uname -r)), $(date -u +%Y-%m-%dT%H:%MZ), $runs runs"
echo

# check: the smallest NVML query, the full nvidia-smi report, torch's collect_env
check=$(med "$cd_bin" check)
if has_gpu; then
	pair check "$check" "nvidia-smi --query-gpu=name" "$(med nvidia-smi --query-gpu=name --format=csv,noheader)"
	pair check "$check" "nvidia-smi -q" "$(med nvidia-smi -q)"
else
	pair check "$check" "nvidia-smi --query-gpu=name" "absent (no nvidia-smi or no GPU)"
	pair check "$check" "nvidia-smi -q" "absent (no nvidia-smi or no GPU)"
fi
if has_torch; then
	pair check "$check" "torch.utils.collect_env" "$(med_n 3 "$py" -m torch.utils.collect_env)"
	pair jit "$(med "$cd_bin" jit)" "import torch.utils.cpp_extension" \
		"$(med_n 5 "$py" -c 'import torch.utils.cpp_extension')"
else
	pair check "$check" "torch.utils.collect_env" "absent (no torch for $py)"
	pair jit "$(med "$cd_bin" jit)" "import torch.utils.cpp_extension" "absent (no torch for $py)"
fi

# ldd: glibc's ldd (dependencies only) and cuobjdump (the device code listing)
lib=${BENCH_LDD_FILE:-}
if [ -z "$lib" ] && has_torch; then
	lib=$("$py" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so"))')
fi
[ -n "$lib" ] && [ -f "$lib" ] || lib=$(ldconfig -p | awk '/libhs\.so\.5 .*x86-64/ { print $NF; exit }')
if [ -n "$lib" ] && [ -f "$lib" ]; then
	pair "ldd $(basename "$lib")" "$(med "$cd_bin" ldd --no-archs "$lib")" "ldd (glibc)" "$(med ldd "$lib")"
	if command -v cuobjdump >/dev/null; then
		pair "ldd --json $(basename "$lib")" "$(med "$cd_bin" ldd --json "$lib")" \
			"cuobjdump --list-elf --list-ptx" "$(med cuobjdump --list-elf --list-ptx "$lib")"
	else
		pair "ldd --json $(basename "$lib")" "$(med "$cd_bin" ldd --json "$lib")" \
			"cuobjdump --list-elf --list-ptx" "absent (no CUDA toolkit)"
	fi
fi

# explain: throughput beside grep -E -f and rg -f with the same patterns
echo "== bench/explain.sh"
"$here/explain.sh" "$cd_bin" "${BENCH_LOG_MIB:-256}" | tee "$tmp/explain.out"
secs() { awk -v n="$1" '$1 == n && $3 == "s" { print $2 * 1000; exit }' "$tmp/explain.out"; }
pair "explain (${BENCH_LOG_MIB:-256} MiB log)" "$(secs explain)" "grep -E -f" "$(secs grep)"
if command -v rg >/dev/null; then
	pair "explain (${BENCH_LOG_MIB:-256} MiB log)" "$(secs explain)" "rg -f" "$(secs rg)"
else
	pair "explain (${BENCH_LOG_MIB:-256} MiB log)" "$(secs explain)" "rg -f" "absent (no ripgrep)"
fi

# model: Llama-2-70B's 30 shards beside Python reading the same headers
echo "== bench/model.sh"
"$here/model.sh" "$cd_bin" | tee "$tmp/model.out"
m_cd=$(sed -n 's/^cuda-doctor model .*: \([0-9.]*\) ms .*/\1/p' "$tmp/model.out")
m_py=$(sed -n 's/^ *\([0-9.]*\) ms as a process.*/\1/p' "$tmp/model.out")
pair "model 70B (--gpu-memory)" "$m_cd" "python3 json+struct headers" "$m_py"

# probe: torch doing the same steps (a GPU and torch needed)
if has_gpu && has_torch; then
	echo "== bench/probe.sh"
	"$here/probe.sh" "$cd_bin" 5 | tee "$tmp/probe.out"
	p_cd=$(sed -n 's/^cuda-doctor probe --quick  *\([0-9.]*\) ms.*/\1/p' "$tmp/probe.out")
	p_py=$(sed -n 's/^python3 same steps with torch  *\([0-9.]*\) ms.*/\1/p' "$tmp/probe.out")
	pair "probe --quick" "$p_cd" "torch, the same steps" "$p_py"
else
	pair "probe --quick" "-" "torch, the same steps" "absent (needs a GPU and torch)"
fi

echo
printf '%-30s %12s  %-34s %14s %10s\n' task cuda-doctor anchor anchor ratio
while IFS=$'\t' read -r task ours alabel anchor; do
	case $anchor in
	absent*) printf '%-30s %12s  %-34s %s\n' "$task" "${ours:+$ours ms}" "$alabel" "$anchor" ;;
	*) awk -v t="$task" -v o="$ours" -v l="$alabel" -v a="$anchor" 'BEGIN {
		if (o == "" || a == "" || a == 0) { printf "%-30s %12s  %-34s %14s %10s\n", t, o, l, a, "?"; exit }
		printf "%-30s %9.1f ms  %-34s %11.1f ms %9.2fx\n", t, o, l, a, o / a }' ;;
	esac
done <"$rows"
echo "ratio: cuda-doctor's time / the anchor's (below 1: cuda-doctor is faster)"
exit 0
