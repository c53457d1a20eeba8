#!/usr/bin/env bats
# Accuracy on the corpus of real logs from public issue threads
# (tests/corpus/logs, one .expect sidecar per log with the thread's url, the
# established root cause's category and a key fact). Fails below the targets:
# 90% right category for the first diagnosis, 80% key facts extracted.

@test "corpus accuracy meets the targets" {
	run env CD_BIN="${CD_BIN:?set CD_BIN}" "$BATS_TEST_DIRNAME/../corpus/run.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"corpus: "*" logs"* ]]
}
