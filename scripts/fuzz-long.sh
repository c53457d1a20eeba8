#!/usr/bin/env bash
# The long fuzz run of docs/fuzzing.md: each libFuzzer target of tests/fuzz for SECONDS, one
# after the other (the CI time-box is `make fuzz`, 8 s a target; this is the record beside it).
#   scripts/fuzz-long.sh [-s SECONDS] [-o OUTDIR] [TARGET...]    (after `make fuzz-build`)
# Each target's working corpus starts from its seeds (tests/fuzz/corpus/NAME) and lives in
# OUTDIR/corpus/NAME; its log in OUTDIR/NAME.log; one row per target is appended to
# OUTDIR/summary.tsv: target, seconds, executions, exec/s, cov, ft, corpus, crashes, wall s, cpu s.
# Crash inputs land in OUTDIR/crash/NAME/. Exit status 1 when any target found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=600
out=build/fuzz/long
while getopts 's:o:' opt; do
	case $opt in
	s) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
bin=build/fuzz
if [ $# -eq 0 ]; then
	mapfile -t all < <(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)
	set -- "${all[@]}"
fi
mkdir -p "$out"
[ -f "$out/summary.tsv" ] ||
	printf 'target\tseconds\texecs\texec_per_s\tcov\tft\tcorpus\tcrashes\twall_s\tcpu_s\n' >"$out/summary.tsv"
status=0
for name in "$@"; do
	exe=$bin/fuzz_$name
	[ -x "$exe" ] || { echo "fuzz-long: $exe missing (make fuzz-build)" >&2; exit 2; }
	mkdir -p "$out/corpus/$name" "$out/crash/$name"
	seeds=tests/fuzz/corpus/$name
	[ -d "$seeds" ] || seeds=
	echo "fuzz-long: $name for ${secs}s"
	t0=$(date +%s.%N)
	rc=0
	/usr/bin/time -f '%U %S' -o "$out/$name.time" \
		"$exe" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$out/crash/$name/" "$out/corpus/$name" $seeds \
		>"$out/$name.log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
	cpu=$(awk '{ printf "%.0f", $1 + $2 }' "$out/$name.time")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$name.log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$name.log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$out/$name.log" | grep -E ' cov: ' | tail -1 || true)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<<"$last")
	crashes=$(find "$out/crash/$name" -type f | wc -l)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$secs" "${execs:-?}" "${speed:-?}" \
		"${cov:-?}" "${ft:-?}" "${corp:-?}" "$crashes" "$wall" "$cpu" >>"$out/summary.tsv"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		echo "fuzz-long: $name exit $rc, $crashes crash inputs in $out/crash/$name" >&2
		tail -40 "$out/$name.log" >&2
		status=1
	fi
done
column -t -s "$(printf '\t')" "$out/summary.tsv"
exit $status
