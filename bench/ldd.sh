#!/usr/bin/env bash
# bench/ldd.sh: time `cuda-doctor ldd` beside the tools people use today.
#   bench/ldd.sh [-b CUDA_DOCTOR] [-n RUNS] FILE...
# For each FILE: dependency resolution (cuda-doctor ldd --no-archs vs glibc
# ldd, which runs the loader) and the whole command with the CUDA arch listing
# (cuda-doctor ldd --json vs cuobjdump --list-elf --list-ptx, when cuobjdump is
# installed). Prints the median wall time of RUNS runs (default 11) and the ratio.
# Example: bench/ldd.sh "$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')"/lib/libtorch_cuda.so
set -euo pipefail

CD=build/cuda-doctor
RUNS=11
while getopts "b:n:" o; do
	case $o in
	b) CD=$OPTARG ;;
	n) RUNS=$OPTARG ;;
	*) sed -n '2,9p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,9p' "$0"; exit 2; }
[ -x "$CD" ] || { echo "bench/ldd.sh: $CD is not built (make)" >&2; exit 2; }
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -n "$CUOBJDUMP" ] || [ ! -x /usr/local/cuda/bin/cuobjdump ] || CUOBJDUMP=/usr/local/cuda/bin/cuobjdump

# usec: the time in microseconds, without a fork (bash 5 $EPOCHREALTIME).
usec() {
	local t=${EPOCHREALTIME/[.,]/}
	echo "${t:-$(($(date +%s%N) / 1000))}"
}

# median_ms CMD...: median wall time in milliseconds (3 decimals) of RUNS runs.
median_ms() {
	local i t0 t1 times=()
	for ((i = 0; i < RUNS; i++)); do
		t0=$(usec)
		"$@" >/dev/null 2>&1 || true
		t1=$(usec)
		times+=($((t1 - t0)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", a[int((NR + 1) / 2)] / 1000 }'
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.1fx", b / a; else print "-" }'
}

printf '%-44s %-22s %10s %10s %8s\n' file task cuda-doctor other ratio
for f in "$@"; do
	[ -f "$f" ] || { echo "bench/ldd.sh: $f: no such file" >&2; continue; }
	cat "$f" >/dev/null # warm the page cache: both tools then read from memory
	name=$(basename "$f")
	ours=$(median_ms "$CD" ldd --no-archs "$f")
	theirs=$(median_ms ldd "$f")
	printf '%-44s %-22s %8s ms %7s ms %8s\n' "$name" "resolve vs ldd" "$ours" "$theirs" \
		"$(ratio "$ours" "$theirs")"
	ours=$(median_ms "$CD" ldd --json "$f")
	if [ -n "$CUOBJDUMP" ]; then
		theirs=$(median_ms "$CUOBJDUMP" --list-elf --list-ptx "$f")
		printf '%-44s %-22s %8s ms %7s ms %8s\n' "$name" "archs vs cuobjdump" "$ours" \
			"$theirs" "$(ratio "$ours" "$theirs")"
	else
		printf '%-44s %-22s %8s ms %10s %8s\n' "$name" "archs (json, all)" "$ours" \
			"(no cuobjdump)" "-"
	fi
	"$CD" ldd --json "$f" 2>/dev/null |
		jq -r '"  sass: \(.archs.sass | join(" "))   ptx: \(.archs.ptx | join(" "))   entries: \(.fatbin.entries // 0)"' 2>/dev/null || true
	/usr/bin/time -f "  peak RSS of cuda-doctor ldd --json: %M KB" "$CD" ldd --json "$f" 2>&1 >/dev/null | tail -1 || true
done
