#!/usr/bin/env bats
# Hardening (issue 16): no silent wrong answers at the edges. Each test names the
# item it guards; each failed on the binary before its fix.

load stack_fixtures

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T="$BATS_TEST_TMPDIR"
	TOP=
}

teardown() {
	[ -z "$TOP" ] || rm -rf "$TOP"
}

# Item 6: a failed write of the output is one message and exit status 4.
@test "every command, --help and --version: >/dev/full is one message and exit 4" {
	printf 'RuntimeError: CUDA error: no kernel image is available\n' >"$T/log"
	local c
	for c in "--version" "--help" "check --help" "check" "check --json" \
		"check --format markdown" "check --format html" "--format prometheus check" \
		"jit" "ldd $CD" "explain $T/log" "fix" "gate" "model $T/nothing" "probe --print-ptx"; do
		# shellcheck disable=SC2086 # the words of $c are the arguments
		run bash -c '"$0" "$@" >/dev/full' "$CD" $c
		echo "$c: $status: $output"
		[ "$status" -eq 4 ]
		[ "$output" = "cuda-doctor: cannot write the output: No space left on device" ]
	done
}

@test "a closed pipe with SIGPIPE ignored (EPIPE) is the same message and exit 4" {
	run python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE, restore_signals=False)
sys.stdout.write(p.stderr.decode())
sys.exit(p.returncode)' "$CD" check --json
	[ "$status" -eq 4 ]
	[ "$output" = "cuda-doctor: cannot write the output: Broken pipe" ]
}

# Run as a user who is not root (nobody, when the tests run as root).
as_user() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	fi
}

# Item 2: a --root the user cannot enter is a usage error, never a healthy machine.
@test "--root that cannot be entered (mode 0700, not its owner) is exit 2 with the cause" {
	[ "$(id -u)" -ne 0 ] || command -v setpriv >/dev/null || skip "needs setpriv to drop root"
	local top c
	# Under /tmp, not the test's own directory: that one is 0700 itself.
	TOP=$(mktemp -d /tmp/cd-hard-XXXXXX)
	top=$TOP
	chmod 755 "$top"
	mkdir -p "$top/img/etc"
	chmod 700 "$top/img"
	[ "$(id -u)" -ne 0 ] || chown 0:0 "$top/img"
	for c in check "check --json" jit fix gate "ldd /bin/true"; do
		# shellcheck disable=SC2086 # the words of $c are the arguments
		run as_user "$CD" --root "$top/img" $c
		echo "$c: $status: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--root $top/img: Permission denied"* ]]
	done
}

# Item 5: a torch/version.py that cannot be read leaves the build unknown,
# never "(CPU build)", in check's text and in jit's.
@test "unreadable or missing torch/version.py: the build prints as unknown, not CPU" {
	local R="$T/root" vpy how
	vpy="$R/opt/torch/.venv/lib/python3.12/site-packages/torch/version.py"
	for how in unreadable missing; do
		rm -rf "$R"
		make_h200 "$R"
		rm -f "$vpy"
		[ "$how" = missing ] || mkdir "$vpy" # a directory: no read of it succeeds, root or not
		run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" --no-color check
		echo "$how: $output"
		[[ "$output" != *"CPU build"* ]]
		[[ "$output" == *"torch 2.11.0+cu130 (build unknown: /opt/torch/.venv/lib/python3.12/site-packages/torch/version.py "* ]]
		run env -i PATH=/opt/torch/.venv/bin:/usr/bin HOME=/nonexistent "$CD" --root "$R" --no-color jit
		[[ "$output" != *"CPU-only"* ]]
	done
}
