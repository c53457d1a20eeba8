#!/usr/bin/env bash
# bench/check.sh: time `cuda-doctor check` beside the tools people use today
# for the same job, in one run, and print the ratios.
# Usage: bench/check.sh [path/to/cuda-doctor] [runs]
# Targets (H200 box): check <= 50 ms wall, peak RSS <= 16 MB.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd_bin=${1:-$here/../build/cuda-doctor}
runs=${2:-15}
timeit=${TIMEIT:-$here/../build/bench/timeit}
[ -x "$timeit" ] || { mkdir -p "$(dirname "$timeit")"; cc -O2 -o "$timeit" "$here/timeit.c" || exit 1; }

row() { # name runs cmd...
	local name=$1 n=$2; shift 2
	if ! command -v "$1" >/dev/null 2>&1; then
		printf '%-44s %10s\n' "$name" "absent"
		return 1
	fi
	read -r med min rss st < <("$timeit" "$n" "$@")
	printf '%-44s %8.1f ms (min %7.1f)  rss %6.1f MB  exit %s\n' "$name" "$med" "$min" \
		"$(echo "$rss" | awk '{print $1/1024}')" "$st"
	LAST=$med
	return 0
}

echo "bench/check.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
row "cuda-doctor check" "$runs" "$cd_bin" check; ours=$LAST
row "cuda-doctor check --json" "$runs" "$cd_bin" check --json
if row "nvidia-smi -q" 5 nvidia-smi -q; then smi=$LAST; else smi=; fi
py=${PYTHON:-python3}
if "$py" -c 'import torch' 2>/dev/null; then
	row "python3 -m torch.utils.collect_env" 3 "$py" -m torch.utils.collect_env; ce=$LAST
else
	ce=
	printf '%-44s %10s\n' "python3 -m torch.utils.collect_env" "absent (no torch)"
fi
echo
[ -n "$smi" ] && awk -v a="$smi" -v b="$ours" 'BEGIN{printf "nvidia-smi -q / cuda-doctor check:            %.1fx\n", a/b}'
[ -n "$ce" ] && awk -v a="$ce" -v b="$ours" 'BEGIN{printf "collect_env / cuda-doctor check:              %.0fx\n", a/b}'
exit 0
