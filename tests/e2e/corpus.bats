#!/usr/bin/env bats
# The corpus of real logs (tests/corpus/README.md): the test parts are frozen,
# and explain's accuracy on every part stays at or above the floors recorded
# here (docs/explain.md has the figures and the command that measures them).

@test "corpus: the test parts are frozen (file lists and contents)" {
	cd "$BATS_TEST_DIRNAME/../corpus"
	for p in test test2 test3 test4 test5 test6 test7; do
		sha256sum --quiet -c $p.sha256
		diff <(find $p -type f | LC_ALL=C sort) <(awk '{print $2}' $p.sha256)
	done
}

@test "corpus: each thread is in one part only" {
	cd "$BATS_TEST_DIRNAME/../corpus"
	threads() { sed -n 's/^url: *//p' "$1"/*.expect | sed -E 's#^https?://##; s#[?\#].*##; s#/+$##' | tr A-Z a-z | sort -u; }
	threads test >"$BATS_TEST_TMPDIR/test"
	threads test2 >"$BATS_TEST_TMPDIR/test2"
	threads test3 >"$BATS_TEST_TMPDIR/test3"
	threads test4 >"$BATS_TEST_TMPDIR/test4"
	threads test5 >"$BATS_TEST_TMPDIR/test5"
	threads test6 >"$BATS_TEST_TMPDIR/test6"
	threads test7 >"$BATS_TEST_TMPDIR/test7"
	threads tune >"$BATS_TEST_TMPDIR/tune"
	for a in test test2 test3 test4 test5 test6 test7; do
		[ -z "$(comm -12 "$BATS_TEST_TMPDIR/$a" "$BATS_TEST_TMPDIR/tune")" ]
		for b in test test2 test3 test4 test5 test6 test7; do
			[ "$a" = "$b" ] || [ -z "$(comm -12 "$BATS_TEST_TMPDIR/$a" "$BATS_TEST_TMPDIR/$b")" ]
		done
	done
	[ "$(cat "$BATS_TEST_TMPDIR/test" "$BATS_TEST_TMPDIR/test2" | wc -l)" -ge 120 ]
}

@test "corpus: accuracy on the tune part stays above its floors (top-1, key fact)" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=98 FACT_MIN=95 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" tune
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy tune: top-1"* ]]
}

@test "corpus: accuracy on the test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=90 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test: top-1"* ]]
}

@test "corpus: accuracy on the second test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=92 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test2
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test2: top-1"* ]]
}

@test "corpus: accuracy on the third test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=93 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test3
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test3: top-1"* ]]
}

@test "corpus: accuracy on the fourth test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=89 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test4
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test4: top-1"* ]]
}

@test "corpus: accuracy on the fifth test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=90 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test5
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test5: top-1"* ]]
}

@test "corpus: accuracy on the sixth test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=85 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test6
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test6: top-1"* ]]
}

@test "corpus: accuracy on the seventh test part stays above its floor" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" TOP1_MIN=85 "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" test7
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy test7: top-1"* ]]
}
