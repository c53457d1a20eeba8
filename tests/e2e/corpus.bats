#!/usr/bin/env bats
# The corpus of real logs (tests/corpus/README.md): the test parts are frozen,
# and explain's accuracy on every part stays at or above the floors recorded
# here (docs/explain.md has the figures and the command that measures them).

# the frozen test parts, in the order they were collected
TEST_PARTS=(test test2 test3 test4 test5 test6 test7 test8 test9 test10 test11 test12 test13 test14 test15 test16 test17 test18 test19)

# above_floor PART VAR=MIN...: accuracy.sh on PART with the floors given, the misses left out of
# the output shown on failure
above_floor() {
	local part=$1
	shift
	run env CD_BIN="${CD_BIN:?set CD_BIN}" "$@" "$BATS_TEST_DIRNAME/../corpus/accuracy.sh" "$part"
	echo "$output" | grep -v '^  .* want '
	[ "$status" -eq 0 ]
	[[ "$output" == *"accuracy $part: top-1"* ]]
}

@test "corpus: the test parts are frozen (file lists and contents)" {
	cd "$BATS_TEST_DIRNAME/../corpus"
	for p in "${TEST_PARTS[@]}"; do
		sha256sum --quiet -c $p.sha256
		diff <(find $p -type f | LC_ALL=C sort) <(awk '{print $2}' $p.sha256)
	done
}

@test "corpus: each thread is in one part only" {
	cd "$BATS_TEST_DIRNAME/../corpus"
	threads() { sed -n 's/^url: *//p' "$1"/*.expect | sed -E 's#^https?://##; s#[?\#].*##; s#/+$##' | tr A-Z a-z | sort -u; }
	for p in "${TEST_PARTS[@]}" tune; do
		threads "$p" >"$BATS_TEST_TMPDIR/$p"
	done
	for a in "${TEST_PARTS[@]}"; do
		[ -z "$(comm -12 "$BATS_TEST_TMPDIR/$a" "$BATS_TEST_TMPDIR/tune")" ]
		for b in "${TEST_PARTS[@]}"; do
			[ "$a" = "$b" ] || [ -z "$(comm -12 "$BATS_TEST_TMPDIR/$a" "$BATS_TEST_TMPDIR/$b")" ]
		done
	done
	[ "$(cat "$BATS_TEST_TMPDIR/test" "$BATS_TEST_TMPDIR/test2" | wc -l)" -ge 120 ]
}

@test "corpus: accuracy on the tune part stays above its floors (top-1, key fact)" {
	above_floor tune TOP1_MIN=98 FACT_MIN=95
}

@test "corpus: accuracy on the test part stays above its floor" {
	above_floor test TOP1_MIN=90
}

@test "corpus: accuracy on the second test part stays above its floor" {
	above_floor test2 TOP1_MIN=89
}

@test "corpus: accuracy on the third test part stays above its floor" {
	above_floor test3 TOP1_MIN=95
}

@test "corpus: accuracy on the fourth test part stays above its floor" {
	above_floor test4 TOP1_MIN=91
}

@test "corpus: accuracy on the fifth test part stays above its floor" {
	above_floor test5 TOP1_MIN=90
}

@test "corpus: accuracy on the sixth test part stays above its floor" {
	above_floor test6 TOP1_MIN=85
}

@test "corpus: accuracy on the seventh test part stays above its floor" {
	above_floor test7 TOP1_MIN=92
}

@test "corpus: accuracy on the eighth test part stays above its floor" {
	above_floor test8 TOP1_MIN=88
}

@test "corpus: accuracy on the ninth test part stays above its floor" {
	above_floor test9 TOP1_MIN=87
}

@test "corpus: accuracy on the tenth test part stays above its floor" {
	above_floor test10 TOP1_MIN=91
}

@test "corpus: accuracy on the eleventh test part stays above its floor" {
	above_floor test11 TOP1_MIN=91
}

@test "corpus: accuracy on the twelfth test part stays above its floor" {
	above_floor test12 TOP1_MIN=87
}

@test "corpus: accuracy on the thirteenth test part stays above its floor" {
	above_floor test13 TOP1_MIN=91
}

@test "corpus: accuracy on the fourteenth test part stays above its floor" {
	above_floor test14 TOP1_MIN=90
}

@test "corpus: accuracy on the fifteenth test part stays above its floor" {
	above_floor test15 TOP1_MIN=88
}

@test "corpus: accuracy on the sixteenth test part stays above its floor" {
	above_floor test16 TOP1_MIN=73
}

@test "corpus: accuracy on the seventeenth test part stays above its floor" {
	above_floor test17 TOP1_MIN=88
}

@test "corpus: accuracy on the eighteenth test part stays above its floor" {
	above_floor test18 TOP1_MIN=80
}

@test "corpus: accuracy on the nineteenth test part stays above its floor" {
	above_floor test19 TOP1_MIN=70
}
