#!/usr/bin/env bats
# sigc anchors each pattern on its rarest literal in the reference texts it is
# given (--ref), writes the choice into the generated database, and the
# scanner applies it (docs/signatures.md, "How the engine uses them").

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T=$BATS_TEST_TMPDIR
	ROOT="$BATS_TEST_DIRNAME/../.."
	SIGC="$(dirname "$CD")/tools/sigc"
	[ -x "$SIGC" ] || skip "no sigc next to $CD"
	cat >"$T/t.txt" <<'SIG'
id: t-std
category: host-compiler
priority: 100
title: t
explain: t
pattern: error: invalid value '{std:word}' in '-stq=
fix: t
source: https://example.org/1
sample: error: invalid value 'c++17' in '-stq=c++17'
nomatch: error: invalid value
SIG
	# the signatures, then the test's (its pattern is the last in database order)
	files=("$ROOT"/data/signatures/*.txt "$T/t.txt" "$ROOT/data/explain_fallback.tsv"
		"$ROOT/data/explain_facts.tsv" "$ROOT/data/explain_also.tsv")
}

# the anchor op of the test's template in a generated file: entry n_pat - 1
test_anchor() {
	local n
	n=$(sed -n 's/^sigc: [0-9]* signatures, \([0-9]*\) patterns.*/\1/p' <<<"$2")
	tr -d '\n' <"$1" | sed 's/.*xs_anchor_ops\[\] = {//; s/}.*//' | cut -d, -f"$n"
}

@test "anchors: without reference texts, the longest literal with more than letters" {
	run "$SIGC" "$T/a.c" "${files[@]}"
	[ "$status" -eq 0 ]
	[[ "$output" != *"anchors:"* ]]
	[ "$(test_anchor "$T/a.c" "$output")" = 0 ] # error:
}

@test "anchors: with them, the rarest literal; a text that cannot be read stops the build" {
	for i in $(seq 1 50); do echo "src/x.c:$i: error: invalid value in the invalid parameter"; done >"$T/ref.log"
	run "$SIGC" "$T/b.c" "${files[@]}" --ref "$T/ref.log"
	[ "$status" -eq 0 ]
	[[ "$output" == *"anchors: the rarest literal of each pattern in 1 reference texts"* ]]
	# the last op, '-stq=: not error: nor invalid, which the text is full of
	[ "$(test_anchor "$T/b.c" "$output")" = 12 ]
	run "$SIGC" "$T/c.c" "${files[@]}" --ref "$T/missing.log"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot read"* ]]
}

@test "anchors: the binary finds a message by the anchor its database was built with" {
	printf '%s\n' 'x' "error: invalid value 'c++20' in '-std=c++20'" >"$T/l.log"
	run "$CD" explain --no-env --json "$T/l.log"
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = host-compiler ]
	[ "$(jq -r '.diagnoses[0].line' <<<"$output")" = 2 ]
}
