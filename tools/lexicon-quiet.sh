#!/usr/bin/env bash
# tools/lexicon-quiet.sh BIN [DIR] [LINES]: the names of the logs of DIR (default
# tests/corpus/tune) in which, without the lines a signature matched (LINES, default
# tests/corpus/tune.lines), explain --no-guess finds nothing: no signature, no line that looks
# like a failure. These are the logs a hint is for; tools/lexicon.py --eval-hint reads the list.
set -euo pipefail
bin=${1:?usage: lexicon-quiet.sh BIN [DIR] [LINES]}
dir=${2:-tests/corpus/tune}
lines=${3:-tests/corpus/tune.lines}
[ -x "$bin" ] || { echo "lexicon-quiet: no binary $bin" >&2; exit 2; }
[ -r "$lines" ] || { echo "lexicon-quiet: no file $lines" >&2; exit 2; }
command -v jq >/dev/null || { echo "lexicon-quiet: jq is needed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export bin dir tmp
LC_ALL=C sort "$lines" | xargs -r -d '\n' -P 2 -n 64 bash -c '
	for row; do
		name=${row%%$'"'"'\t'"'"'*} drop=${row#*$'"'"'\t'"'"'}
		[ -f "$dir/$name.log" ] || continue
		awk -v L=",$drop," "index(L, \",\" FNR \",\") == 0" "$dir/$name.log" >"$tmp/$name.log"
		n=$({ "$bin" --json explain --no-env --no-guess "$tmp/$name.log" 2>/dev/null || true; } |
			jq -r ".diagnoses | length")
		if [ "$n" = 0 ]; then printf "%s\n" "$name"; fi
		rm -f "$tmp/$name.log"
	done' _ | LC_ALL=C sort
