#!/usr/bin/env bats
# Command-line contract: global options anywhere, help, usage errors, exit codes.

setup() {
	CD="${CD_BIN:?set CD_BIN}"
}

@test "--version prints the version" {
	run "$CD" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^cuda-doctor\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "--help lists the commands" {
	run "$CD" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"check"* ]]
	[[ "$output" == *"--root DIR"* ]]
}

@test "check --help is the command's help" {
	run "$CD" check --help
	[ "$status" -eq 0 ]
	[[ "$output" == "cuda-doctor check -"* ]]
}

@test "unknown command is a usage error (exit 2)" {
	run "$CD" frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown command 'frobnicate'"* ]]
}

@test "unknown option before the command is a usage error" {
	run "$CD" --frob check
	[ "$status" -eq 2 ]
}

@test "--format with a bad value is a usage error" {
	run "$CD" --format yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected text, json or markdown"* ]]
}

@test "--timeout rejects garbage and out-of-range values" {
	run "$CD" --timeout abc
	[ "$status" -eq 2 ]
	run "$CD" --timeout 0
	[ "$status" -eq 2 ]
	run "$CD" --timeout
	[ "$status" -eq 2 ]
}

@test "--root that is not a directory is a clear usage error" {
	run "$CD" --root /etc/hostname check
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a directory"* ]]
	run "$CD" --root /nonexistent/cd-root check
	[ "$status" -eq 2 ]
	[[ "$output" == *"/nonexistent/cd-root"* ]]
}

@test "global options are accepted before or after the command" {
	root=$(mktemp -d)
	run "$CD" --json --root "$root" check
	[ "$status" -le 1 ]
	a=$output
	run "$CD" check --root "$root" --json
	[ "$status" -le 1 ]
	[ "$a" = "$output" ]
	[ "$(jq -r .schema <<<"$output")" = "cuda-doctor.report/1" ]
	rm -rf "$root"
}

@test "markdown output is paste-ready" {
	root=$(mktemp -d)
	run "$CD" --root "$root" --format markdown
	[[ "$output" == "### cuda-doctor"* ]]
	[[ "$output" == *"<details>"* ]]
	rm -rf "$root"
}
