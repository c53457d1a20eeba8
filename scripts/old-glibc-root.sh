#!/usr/bin/env bash
# An old-glibc root for the portability test (tests/e2e/glibc.bats, docs/portability.md):
#   scripts/old-glibc-root.sh DIR [SUITE...]
# Debian's minimal base (debootstrap --variant=minbase --foreign: the packages unpacked, no
# second stage, about 20 s) of the first suite its mirror still serves, oldest first (default:
# buster, glibc 2.28; then bullseye, 2.31). DIR is reused when it already holds a root. Prints
# the glibc release of the root; exit 1 when no suite could be had (no network, no debootstrap).
set -euo pipefail
dir=${1:?usage: old-glibc-root.sh DIR [SUITE...]}
shift
[ $# -gt 0 ] || set -- buster bullseye
ldso() { find "$1/lib/x86_64-linux-gnu" "$1/lib64" -maxdepth 1 -name 'ld-2.*.so' 2>/dev/null | head -1; }
if [ -z "$(ldso "$dir")" ]; then
	command -v debootstrap >/dev/null || { echo "old-glibc-root: debootstrap is not installed" >&2; exit 1; }
	ok=
	for suite in "$@"; do
		rm -rf "$dir"
		mkdir -p "$dir"
		if debootstrap --variant=minbase --foreign "$suite" "$dir" >"$dir.log" 2>&1; then
			ok=$suite
			break
		fi
		echo "old-glibc-root: $suite: $(grep -E '^E:' "$dir.log" | head -1)" >&2
	done
	[ -n "$ok" ] || { rm -rf "$dir"; exit 1; }
	# what the tests never read: documentation, locales, manuals
	rm -rf "$dir/usr/share/doc" "$dir/usr/share/locale" "$dir/usr/share/man" "$dir/var/cache/apt"
fi
ld=$(ldso "$dir")
[ -n "$ld" ] || { echo "old-glibc-root: no loader in $dir" >&2; exit 1; }
basename "$ld" .so | sed 's/^ld-//'
