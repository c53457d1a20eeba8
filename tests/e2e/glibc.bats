#!/usr/bin/env bats
# The glibc floor (docs/portability.md): the binary needs no symbol version above GLIBC_2.28,
# and it starts, checks (golden reports) and explains under an older glibc than the build's:
# Debian's oldest base that its mirror serves (scripts/old-glibc-root.sh), entered by chroot.
# Without network, debootstrap or root, the old-root tests skip and say why.

setup_file() {
	ROOT=${CD_OLDGLIBC_ROOT:-$(dirname "${CD_BIN:?set CD_BIN}")/oldglibc}
	if readelf -dW "$CD_BIN" | grep -Eq 'NEEDED.*lib(a|ub|t)san'; then
		# a sanitizer build needs its runtime, which the old root lacks
		echo "a sanitizer build (its runtime is not in the old root)" >"$BATS_FILE_TMPDIR/why"
		REL=
	else
		REL=$("$BATS_TEST_DIRNAME/../../scripts/old-glibc-root.sh" "$ROOT" \
			2>"$BATS_FILE_TMPDIR/why") || REL=
	fi
	export ROOT REL
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	FLOOR="$BATS_TEST_DIRNAME/../../scripts/glibc-floor.sh"
}

# the old root, or skip with the reason
need_root() {
	[ -n "$REL" ] || skip "no old-glibc root: $(tail -1 "$BATS_FILE_TMPDIR/why")"
	[ "$(id -u)" -eq 0 ] || skip "chroot into the old-glibc root needs root"
	! ldd "$CD" | grep -q libasan || skip "a sanitizer build needs libasan, which the old root lacks"
	mkdir -p "$ROOT/cd"
	cp "$CD" "$ROOT/cd/cuda-doctor"
}

@test "glibc: no symbol version above GLIBC_2.28" {
	run "$FLOOR" "$CD" 2.28
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
}

@test "glibc: the floor check fails on a binary above its floor" {
	run "$FLOOR" "$CD" 2.2
	[ "$status" -eq 1 ]
	[[ "$output" == *"above the floor GLIBC_2.2"* ]]
}

@test "glibc: --version under the old glibc" {
	need_root
	run chroot "$ROOT" /cd/cuda-doctor --version
	[ "$status" -eq 0 ] || { echo "glibc $REL: $output"; return 1; }
	[ "$output" = "$("$CD" --version)" ]
	# the loader of that root, as a user would run it without chroot
	ld=$(find "$ROOT/lib/x86_64-linux-gnu" -maxdepth 1 -name 'ld-2.*.so' | head -1)
	[ -z "$ld" ] || [ "$("$ld" --library-path "$ROOT/lib/x86_64-linux-gnu" "$CD" --version)" = "$output" ]
}

@test "glibc: check's golden reports under the old glibc (files, the fake driver)" {
	need_root
	[ -n "$(find "$FAKES" -name 'libnvidia-ml.so.1')" ] || skip "no fake driver libraries"
	rm -rf "$ROOT/cd/fx" "$ROOT/cd/fakes"
	"$BATS_TEST_DIRNAME/sysfixtures.sh" "$ROOT/cd/fx"
	mkdir -p "$ROOT/cd/fx/fake/proc/driver/nvidia"
	printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (dvs-builder@U22-I3-AE18-23-3)  Wed Jan 21 23:49:28 UTC 2026\n' \
		>"$ROOT/cd/fx/fake/proc/driver/nvidia/version"
	cp -r "$FAKES" "$ROOT/cd/fakes"
	run chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/nonexistent \
		/cd/cuda-doctor --root /cd/fx/complete check --no-color
	[ "$status" -le 1 ]
	diff -u "$BATS_TEST_DIRNAME/golden/check/complete.txt" \
		<(printf 'exit %s\n%s\n' "$status" "$output" | sed 's|/cd/fx|@ROOT@|g')
	run chroot "$ROOT" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/nonexistent CD_FAKE_MODE=h200 \
		/cd/cuda-doctor --root /cd/fx/fake check --no-color --nvml-lib /cd/fakes/libnvidia-ml.so.1 \
		--cuda-lib /cd/fakes/libcuda.so.1 --timeout 2
	[ "$status" -le 1 ]
	diff -u "$BATS_TEST_DIRNAME/golden/check/fake-h200.txt" \
		<(printf 'exit %s\n%s\n' "$status" "$output" | sed -e 's|/cd/fx|@ROOT@|g' -e 's|/cd/fakes|@FAKES@|g')
}

@test "glibc: explain under the old glibc matches the build's glibc" {
	need_root
	log=$(find "$BATS_TEST_DIRNAME/../corpus/test" -name '*.log' | sort | head -1)
	cp "$log" "$ROOT/cd/in.log"
	run chroot "$ROOT" /cd/cuda-doctor explain --no-env --json /cd/in.log
	old=$output
	old_status=$status
	cp "$log" "$BATS_TEST_TMPDIR/in.log"
	run "$CD" explain --no-env --json "$BATS_TEST_TMPDIR/in.log"
	[ "$old_status" -eq "$status" ]
	[ "$(sed 's|/cd/in.log|IN|g' <<<"$old")" = "$(sed "s|$BATS_TEST_TMPDIR/in.log|IN|g" <<<"$output")" ]
	[[ "$old" == *'"signature"'* ]]
}
