#!/usr/bin/env bash
# bench/diff.sh: `cuda-doctor diff` of 10,000 and 100,000 generated node
# reports (bench/gen_reports.c: 8-GPU nodes from a real report, with other
# drivers, NCCL versions, missing GPUs, NCCL_* variables, ECC errors), from
# files and from a stream, beside `jq -s` doing the same grouping.
# Usage: bench/diff.sh [path/to/cuda-doctor] [sizes...]   (make bench-diff)
# Targets (issue 13, on the 2-core development machine): 10,000 reports <= 1 s,
# 100,000 <= 10 s, peak memory set by the distinct values, not the reports.
# Needs ~4 GB of free disk for 100,000 files (removed at the end).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd_bin=${1:-$here/../build/cuda-doctor}
shift || true
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000)
gen=${GEN:-$here/../build/bench/gen_reports}
[ -x "$gen" ] || { echo "bench/diff.sh: build $gen first (make bench-diff)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/cd-bench-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The template: the golden report of torch's wheel layout on the fake H200,
# its fixture paths made plain.
sed -e 's|@FAKES@|/usr/lib/x86_64-linux-gnu|g' -e 's|@ROOT@/torch|/|g' -e 's|@ROOT@||g' \
	"$here/../tests/e2e/golden/check/torch-h200.json" >"$work/template.json"

# measure NAME CMD...: wall seconds (best of 3) and peak RSS of one run.
measure() {
	local name=$1 best=999999 t0 t1 rss
	shift
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t1=$(date +%s%N)
		[ $(((t1 - t0) / 1000000)) -lt "$best" ] && best=$(((t1 - t0) / 1000000))
	done
	/usr/bin/time -o "$work/rss" -f '%M' "$@" >/dev/null 2>&1
	rss=$(tail -1 "$work/rss")
	printf '%-58s %7.2f s  peak %7.1f MB\n' "$name" "$(echo "$best" | awk '{print $1/1000}')" \
		"$(echo "$rss" | awk '{print $1/1024}')"
}

jq_group='group_by(.fleet.fingerprint) | map({fingerprint: .[0].fleet.fingerprint,
	nodes: length, hosts: map(.host.hostname)}) | sort_by(-.nodes) | length'

echo "bench/diff.sh on $(uname -n) ($(nproc) cores), $(date -u +%Y-%m-%dT%H:%MZ)"
for n in "${sizes[@]}"; do
	mkdir -p "$work/r$n"
	"$gen" "$work/template.json" "$n" "$work/r$n" || exit 1
	"$gen" "$work/template.json" "$n" - >"$work/l$n.jsonl" || exit 1
	echo "$n reports: $(du -sh "$work/r$n" | cut -f1) of files, groups: $("$cd_bin" diff --json "$work/r$n" | jq -r 'select(.type=="summary") | .groups')"
	measure "cuda-doctor diff DIR ($n files)" "$cd_bin" diff "$work/r$n"
	measure "cuda-doctor diff - < JSON lines ($n)" sh -c "'$cd_bin' diff - <'$work/l$n.jsonl'"
	measure "cuda-doctor diff --html ($n)" "$cd_bin" diff --html "$work/h.html" "$work/r$n"
	if [ "$n" -le 10000 ]; then
		measure "cuda-doctor diff --verify DIR ($n, every report parsed)" "$cd_bin" diff --verify "$work/r$n"
		if command -v jq >/dev/null; then
			measure "jq -s group_by(.fleet.fingerprint) ($n files)" sh -c \
				"find '$work/r$n' -name '*.json' -print0 | xargs -0 cat | jq -s '$jq_group'"
		fi
	else
		echo "jq -s ($n files): not run, it holds every report in memory (~130 KB each at 10,000)"
	fi
	rm -rf "$work/r$n" "$work/l$n.jsonl"
done
