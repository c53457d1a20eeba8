#!/usr/bin/env bash
# bench/bundle.sh: time `cuda-doctor bundle` beside the tool people use for the
# same job today (nvidia-bug-report.sh, which redacts nothing), in one run.
# Rows: bundle without nvidia-smi on PATH (the target: <= 1 s), bundle with
# nvidia-smi when this machine has one, bundle with a 100 MB training log
# (its first and last 4 MiB are kept), and nvidia-bug-report.sh when present.
# Usage: bench/bundle.sh [path/to/cuda-doctor] [runs]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd_bin=$(cd "$(dirname "${1:-$here/../build/cuda-doctor}")" && pwd)/$(basename "${1:-cuda-doctor}")
runs=${2:-9}
timeit=${TIMEIT:-$here/../build/bench/timeit}
[ -x "$timeit" ] || { mkdir -p "$(dirname "$timeit")"; cc -O2 -o "$timeit" "$here/timeit.c" || exit 1; }
tmp=$(mktemp -d /tmp/cd-bench-bundle.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# PATH without nvidia-smi: the directories of PATH that do not hold one
nosmi=
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do [ -x "$d/nvidia-smi" ] || nosmi=${nosmi:+$nosmi:}$d; done

python3 - "$tmp/train.log" <<'PY'
import random, sys
rnd = random.Random(7)
with open(sys.argv[1], "w") as f:
    size, step = 0, 0
    while size < 100 << 20:
        step += 1
        r = rnd.random()
        if r < 0.1:
            line = "gpunode%02d:%d:%d [%d] NCCL INFO NET/Socket : Using [0]eth0:10.1.%d.%d<0>" % (
                step % 16, 4000 + step % 8, 4100, step % 8, step % 250, step % 200)
        elif r < 0.12:
            line = '  File "/home/alice/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1736'
        else:
            line = "[rank%d]: step %d loss=%.4f lr=%.2e grad_norm=%.3f tokens/s=%.1f" % (
                step % 8, step, rnd.random() * 3, rnd.random() / 1000, rnd.random(), rnd.random() * 1e5)
        f.write(line + "\n")
        size += len(line) + 1
    f.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
PY

row() { # name runs cmd...
	local name=$1 n=$2
	shift 2
	read -r med min rss st < <("$timeit" "$n" "$@")
	printf '%-48s %8.1f ms (min %7.1f)  rss %6.1f MB  exit %s\n' "$name" "$med" "$min" \
		"$(echo "$rss" | awk '{print $1/1024}')" "$st"
	LAST=$med
}

echo "bench/bundle.sh on $(uname -n), $(date -u +%Y-%m-%dT%H:%MZ)"
row "cuda-doctor bundle (no nvidia-smi)" "$runs" env PATH="$nosmi" "$cd_bin" bundle -o "$tmp/a.tar.gz"
plain=$LAST
if command -v nvidia-smi >/dev/null 2>&1; then
	row "cuda-doctor bundle (with nvidia-smi -q)" "$runs" "$cd_bin" bundle -o "$tmp/b.tar.gz"
else
	printf '%-48s %10s\n' "cuda-doctor bundle (with nvidia-smi -q)" "absent"
fi
row "cuda-doctor bundle --log (100 MB log)" "$runs" env PATH="$nosmi" "$cd_bin" bundle \
	-o "$tmp/c.tar.gz" --log "$tmp/train.log"
if command -v nvidia-bug-report.sh >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	row "nvidia-bug-report.sh (no redaction)" 1 nvidia-bug-report.sh --output-file "$tmp/nv.log"
else
	printf '%-48s %10s\n' "nvidia-bug-report.sh (no redaction)" "absent (or not root)"
fi
echo
awk -v a="$plain" 'BEGIN { printf "bundle without nvidia-smi: %.1f ms (target <= 1000 ms): %s\n", a, a <= 1000 ? "ok" : "SLOW" }'
ls -l "$tmp"/*.tar.gz | awk '{ printf "  %s %d bytes\n", $NF, $5 }'
exit 0
