#!/usr/bin/env bats
# Rules of src/probe/ read from the source: a probe never prints (its callers
# get facts, or a callback as jit --compile's progress does), and only the
# isolation module forks and reaps.

setup() {
	TOP="$BATS_TEST_DIRNAME/../.."
}

# Code lines of src/probe (comment lines dropped), as file:line:text.
code() { grep -rnE "$1" "$TOP/src/probe" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)' || true; }

@test "no probe prints: no stdio output call, no stdout or stderr named" {
	run code '(^|[^a-z_])(printf|fprintf|dprintf|vprintf|vfprintf|vdprintf|puts|fputs|fputc|putchar|perror|fwrite)\('
	[ -z "$output" ] || { echo "$output"; false; }
	# isolate's child side points a child's stdout and stderr at a pipe
	run bash -c "grep -rnE '\\<(stdout|stderr|STDOUT_FILENO|STDERR_FILENO)\\>' '$TOP/src/probe' | grep -vE '/src/probe/isolate(_out)?\\.[ch]:'"
	[ -z "$output" ] || { echo "$output"; false; }
}

@test "only probe/isolate forks, execs and reaps" {
	run code '(^|[^a-z_])(fork|vfork|waitpid|wait4|execv|execvp|execve|execvpe|posix_spawn|popen|system)\('
	[ -z "$(grep -vE '/src/probe/isolate(_out)?\.c:' <<<"$output")" ] || { echo "$output"; false; }
	[ -n "$(grep '/src/probe/isolate\.c:' <<<"$output")" ] # the pattern does find isolate's own
}
