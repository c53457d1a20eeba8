#!/usr/bin/env bash
# bench/jit.sh: time `cuda-doctor jit` beside what people run today to learn
# whether an extension will build: importing torch.utils.cpp_extension (which
# resolves CUDA_HOME) and DeepSpeed's ds_report. Absent tools are reported as
# such. Target: jit (without --compile) <= 30 ms wall.
# Usage: bench/jit.sh [path/to/cuda-doctor] [runs]
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
absent() { printf '%-48s %10s\n' "$1" "absent ($2)"; }
ratio() { # label theirs ours
	awk -v a="$2" -v b="$3" -v l="$1" 'BEGIN{ if (b > 0) printf "%-48s %.0fx\n", l, a/b }'
}

echo "bench/jit.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
row "cuda-doctor jit" "$runs" "$cd_bin" jit; ours=$LAST
row "cuda-doctor jit --json" "$runs" "$cd_bin" jit --json
py=${PYTHON:-python3}
if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import torch.utils.cpp_extension' 2>/dev/null; then
	row "python3 -c 'import torch.utils.cpp_extension'" 5 "$py" -c 'import torch.utils.cpp_extension'
	ext=$LAST
else
	ext=
	absent "python3 -c 'import torch.utils.cpp_extension'" "no torch for $py"
fi
if command -v ds_report >/dev/null 2>&1; then
	row "ds_report" 3 ds_report
	ds=$LAST
else
	ds=
	absent "ds_report" "DeepSpeed not installed"
fi
echo
[ -n "$ext" ] && ratio "import torch.utils.cpp_extension / jit:" "$ext" "$ours"
[ -n "$ds" ] && ratio "ds_report / jit:" "$ds" "$ours"
awk -v b="$ours" 'BEGIN{ printf "cuda-doctor jit target (<= 30 ms): %s\n", (b <= 30 ? "met" : "MISSED") }'
exit 0
