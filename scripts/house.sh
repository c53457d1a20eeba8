#!/usr/bin/env bash
# The structure figures docs/contributing.md records, for a checkout:
#   scripts/house.sh [DIR]      DIR: a checkout (default: this one)
# include lines that run up a layer (scripts/layers.sh --count), top-level
# folders of src/ in an include cycle, finding ids emitted from more than one
# file (scripts/finding-ids.sh -v), version string literals in the code of
# src/ (comments not counted), files
# over 600 lines, and the embedded data files no code names.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "${1:-$here}" && pwd)
cd "$dir"

up=$("$here/scripts/layers.sh" --count "$dir" 2>/dev/null || echo "?")
# folders in a cycle: the strongly connected top-level folders of the include graph
cycles=$(grep -rn '^#include "' src --include='*.c' --include='*.h' |
	awk -F: '{ split($1, a, "/"); f = a[2]; if (f ~ /\.c$/) f = "main";
		match($3, /"[^"]+"/); inc = substr($3, RSTART + 1, RLENGTH - 2); split(inc, b, "/");
		if (f != b[1] && b[1] !~ /\.h$/) print f, b[1] }' | sort -u |
	python3 -c '
import sys, collections
g = collections.defaultdict(set)
for line in sys.stdin:
    a, b = line.split(); g[a].add(b)
def reach(s):
    seen, st = set(), [s]
    while st:
        for n in g[st.pop()]:
            if n not in seen: seen.add(n); st.append(n)
    return seen
print(sum(1 for v in list(g) if v in reach(v)))')
ids=$(bash "$here/scripts/finding-ids.sh" -v src 2>/dev/null | awk 'NF > 2' | wc -l)
# version literals in code (comments stripped): "12.4", "8.0", "2.1.0+cu121"
vers=$(python3 -c '
import re, pathlib
n = 0
for p in pathlib.Path("src").glob("**/*.[ch]"):
    t = re.sub(r"/\*.*?\*/", "", p.read_text(errors="replace"), flags=re.S)
    n += len(re.findall(r"\"[0-9]+\.[0-9]+[^\"\n]*\"", re.sub(r"//[^\n]*", "", t)))
print(n)')
big=$(find src -name '*.[ch]' -print0 | xargs -0 wc -l | awk '$2 != "total" && $1 > 600' | wc -l)
unread=0
for f in $(cd data && find . -type f \( -name '*.tsv' -o -name '*.txt' \) | sed 's|^\./||'); do
	case $f in signatures/*) continue ;; esac
	grep -rqF "\"$f\"" src tools || unread=$((unread + 1))
done
printf 'includes up a layer      %s\n' "$up"
printf 'folders in a cycle       %s\n' "$cycles"
printf 'ids from several files   %s\n' "$ids"
printf 'version literals in src  %s\n' "$vers"
printf 'files over 600 lines     %s\n' "$big"
printf 'unread data files        %s\n' "$unread"
