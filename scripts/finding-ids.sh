#!/usr/bin/env bash
# The finding ids cuda-doctor's code can emit, one per line, sorted: the id
# argument of every findings_add() call in the sources (a call may span lines).
# A file that passes a variable as the id (a wrapper such as check/jit/jit.c's
# add(), or a mapping such as check/jit/jit_smoke_check.c's map_id()) has
# every id-shaped string literal in it counted, so no id can slip past. A
# file that raises another family's id through that family's builder (e.g.
# check/arch.c's arch_abi_finding) does not emit it: the builder's file does.
# Usage: scripts/finding-ids.sh [-v] [DIR]   (DIR: the sources, default src/
# of this checkout). With -v, each id is followed by the files that emit it
# (tests/e2e/docs.bats fails when that is more than one).
set -euo pipefail

id='[a-z][a-z0-9]*(-[a-z0-9]+)+'
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
src=${1:-$(dirname "$0")/../src}
[ -d "$src" ] || { echo "finding-ids: no directory $src" >&2; exit 2; }
cd "$src"

while IFS= read -r f; do
	[ "$f" = ./facts/finding.c ] && continue # the definition
	flat=$(tr '\n\t' '  ' <"$f")
	{
		grep -oE "findings_add\\( *[^,()]+, *\"$id\"" <<<"$flat" || true
		if grep -qE 'findings_add\( *[^,()]+, *[A-Za-z_][A-Za-z0-9_]* *,' <<<"$flat"; then
			grep -oE "\"$id\"" "$f" || true
		fi
	} | { grep -oE "\"$id\"" || true; } | tr -d '"' | sed "s|\$| $f|"
done < <(grep -rl --include='*.c' 'findings_add(' . | sort) | sort -u |
	if [ $verbose = 1 ]; then
		awk '{ files[$1] = files[$1] " " $2 } END { for (i in files) print i files[i] }' | sort
	else
		cut -d' ' -f1 | sort -u
	fi
