#!/usr/bin/env bash
# bench/dockerfile.sh: time `cuda-doctor dockerfile` on real Dockerfiles and
# Compose files, beside hadolint when it is installed, in one run.
#   bench/dockerfile.sh [-b CUDA_DOCTOR] [-n RUNS] [FILE...]
# Default files: tests/e2e/dockerfiles (the real files the tests assert) and
# tests/e2e/dockerfile_cases. Prints the median and minimum wall time of RUNS
# runs (default 21) of the whole process (read, parse, lint, render), text and
# JSON, the peak RSS, and hadolint's median on the Dockerfiles ("absent" when
# it is not installed). Target: a Dockerfile lint <= 5 ms; the last line says
# whether every file met it, and the exit status is 1 when one did not.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CD=$here/../build/cuda-doctor
RUNS=21
TARGET_MS=5
while getopts "b:n:" o; do
	case $o in
	b) CD=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	*) sed -n '2,10p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -x "$CD" ] || { echo "bench/dockerfile.sh: $CD is not built (make)" >&2; exit 2; }
timeit=${TIMEIT:-$here/../build/bench/timeit}
[ -x "$timeit" ] || { mkdir -p "$(dirname "$timeit")"; cc -O2 -o "$timeit" "$here/timeit.c" || exit 2; }
if [ $# -eq 0 ]; then
	set -- "$here"/../tests/e2e/dockerfiles/* "$here"/../tests/e2e/dockerfile_cases/*
fi
HADOLINT=${HADOLINT:-$(command -v hadolint || true)}

echo "bench/dockerfile.sh on $(uname -n) ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)), $(date -u +%Y-%m-%dT%H:%MZ), $RUNS runs each"
echo "hadolint: ${HADOLINT:-absent (not installed: no side-by-side figure)}"
printf '%-46s %7s %12s %12s %8s %12s\n' file bytes "text ms" "json ms" "rss MB" hadolint
worst=0 worst_file='' n=0 sum=0
for f in "$@"; do
	case ${f##*/} in EXPECTED.tsv | SOURCES.tsv) continue ;; esac
	[ -f "$f" ] || { echo "bench/dockerfile.sh: $f: no such file" >&2; continue; }
	cat "$f" >/dev/null # warm the page cache for both tools
	read -r med min rss _ < <("$timeit" "$RUNS" "$CD" --no-color dockerfile "$f")
	read -r jmed _ _ _ < <("$timeit" "$RUNS" "$CD" --format json dockerfile "$f")
	theirs=-
	case $f in
	*.yml | *.yaml) theirs="(Compose)" ;;
	*) [ -n "$HADOLINT" ] && theirs=$("$timeit" "$RUNS" "$HADOLINT" --no-fail "$f" | awk '{ printf "%.2f", $1 }') ;;
	esac
	printf '%-46s %7s %7.2f (%4.2f) %12.2f %8.1f %12s\n' "${f##*/}" "$(wc -c <"$f")" "$med" "$min" \
		"$jmed" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$theirs"
	n=$((n + 1))
	sum=$(awk -v a="$sum" -v b="$med" 'BEGIN { print a + b }')
	if awk -v a="$med" -v b="$worst" 'BEGIN { exit !(a > b) }'; then worst=$med worst_file=${f##*/}; fi
done
[ "$n" -gt 0 ] || { echo "bench/dockerfile.sh: no file" >&2; exit 2; }
awk -v s="$sum" -v n="$n" -v w="$worst" -v f="$worst_file" -v t="$TARGET_MS" 'BEGIN {
	printf "\n%d files: mean of medians %.2f ms, slowest %.2f ms (%s); target <= %d ms: %s\n",
		n, s / n, w, f, t, (w <= t ? "met" : "NOT met")
	exit !(w <= t) }'
