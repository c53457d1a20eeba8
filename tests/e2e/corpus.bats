#!/usr/bin/env bats
# The corpus of real logs (tests/corpus/README.md): the test part is frozen,
# and explain's accuracy on both parts stays at or above the floors recorded
# here (docs/explain.md has the figures and the command that measures them).

@test "corpus: the test part is frozen (file list and contents)" {
	cd "$BATS_TEST_DIRNAME/../corpus"
	sha256sum --quiet -c test.sha256
	diff <(find test -type f | LC_ALL=C sort) <(awk '{print $2}' test.sha256)
}

@test "corpus: each thread is in one part only" {
	cd "$BATS_TEST_DIRNAME/../corpus"
	run bash -c "sed -n 's/^url: *//p' test/*.expect | sed -E 's#^https?://##; s#[?\#].*##; s#/+\$##' | tr A-Z a-z | sort -u >\"$BATS_TEST_TMPDIR/t\"; sed -n 's/^url: *//p' tune/*.expect | sed -E 's#^https?://##; s#[?\#].*##; s#/+\$##' | tr A-Z a-z | sort -u >\"$BATS_TEST_TMPDIR/u\"; comm -12 \"$BATS_TEST_TMPDIR/t\" \"$BATS_TEST_TMPDIR/u\""
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/t")" -ge 120 ]
}

@test "corpus: accuracy on the tune part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=80 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" tune
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy tune: top-1"* ]]
}

@test "corpus: accuracy on the test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=55 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test: top-1"* ]]
}
