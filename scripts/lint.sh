#!/usr/bin/env bash
# Lint: banned C functions, clang-format conformance, the layers and the style
# rules (scripts/layers.sh, scripts/style.sh), shellcheck on scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# Functions that overflow or misparse silently; see STYLE in docs/contributing.md.
banned='\b(strcpy|strcat|sprintf|vsprintf|gets|strtok|atoi|atol|atof|strncpy)[[:space:]]*\('
if grep -rnE "$banned" src tools tests/unit tests/fakes tests/fuzz --include='*.c' --include='*.h'; then
	echo "lint: banned function used (see above)" >&2
	status=1
fi

files=$(find src tools tests/unit tests/fakes tests/fuzz -name '*.[ch]' 2>/dev/null)
if [ -n "$files" ] && ! clang-format --dry-run -Werror $files 2>/tmp/cd-format.log; then
	head -40 /tmp/cd-format.log >&2
	echo "lint: clang-format differences (run 'make format')" >&2
	status=1
fi

# Includes point only down the layers; private headers stay in their folder.
scripts/layers.sh || status=1

# The rules of docs/contributing.md a grep can hold (core helpers only, no
# static buffers, CD_WUR on fallible functions, files under 600 lines, ...).
scripts/style.sh || status=1

if command -v shellcheck >/dev/null 2>&1; then
	mapfile -t sh < <(ls scripts/*.sh bench/*.sh tests/e2e/*.sh ci/*.sh .ci/run 2>/dev/null)
	shellcheck -S warning "${sh[@]}" || { echo "lint: shellcheck" >&2; status=1; }
fi
[ $status -eq 0 ] && echo "lint: clean"
exit $status
