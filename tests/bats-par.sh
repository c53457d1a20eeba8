#!/usr/bin/env bash
# Run the bats files of a directory side by side: tests/bats-par.sh [-j N] DIR
#
# Each file runs in its own bats process (the tests of one file stay in
# order), N at a time (default: BATS_JOBS, else twice the CPUs: many tests
# wait on timeouts and children rather than compute). The longest files start
# first (the order of the last run's timings, kept in $BUILD_DIR/bats-times when
# BUILD_DIR is set; else by size). A file that times itself (a test that must
# end within so many milliseconds) says `# bats-par: alone` in its first 20
# lines: those run after the others, one at a time, on an idle machine. Each
# file's output is printed whole when it ends, so files never interleave; the
# summary names the files that failed.
# Exit status: 0 when every file passed, 1 otherwise.
set -uo pipefail
jobs=${BATS_JOBS:-$(($(nproc 2>/dev/null || echo 2) * 2))}
if [ "${1:-}" = -j ]; then
	jobs=$2
	shift 2
fi
dir=${1:?usage: bats-par.sh [-j N] DIR}
case $jobs in '' | *[!0-9]* | 0) echo "bats-par: -j wants a positive number, not '$jobs'" >&2; exit 2 ;; esac
[ -d "$dir" ] || { echo "bats-par: no directory $dir" >&2; exit 2; }
command -v bats >/dev/null || { echo "bats-par: bats is needed" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
times=${BUILD_DIR:+$BUILD_DIR/bats-times}

# the files, longest first: by the last run's seconds, else by bytes
for f in "$dir"/*.bats; do
	n=${f##*/}
	s=$( [ -n "$times" ] && [ -f "$times" ] && awk -v n="$n" '$2 == n { print int($1) }' "$times")
	echo "${s:-$(($(wc -c <"$f") / 1000))} $f"
done | sort -rn | cut -d' ' -f2- >"$out/files"
[ -s "$out/files" ] || { echo "bats-par: no .bats file in $dir" >&2; exit 2; }

while read -r f; do
	if head -20 "$f" | grep -q '^# bats-par: alone'; then echo "$f" >>"$out/alone"; else echo "$f" >>"$out/shared"; fi
done <"$out/files"
touch "$out/alone" "$out/shared"

export out
start=$(date +%s)
run_files() { # N: the files of stdin, N at a time
	xargs -r -P "$1" -I{} bash -c '
	f=$1; n=${f##*/}; t0=$(date +%s)
	bats --timing "$f" >"$out/$n.log" 2>&1; rc=$?
	echo "$(($(date +%s) - t0)) $n $rc" >>"$out/times"
	{ flock 9; echo "# $n ($(($(date +%s) - t0)) s)"; cat "$out/$n.log"; } 9>"$out/lock"
	[ $rc -eq 0 ] || echo "$n" >>"$out/failed"' _ {}
}
run_files "$jobs" <"$out/shared"
run_files 1 <"$out/alone"
[ -n "$times" ] && mkdir -p "$BUILD_DIR" && sort -rn "$out/times" >"$times"
tests=$(cat "$out"/*.bats.log | grep -c '^ok ')
bad=$(cat "$out"/*.bats.log | grep -c '^not ok ')
echo "bats-par: $(wc -l <"$out/files") files, $tests passed, $bad failed, $(($(date +%s) - start)) s ($jobs at a time, then $(wc -l <"$out/alone") alone)"
if [ -s "$out/failed" ]; then
	echo "bats-par: failed: $(sort "$out/failed" | tr '\n' ' ')"
	exit 1
fi
