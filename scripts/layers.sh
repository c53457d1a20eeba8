#!/usr/bin/env bash
# Layer lint: an include may point only down the layers of docs/contributing.md
#   core < format < kb < facts < probe < check, explain < report < cli < main.c
# (check and explain are siblings: neither includes the other), a private
# header (*_int.h) is included only from its own directory, and the
# sub-folders of probe/ and check/ include each other only down their own order
# (probe: driver, system, toolkit, loader < stack < jit, model; probe/*.h at the
# top of probe/ sits below every sub-folder except for probe.h, which runs them
# all). Prints each offending include; exits 1 when there is one.
# With --count, prints only the number of offending includes. DIR (default:
# this checkout) is the checkout to read.
set -euo pipefail
count=0
if [ "${1:-}" = --count ]; then
	count=1
	shift
fi
cd "${1:-$(dirname "$0")/..}"

rank() {
	case $1 in
	core/*) echo 0 ;; format/*) echo 1 ;; kb/*) echo 2 ;; facts/*) echo 3 ;;
	probe/*) echo 4 ;; check/* | explain/*) echo 5 ;; report/*) echo 6 ;;
	cli/*) echo 7 ;; main.c) echo 8 ;; *) echo 99 ;;
	esac
}
# the order inside probe/ and check/: a sub-folder may include its own
# folder, the folder's top level, and sub-folders of a lower rank
subrank() {
	case $1 in
	probe/probe.h | probe/probe.c) echo 9 ;;
	probe/*/*) case $1 in
		probe/driver/* | probe/system/* | probe/toolkit/* | probe/loader/*) echo 1 ;;
		probe/stack/*) echo 2 ;; probe/jit/* | probe/model/* | probe/live/*) echo 3 ;;
		*) echo 8 ;; esac ;;
	probe/*) echo 0 ;;
	check/check.h | check/check.c) echo 9 ;;
	check/*/*) echo 1 ;;
	check/*) echo 0 ;;
	*) echo 0 ;;
	esac
}

bad=0
while IFS= read -r line; do
	file=${line%%:*}
	inc=${line#*\"}
	inc=${inc%%\"*}
	from=${file#src/}
	[ -f "src/$inc" ] || continue # a generated or system header
	rf=$(rank "$from") ri=$(rank "$inc")
	why=
	top_from=${from%%/*} top_inc=${inc%%/*}
	if [ "$ri" -gt "$rf" ]; then
		why="runs up a layer"
	elif [ "$ri" -eq "$rf" ] && [ "$top_from" != "$top_inc" ]; then
		why="between sibling layers"
	elif [[ $inc == *_int.h ]] && [ "$(dirname "$inc")" != "$(dirname "$from")" ]; then
		why="a private header from another folder"
	elif [ "$top_from" = "$top_inc" ] && [ "$(dirname "$inc")" != "$(dirname "$from")" ]; then
		sf=$(subrank "$from") si=$(subrank "$inc")
		if [ "$si" -gt "$sf" ] || { [ "$si" -eq "$sf" ] && [ "$si" -ne 0 ] &&
			[ "$(dirname "$inc")" != "$(dirname "$from")" ]; }; then
			why="runs up the sub-folders of $top_from/"
		fi
	fi
	if [ -n "$why" ]; then
		bad=$((bad + 1))
		[ $count = 1 ] || echo "layers: $file includes $inc: $why"
	fi
done < <(grep -rn '^#include "' src --include='*.c' --include='*.h' | sed 's/:[0-9]*:/:/')
if [ $count = 1 ]; then
	echo "$bad"
	exit 0
fi
[ "$bad" -eq 0 ] || { echo "layers: $bad includes break the layers (docs/contributing.md)" >&2; exit 1; }
echo "layers: clean"
