#!/usr/bin/env bash
# The glibc floor of a binary (docs/portability.md): the newest GLIBC_x.y version it needs,
# read from its version references (readelf -V: what the dynamic loader checks at start;
# any architecture). Exit 1, naming the symbols, when one is above FLOOR.
#   scripts/glibc-floor.sh BINARY [FLOOR]     (FLOOR: 2.28, RHEL 8 and Debian 10)
set -euo pipefail
bin=${1:?usage: glibc-floor.sh BINARY [FLOOR]}
floor=${2:-2.28}
newest=$(readelf -W -V "$bin" | grep -o 'Name: GLIBC_[0-9][0-9.]*' | sed 's/Name: GLIBC_//' |
	sort -uV | tail -1)
[ -n "$newest" ] || { echo "glibc-floor: $bin names no GLIBC version" >&2; exit 1; }
if [ "$(printf '%s\n%s\n' "$newest" "$floor" | sort -V | tail -1)" != "$floor" ]; then
	echo "glibc-floor: $bin needs GLIBC_$newest, above the floor GLIBC_$floor:" >&2
	readelf -W --dyn-syms "$bin" | grep -o '[^ ]*@GLIBC_[0-9.]*' | sed 's/@GLIBC_/ /' |
		while read -r sym ver; do
			[ "$(printf '%s\n%s\n' "$ver" "$floor" | sort -V | tail -1)" = "$floor" ] ||
				echo "  $sym GLIBC_$ver" >&2
		done
	exit 1
fi
echo "glibc-floor: $bin needs GLIBC_$newest at most (floor GLIBC_$floor)"
