#!/usr/bin/env bats
# explain's guess from the words (docs/explain.md, "A guess from the words"):
# only when no signature matched, only with a clear lead, and the table is
# what tools/lexicon.py writes from the tune part.

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T=$BATS_TEST_TMPDIR
}

@test "guess: an NCCL failure no signature knows is guessed nccl, with its words" {
	printf '%s\n' 'node3:8812:8901 [5] NCCL WARN NET/Socket : peer 10.0.0.7<41234> message truncated' \
		'node3:8812:8901 [5] NCCL INFO transport/net.cc:1045 -> 3' \
		'rank 5 exited with an error' >"$T/a.log"
	run "$CD" explain --no-env --json "$T/a.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 1 ]
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = nccl ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = guess-nccl ]
	[[ "$(jq -r '.diagnoses[0].facts.words' <<<"$output")" == *nccl* ]]
	[ "$(jq -r '.diagnoses[0].candidates | length' <<<"$output")" -ge 1 ]
	run "$CD" explain --no-env "$T/a.log"
	[[ "$output" == *"no known failure found: a guess from the log's words"* ]]
	[[ "$output" == *"a guess from the log's words ("*"nccl"* ]]
}

@test "guess: a log a signature explains keeps the signature's diagnosis" {
	printf '%s\n' 'NCCL WARN NET/Socket : message truncated' \
		"fatal error: cusparse.h: No such file or directory" >"$T/b.log"
	run "$CD" explain --no-env --json "$T/b.log"
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" != guess-nccl ]
	[ "$(jq -r '[.diagnoses[].signature | select(startswith("guess-"))] | length' <<<"$output")" = 0 ]
}

@test "guess: words that speak for no category in particular stay unknown" {
	printf '%s\n' 'epoch 12 done' 'Error: something went wrong' >"$T/c.log"
	run "$CD" explain --no-env --json "$T/c.log"
	[ "$(jq -r '.diagnoses[0].category' <<<"$output")" = unknown ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = unknown-failure ]
}

@test "guess: a healthy log is still no known failure" {
	printf 'epoch 1 loss 0.31\nepoch 2 loss 0.27\n' >"$T/d.log"
	run "$CD" explain --no-env --json "$T/d.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 0 ]
}

# A hang: NCCL's setup lines, then nothing; no line looks like a failure.
hang_log() {
	printf '%s\n' 'node1:2201:2201 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.5<0>' \
		'node1:2201:2201 [0] NCCL INFO NET/IB : No device found.' \
		'node1:2201:2201 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.5<0>' \
		'node1:2201:2201 [0] NCCL INFO Using network Socket' \
		'node1:2201:2260 [0] NCCL INFO Channel 00/02 :    0   1' \
		'node1:2201:2260 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1' \
		'node1:2201:2260 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC'
}

@test "hint: no line looks like a failure, the words speak for NCCL: an info hint on the last line" {
	hang_log >"$T/hang.log"
	run "$CD" explain --no-env --json "$T/hang.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 1 ]
	[ "$(jq -r '.diagnoses[0] | .category + " " + .signature + " " + .severity' <<<"$output")" = "nccl hint-nccl info" ]
	[ "$(jq -r '.diagnoses[0].candidates[0].line' <<<"$output")" = 7 ]
	[[ "$(jq -r '.diagnoses[0].candidates[0].text' <<<"$output")" == *"via P2P/IPC" ]]
	[[ "$(jq -r '.diagnoses[0].facts.words' <<<"$output")" == *nccl* ]]
	run "$CD" explain --no-env "$T/hang.log"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no line looks like a failure: a hint from the log's words"* ]]
	[[ "$output" == *"line   7: "*"via P2P/IPC"* ]]
	run "$CD" explain --no-env --no-guess --json "$T/hang.log"
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 0 ]
}

@test "hint: the line shown is the last with text, numbered as the log counts (CRLF, blank lines)" {
	{ printf 'setup\r\n\r\n'; hang_log | sed 's/$/\r/'; printf '\r\n  \r\n'; } >"$T/crlf.log"
	run "$CD" explain --no-env --json "$T/crlf.log"
	[ "$(jq -r '.inputs[0].lines' <<<"$output")" = 11 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = hint-nccl ]
	[ "$(jq -r '.diagnoses[0].candidates[0].line' <<<"$output")" = 9 ]
}

@test "hint: a failure line keeps the guess or unknown; a short healthy log no hint" {
	{ hang_log; echo 'Error: something went wrong'; } >"$T/fail.log"
	run "$CD" explain --no-env --json "$T/fail.log"
	[[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" != hint-* ]]
	printf 'loading\nready\n' >"$T/ok.log"
	run "$CD" explain --no-env --json "$T/ok.log"
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 0 ]
}

@test "guess: the lexicon is what tools/lexicon.py writes from the tune part" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	# data against data, no binary: once per make test, in the plain e2e run
	[ -z "${CD_SAN:-}" ] || skip "checked in the e2e run without sanitizers"
	cd "$BATS_TEST_DIRNAME/../.."
	python3 tools/lexicon.py --matched tests/corpus/tune.lines tests/corpus/tune >"$T/lex.tsv"
	cmp "$T/lex.tsv" data/explain_lexicon.tsv || { echo "stale: make lexicon"; false; }
}

@test "guess: tests/corpus/tune.lines has a row for every tune log, and only for them" {
	cd "$BATS_TEST_DIRNAME/../.."
	diff <(find tests/corpus/tune -name '*.log' -printf '%f\n' | sed 's/\.log$//' | LC_ALL=C sort) \
		<(cut -f1 tests/corpus/tune.lines) || { echo "stale: make lexicon"; false; }
	# each row: a name, a tab, line numbers or nothing
	! grep -Ev $'^[a-z0-9][a-z0-9._-]*\t([0-9]+(,[0-9]+)*)?$' tests/corpus/tune.lines
}

@test "guess: lexicon-lines gives a log's lines a signature matched, none for one no signature knows" {
	mkdir -p "$T/c"
	printf 'step 1\nImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n' >"$T/c/a.log"
	printf 'hello\nwhatever went wrong here\n' >"$T/c/b.log"
	run "$BATS_TEST_DIRNAME/../../tools/lexicon-lines.sh" "$CD" "$T/c"
	[ "$status" -eq 0 ]
	[ "$output" = $'a\t2\nb\t' ]
}

@test "guess: the parts of a word no log had whole still speak for their category" {
	# a status no signature and no tune log has whole: its parts are words
	# of memory failures (alloc, failed, memory)
	printf '%s\n' 'Starting minibatch loop.' \
		'EXCEPTION occurred: XyzLib failure 2: XYZLIB_STATUS_ALLOC_FAILED ; GPU=0 ; expr=workspaceMemoryReserve(bytes)' >"$T/e.log"
	run "$CD" explain --no-env --json "$T/e.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = guess-oom-at-load ]
	[[ "$(jq -r '.diagnoses[0].facts.words' <<<"$output")" == *alloc* ]]
}

@test "guess: a guess takes the key fact of its category the log states" {
	# (a line a signature knows, such as TensorFlow's "Could not load dynamic library 'X'",
	# would be that signature's diagnosis: the name here is on an ldd-style line)
	printf '%s\n' 'Loading the pipeline' '  cudart64_110.dll => not found' \
		'Error: the dynamic library could not be loaded' >"$T/f.log"
	run "$CD" explain --no-env --json "$T/f.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = guess-missing-shared-lib ]
	[ "$(jq -r '.diagnoses[0].facts.soname' <<<"$output")" = cudart64_110.dll ]
	# without the name on any line there is no soname to take
	printf '%s\n' 'Loading the pipeline' 'Error: "Could not load dynamic library"' >"$T/g.log"
	run "$CD" explain --no-env --json "$T/g.log"
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = guess-missing-shared-lib ]
	[ "$(jq -r '.diagnoses[0].facts.soname // "none"' <<<"$output")" = none ]
}

@test "never silent: a run a person reports as hanging is a line of last resort" {
	printf '%s\n' 'Windows 10' 'the program hangs on Setting up PyTorch plugin "upfirdn2d_plugin"... and nothing else happens' >"$T/h.log"
	run "$CD" explain --no-env --json "$T/h.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 1 ]
	[ "$(jq -r '.diagnoses[0].line' <<<"$output")" = 2 ]
}

@test "guess: --no-guess keeps the diagnosis of last resort unknown" {
	printf '%s\n' 'node3:8812:8901 [5] NCCL WARN NET/Socket : peer 10.0.0.7<41234> message truncated' \
		'rank 5 exited with an error' >"$T/n.log"
	run "$CD" explain --no-env --json "$T/n.log"
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = guess-nccl ]
	run "$CD" explain --no-env --no-guess --json "$T/n.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = unknown-failure ]
	[ "$(jq -r '.diagnoses[0].candidates | length' <<<"$output")" -ge 1 ]
	run "$CD" explain --no-env --no-guess --bogus "$T/n.log"
	[ "$status" -eq 2 ]
}

@test "guess: a close runner-up is named as the guess's alternative, a clear lead names none" {
	# words that speak for two categories almost as much (if a regenerated
	# table parts them, pick another such line: tools/lexicon.py --eval counts them)
	printf '%s\n' 'error: cuda timeout while loading the model weights' >"$T/c.log"
	run "$CD" explain --no-env --json "$T/c.log"
	[ "$status" -eq 0 ]
	[ "$(jq -r '.diagnoses | length' <<<"$output")" = 2 ]
	[ "$(jq -r '.diagnoses[0].signature' <<<"$output")" = guess-oom-at-load ]
	[ "$(jq -r '.diagnoses[1].role' <<<"$output")" = alternative ]
	[ "$(jq -r '.diagnoses[1].alternative_to' <<<"$output")" = guess-oom-at-load ]
	[ "$(jq -r '.diagnoses[1].category' <<<"$output")" != oom-at-load ]
	[ -n "$(jq -r '.diagnoses[1].facts.words' <<<"$output")" ]
	[ "$(jq -r '.summary.alternatives' <<<"$output")" = 1 ]
	# the clear NCCL failure of the first test: one guess, no alternative
	printf '%s\n' 'node3:8812:8901 [5] NCCL WARN NET/Socket : peer 10.0.0.7<41234> message truncated' \
		'rank 5 exited with an error' >"$T/d.log"
	run "$CD" explain --no-env --json "$T/d.log"
	[ "$(jq -r '.summary.alternatives' <<<"$output")" = 0 ]
	# the row (close) is what tools/lexicon.py writes
	grep -q '^(close)' "$BATS_TEST_DIRNAME/../../data/explain_lexicon.tsv"
}
