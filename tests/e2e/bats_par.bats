#!/usr/bin/env bats
# tests/bats-par.sh, the runner of these files side by side: a failing file
# fails the run and is named, a passing run passes, bad arguments are refused.

setup() {
	P="$BATS_TEST_DIRNAME/../bats-par.sh"
	T=$BATS_TEST_TMPDIR
	mkdir -p "$T/d"
}

@test "bats-par: every file passing passes, each file's output whole, the count of tests" {
	printf '@test "a1" { true; }\n@test "a2" { true; }\n' >"$T/d/a.bats"
	printf '@test "b1" { sleep 1; true; }\n' >"$T/d/b.bats"
	run "$P" -j 2 "$T/d"
	[ "$status" -eq 0 ]
	[[ "$output" == *"# a.bats"* && "$output" == *"# b.bats"* ]]
	[[ "$output" == *"2 files, 3 passed, 0 failed"* ]]
}

@test "bats-par: one failing test fails the run and names its file" {
	printf '@test "a1" { true; }\n' >"$T/d/a.bats"
	printf '@test "c1" { false; }\n@test "c2" { true; }\n' >"$T/d/c.bats"
	run "$P" -j 3 "$T/d"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok 1 c1"* ]]
	[[ "$output" == *"failed: c.bats"* ]]
	[[ "$output" == *"2 passed, 1 failed"* ]]
}

@test "bats-par: timings of a run order the next, longest first" {
	printf '@test "s" { sleep 2; }\n' >"$T/d/slow.bats"
	printf '@test "f" { true; }\n' >"$T/d/z_fast.bats"
	BUILD_DIR="$T/b" run "$P" -j 1 "$T/d" # no timings yet: by name, z_fast first
	[ "$status" -eq 0 ]
	[ "$(grep '^# ' <<<"$output" | head -1 | cut -d' ' -f2)" = z_fast.bats ]
	[ "$(head -1 "$T/b/bats-times" | cut -d' ' -f2)" = slow.bats ]
	BUILD_DIR="$T/b" run "$P" -j 1 "$T/d"
	[ "$(grep '^# ' <<<"$output" | head -1 | cut -d' ' -f2)" = slow.bats ]
}

@test "bats-par: a bad -j, a missing directory or one without .bats files is refused" {
	run "$P" -j x "$T/d"
	[ "$status" -eq 2 ]
	[[ "$output" == *"-j wants a positive number"* ]]
	run "$P" "$T/none"
	[ "$status" -eq 2 ]
	run "$P" "$T/d"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no .bats file"* ]]
}

@test "bats-par: a file marked alone runs after the others, by itself" {
	printf '@test "s" { sleep 2; date +%%s%%N >"%s/shared.end"; }\n' "$T" >"$T/d/shared.bats"
	printf '#!/usr/bin/env bats\n# bats-par: alone\n@test "a" { date +%%s%%N >"%s/alone.start"; }\n' "$T" >"$T/d/big_alone.bats"
	run "$P" -j 4 "$T/d"
	[ "$status" -eq 0 ]
	[[ "$output" == *"then 1 alone"* ]]
	[ "$(cat "$T/alone.start")" -gt "$(cat "$T/shared.end")" ]
}
