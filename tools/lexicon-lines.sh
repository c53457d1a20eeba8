#!/usr/bin/env bash
# tools/lexicon-lines.sh BIN [DIR]: for each log of DIR (default tests/corpus/tune), its name, a
# tab and the numbers of the lines a signature matched (explain --json: the lines of every
# diagnosis but the guess and the diagnosis of last resort), comma-separated, sorted by name.
# tools/lexicon.py --matched reads it (`make lexicon`).
set -euo pipefail
bin=${1:?usage: lexicon-lines.sh BIN [DIR]}
dir=${2:-tests/corpus/tune}
[ -x "$bin" ] || { echo "lexicon-lines: no binary $bin" >&2; exit 2; }
command -v jq >/dev/null || { echo "lexicon-lines: jq is needed" >&2; exit 2; }
export bin
find "$dir" -name '*.log' | LC_ALL=C sort | xargs -r -P 2 -n 64 bash -c '
	for l; do
		printf "%s\t%s\n" "$(basename "$l" .log)" "$({ "$bin" --json explain --no-env --no-guess "$l" 2>/dev/null || true; } |
			jq -r "[.diagnoses[]? | select(.category != \"unknown\") | .lines[]] | unique | map(tostring) | join(\",\")")"
	done' _ | LC_ALL=C sort
