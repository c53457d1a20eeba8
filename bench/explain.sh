#!/usr/bin/env bash
# Throughput of `cuda-doctor explain` on a 1 GiB log, beside grep -E and
# ripgrep given the same patterns (build/gen/patterns.ere, written by
# tools/sigc.c from data/signatures). The log is ordinary training output
# (step lines, tqdm progress bars with carriage returns, NCCL INFO lines,
# rank prefixes, ANSI colour) with real failure lines (the signatures' own
# samples) mixed in. Each tool runs once on one core (taskset) under
# /usr/bin/time -v, best of RUNS (default 3); prints wall and CPU GB/s, the ratios and peak
# RSS (rg is skipped when ripgrep is not installed). The log is deleted on exit.
# With BASE=OTHER_BINARY, the two binaries alternate RUNS times on the same log
# and their best CPU times are compared (on a noisy machine only interleaved
# runs compare). Then REAL_MIB (default 64; 0: none) of real text: see real().
# Usage: [RUNS=N] [BASE=BINARY] [REAL_MIB=N] bench/explain.sh [BINARY] [SIZE_MIB]
set -euo pipefail
cd "$(dirname "$0")/.."
CD="${1:-build/cuda-doctor}"
MIB="${2:-1024}"
RUNS="${RUNS:-3}"
PAT="$(dirname "$CD")/gen/patterns.ere"
[ -x "$CD" ] || { echo "bench: build $CD first (make)" >&2; exit 2; }
[ -f "$PAT" ] || PAT=build/gen/patterns.ere
[ -f "$PAT" ] || { echo "bench: $PAT missing (make)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/cd-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
LOG="$TMP/train.log"

# 16 MiB block of training output with a failure line every ~2000 lines,
# repeated to the requested size.
awk '/^sample: / { print substr($0, 9) }' data/signatures/*.txt >"$TMP/fail.txt"
python3 - "$TMP/fail.txt" "$TMP/block.log" <<'PY'
import random, sys
fails = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8", errors="replace")]
rnd = random.Random(7)
out, size, step, i = [], 0, 0, 0
while size < 16 << 20:
    r = rnd.random()
    if r < 0.0005:
        line = fails[i % len(fails)]; i += 1
    elif r < 0.05:
        line = "".join("\rEpoch %d:  %d%%|%s%s| %d/1000 [00:%02d<01:00, 9.87it/s, loss=%.4f]"
                       % (step // 1000, p, "#" * (p // 10), " " * (10 - p // 10), p * 10, p % 60,
                          rnd.random()) for p in range(0, 101, 10))
    elif r < 0.10:
        line = "node%02d:%d:%d [%d] NCCL INFO Channel %02d/32 : 0[%d] -> 1[%d] via P2P/CUMEM" % (
            rnd.randrange(16), 4000 + step % 97, 5000 + step % 89, step % 8, step % 32, step % 8, (step + 1) % 8)
    elif r < 0.15:
        line = "[rank%d]:[W%d] \x1b[33mwarning\x1b[0m: torch.utils.checkpoint: use_reentrant parameter should be passed explicitly" % (step % 8, step)
    else:
        step += 1
        line = "[default%d]:{'loss': %.4f, 'grad_norm': %.3f, 'learning_rate': %.3e, 'epoch': %.2f} step %d tokens/s %d" % (
            step % 8, rnd.random() * 3, rnd.random() * 2, 3e-5 * rnd.random(), step / 5000, step, 90000 + step % 9000)
    out.append(line)
    size += len(line) + 1
with open(sys.argv[2], "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
PY
: >"$LOG"
for _ in $(seq 1 $(((MIB + 15) / 16))); do cat "$TMP/block.log" >>"$LOG"; done
truncate -s $((MIB << 20)) "$LOG"
BYTES=$(stat -c %s "$LOG")
echo "bench: $((BYTES >> 20)) MiB log, $(wc -l <"$TMP/fail.txt") distinct failure lines mixed in, $(wc -l <"$PAT") patterns"
PIN=()
SECS_explain=0 SECS_grep=0 SECS_rg='' CPU_explain=0
command -v taskset >/dev/null && PIN=(taskset -c 0)

# run NAME CMD...: the best of RUNS runs (default 3): elapsed and CPU seconds, GB/s of each,
# peak RSS; sets SECS_<NAME> (wall) and CPU_<NAME> (user + system). On a machine busy with
# other work the wall time counts the waits for the core too; the CPU time is the cost of the
# scan itself.
run() {
	local name=$1 out="$TMP/$1.time" k wall rss secs cpu best_s=0 best_c=0 best_r=0
	shift
	for ((k = 0; k < RUNS; k++)); do
		cat "$LOG" >/dev/null # same page-cache state for every tool
		/usr/bin/time -v -o "$out" "${PIN[@]}" "$@" >"$TMP/$name.out" 2>/dev/null || true
		wall=$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$out")
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$out")
		cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s + 0 }' "$out")
		secs=$(awk -v t="$wall" 'BEGIN { n = split(t, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }')
		if [ "$k" -eq 0 ] || awk -v a="$secs" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then
			best_s=$secs
			best_r=$rss
		fi
		if [ "$k" -eq 0 ] || awk -v a="$cpu" -v b="$best_c" 'BEGIN { exit !(a < b) }'; then
			best_c=$cpu
		fi
	done
	printf '%-8s %7.2f s %6.2f GB/s   cpu %7.2f s %6.2f GB/s   peak RSS %6.1f MiB\n' "$name" "$best_s" \
		"$(awk -v b="$BYTES" -v s="$best_s" 'BEGIN { print (s > 0 ? b / s / 1e9 : 0) }')" "$best_c" \
		"$(awk -v b="$BYTES" -v s="$best_c" 'BEGIN { print (s > 0 ? b / s / 1e9 : 0) }')" \
		"$(awk -v k="$best_r" 'BEGIN { print k / 1024 }')"
	printf -v "SECS_$name" '%s' "$best_s"
	printf -v "CPU_$name" '%s' "$best_c"
}

run explain "$CD" --json explain --no-env "$LOG"
run grep grep -E -c -f "$PAT" "$LOG"
if command -v rg >/dev/null; then
	# Rust's regex syntax escapes ']' and '[' inside a bracket expression
	sed 's/\[^] \(	[^[]*\)\[]/[^\\]\\[ \1]/g' "$PAT" >"$TMP/patterns.rg"
	run rg rg -c -j1 --no-mmap -f "$TMP/patterns.rg" "$LOG"
fi
echo "matching lines: explain $(jq .summary.matched_lines "$TMP/explain.out"), grep $(cat "$TMP/grep.out"), rg $(cat "$TMP/rg.out" 2>/dev/null || echo -)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
echo "explain is $(ratio "$SECS_grep" "$SECS_explain") faster than grep -E${SECS_rg:+, $(ratio "${SECS_rg:-0}" "$SECS_explain") faster than rg}"
awk -v b="$BYTES" -v s="$SECS_explain" 'BEGIN { exit !(s > 0 && b / s / 1e9 >= 1) }' &&
	echo "target >= 1 GB/s on one core (wall): met" || echo "target >= 1 GB/s on one core (wall): NOT met"
awk -v b="$BYTES" -v s="$CPU_explain" 'BEGIN { exit !(s > 0 && b / s / 1e9 >= 1) }' &&
	echo "target >= 1 GB/s on one core (cpu): met" || echo "target >= 1 GB/s on one core (cpu): NOT met"

# BASE: the same log through the other binary and this one in turn, RUNS rounds
if [ -n "${BASE:-}" ]; then
	[ -x "$BASE" ] || { echo "bench: BASE $BASE is not an executable" >&2; exit 2; }
	best_b='' best_n=''
	for ((k = 0; k < RUNS; k++)); do
		for who in base new; do
			bin=$CD
			[ "$who" = base ] && bin=$BASE
			cat "$LOG" >/dev/null
			/usr/bin/time -f '%U %S' -o "$TMP/vs.time" "${PIN[@]}" "$bin" --json explain --no-env "$LOG" >/dev/null 2>&1 || true
			c=$(awk 'END { print $1 + $2 }' "$TMP/vs.time") # after any "exited with" line
			if [ "$who" = base ]; then
				{ [ -z "$best_b" ] || awk -v a="$c" -v b="$best_b" 'BEGIN { exit !(a < b) }'; } && best_b=$c
			else
				{ [ -z "$best_n" ] || awk -v a="$c" -v b="$best_n" 'BEGIN { exit !(a < b) }'; } && best_n=$c
			fi
		done
	done
	awk -v b="$BYTES" -v x="$best_b" -v y="$best_n" -v r="$RUNS" 'BEGIN {
		printf "interleaved, best cpu of %d: base %.2f s (%.2f GB/s), this %.2f s (%.2f GB/s): %.2fx\n",
			r, x, (x > 0 ? b / x / 1e9 : 0), y, (y > 0 ? b / y / 1e9 : 0), (y > 0 ? x / y : 0) }'
fi

# Real text, REAL_MIB each (default 64): the healthy outputs of tests/fixtures/healthy (runs that
# worked: nvidia-smi, pip, collect_env, NCCL INFO, training and server logs) and the logs of the
# corpus's tune part (real failures), each repeated to size. Dense in the words signatures are
# anchored on ("version", "NVIDIA", "driver"), so every line costs confirmations the generated
# log above does not: these are the figures a user's own log is nearer to.
REAL_MIB="${REAL_MIB:-64}"
real() {
	local name=$1 var
	shift
	cat "$@" >"$TMP/real.src"
	: >"$TMP/real.log"
	while [ "$(stat -c %s "$TMP/real.log")" -lt $((REAL_MIB << 20)) ]; do cat "$TMP/real.src" >>"$TMP/real.log"; done
	truncate -s $((REAL_MIB << 20)) "$TMP/real.log"
	LOG="$TMP/real.log"
	BYTES=$(stat -c %s "$LOG")
	run "explain_$name" "$CD" --json explain --no-env "$LOG" >/dev/null
	var=CPU_explain_$name
	awk -v n="$name" -v m="$REAL_MIB" -v b="$BYTES" -v s="${!var}" \
		'BEGIN { printf "explain on %s (%d MiB): %.0f MB/s (cpu)\n", n, m, (s > 0 ? b / s / 1e6 : 0) }'
}
[ "$REAL_MIB" -gt 0 ] || exit 0
echo "real text, explain only (tests/fixtures/healthy repeated; the tune part's logs repeated):"
real healthy tests/fixtures/healthy/*.log
real tune tests/corpus/tune/*.log
