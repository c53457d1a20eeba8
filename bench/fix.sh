#!/usr/bin/env bash
# bench/fix.sh: time `cuda-doctor fix` against `cuda-doctor check` on the same
# machine (fix probes what check probes, then plans and judges every torch
# variant), and beside what people run today to pick a torch wheel: uv's
# --torch-backend=auto resolution (a dry run), when uv is installed.
# Target (H200 box): fix <= 50 ms wall where check is about 30 ms.
# Usage: bench/fix.sh [path/to/cuda-doctor] [runs]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd_bin=${1:-$here/../build/cuda-doctor}
runs=${2:-15}
timeit=${TIMEIT:-$here/../build/bench/timeit}
[ -x "$timeit" ] || { mkdir -p "$(dirname "$timeit")"; cc -O2 -o "$timeit" "$here/timeit.c" || exit 1; }

LAST=
row() { # name runs cmd...
	local name=$1 n=$2 med min rss st
	shift 2
	read -r med min rss st < <("$timeit" "$n" "$@")
	printf '%-48s %8.1f ms (min %7.1f)  rss %6.1f MB  exit %s\n' "$name" "$med" "$min" \
		"$(awk -v r="$rss" 'BEGIN{print r/1024}')" "$st"
	LAST=$med
}

echo "bench/fix.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
row "cuda-doctor check" "$runs" "$cd_bin" check; check=$LAST
row "cuda-doctor fix" "$runs" "$cd_bin" fix; fix=$LAST
row "cuda-doctor fix --json" "$runs" "$cd_bin" fix --json
row "cuda-doctor fix --torch 2.9" "$runs" "$cd_bin" fix --torch 2.9
row "cuda-doctor fix --jit" "$runs" "$cd_bin" fix --jit
if command -v uv >/dev/null 2>&1; then
	row "uv pip install --dry-run --torch-backend=auto torch" 3 \
		uv pip install --dry-run --torch-backend=auto --python "${PYTHON:-python3}" torch
else
	printf '%-48s %10s\n' "uv pip install --dry-run --torch-backend=auto" "absent (no uv)"
fi
echo
awk -v a="$fix" -v b="$check" 'BEGIN{ if (b > 0) printf "fix - check:                                     %.1f ms\n", a - b }'
awk -v a="$fix" 'BEGIN{ printf "target fix <= 50 ms:                              %s\n", a <= 50 ? "met" : "MISSED" }'
exit 0
