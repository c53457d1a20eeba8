#!/usr/bin/env bash
# Validate `cuda-doctor bundle` on a GPU machine (for the lead to run on the
# H200): a real bundle with nvidia-smi -q and a log, searched for this
# machine's own identifying values (every GPU's UUID and serial as nvidia-smi
# reports them, the host name, the user, $HOME) and for planted secrets; the
# timings of bench/bundle.sh (target: <= 1 s without nvidia-smi). Writes
# OUTDIR/bundle-validation.txt, keeps the bundle as OUTDIR/bundle.tar.gz, and
# exits 1 when a value leaked or the target was missed.
# Usage: scripts/hw/h200-bundle.sh CUDA_DOCTOR OUTDIR
set -u
cd_bin=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
v="$out/bundle-validation.txt"
work=$(mktemp -d /tmp/cd-hw-bundle.XXXXXX)
trap 'rm -rf "$work"' EXIT
: >"$v"
status=0

uuids=$(nvidia-smi --query-gpu=uuid --format=csv,noheader)
{
	echo "[rank0]: HF_TOKEN=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 on $(hostname) in $HOME"
	echo "pip install --index-url https://deploy:Sup3rS3cret@pypi.corp.example/simple torch"
	echo "CUDA_VISIBLE_DEVICES=$(paste -sd, - <<<"$uuids")"
	echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
} >"$work/train.log"
start=$(date +%s%N)
"$cd_bin" bundle -o "$work/b.tar.gz" --log "$work/train.log" >"$out/bundle-run.txt" 2>&1
echo "bundle with nvidia-smi -q and one log: exit $?, $((($(date +%s%N) - start) / 1000000)) ms" >>"$v"
cp "$work/b.tar.gz" "$out/bundle.tar.gz"
mkdir -p "$work/x"
gzip -dc "$work/b.tar.gz" >"$work/b.tar" && tar -xf "$work/b.tar" -C "$work/x"

values=(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 Sup3rS3cret "$(hostname)" "$(id -un)")
[ "$HOME" != / ] && values+=("$HOME")
while read -r u; do
	[ -n "$u" ] && values+=("$u" "${u#GPU-}")
done <<<"$uuids"
while read -r s; do
	case $s in *N/A* | "" | 0*) ;; *) values+=("$s") ;; esac
done < <(nvidia-smi --query-gpu=serial --format=csv,noheader)
for s in "${values[@]}"; do
	[ "${#s}" -ge 3 ] || continue
	case $s in root | ubuntu | localhost) continue ;; esac
	if grep -a -q -F -- "$s" "$work/b.tar" || grep -a -r -q -F -- "$s" "$work/x"; then
		echo "LEAKED: $s" >>"$v"
		status=1
	fi
done
echo "values searched: ${#values[@]}" >>"$v"
B="$work/x/cuda-doctor-bundle"
echo "nvidia-smi-q.txt lines: $(grep -c . "$B/nvidia-smi-q.txt")" >>"$v"
grep -E 'Serial Number|GPU UUID' "$B/nvidia-smi-q.txt" | sort | uniq -c >>"$v"
awk -F'\t' 'NR > 3 && $3 > 0' "$B/ledger.tsv" >>"$v"

cc -O2 -o "$work/timeit" "$here/../../bench/timeit.c" 2>/dev/null ||
	gcc -O2 -o "$work/timeit" "$here/../../bench/timeit.c"
TIMEIT="$work/timeit" bash "$here/../../bench/bundle.sh" "$cd_bin" 15 >"$out/bench-bundle.txt" 2>&1
grep -q 'target <= 1000 ms): ok' "$out/bench-bundle.txt" || status=1
cat "$out/bench-bundle.txt" >>"$v"
echo "result: $([ $status -eq 0 ] && echo PASS || echo FAIL)" >>"$v"
cat "$v"
exit $status
