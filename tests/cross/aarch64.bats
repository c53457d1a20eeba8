#!/usr/bin/env bats
# The aarch64 build (make cross-test: Debian's cross toolchain, run under qemu-user) gives the
# same answers as the native build: --version, check's JSON on the fixture roots, explain on
# the corpus logs, ldd on an aarch64 library, dockerfile on the real Dockerfiles and Compose
# files (libyaml's arm64 build); and it keeps the glibc floor (docs/portability.md).
# CD_BIN: the native binary; CD_CROSS_BIN: the aarch64 one; CD_QEMU: the emulator.

setup_file() {
	FX="$BATS_FILE_TMPDIR/fx"
	"$BATS_TEST_DIRNAME/../e2e/sysfixtures.sh" "$FX"
	export FX
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	X="${CD_CROSS_BIN:?set CD_CROSS_BIN}"
	Q="${CD_QEMU:-qemu-aarch64-static}"
}

@test "aarch64: an aarch64 executable within the glibc floor" {
	run file -L "$X"
	[[ "$output" == *"ARM aarch64"* ]]
	"$BATS_TEST_DIRNAME/../../scripts/glibc-floor.sh" "$X" 2.28
}

@test "aarch64: --version" {
	run "$Q" "$X" --version
	[ "$status" -eq 0 ]
	[ "$output" = "$("$CD" --version)" ]
}

@test "aarch64: check's JSON on the fixture roots is the native one" {
	for r in complete conda pip two headers broken docker empty wrapper; do
		a=$(env -i PATH=/usr/bin:/bin HOME=/nonexistent "$Q" "$X" --root "$FX/$r" check --json) || [ $? -eq 1 ]
		b=$(env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" --root "$FX/$r" check --json) || [ $? -eq 1 ]
		[ "$a" = "$b" ] || { echo "root $r differs"; diff <(echo "$a") <(echo "$b") | head -20; return 1; }
	done
}

@test "aarch64: explain on the corpus logs is the native one" {
	n=0
	for log in $(find "$BATS_TEST_DIRNAME/../corpus/test" -name '*.log' | sort | head -40); do
		a=$("$Q" "$X" explain --no-env --json "$log") || [ $? -eq 1 ]
		b=$("$CD" explain --no-env --json "$log") || [ $? -eq 1 ]
		[ "$a" = "$b" ] || { echo "$log differs"; diff <(echo "$a") <(echo "$b") | head -20; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 20 ]
}

@test "aarch64: ldd of an aarch64 library is the native one" {
	lib=$(find /usr/lib/aarch64-linux-gnu -maxdepth 1 -name 'libhs.so.5*' -type f | head -1)
	[ -n "$lib" ] || skip "no aarch64 libhs.so.5 installed"
	a=$("$Q" "$X" ldd --json "$lib") || [ $? -eq 1 ]
	b=$("$CD" ldd --json "$lib") || [ $? -eq 1 ]
	[ "$a" = "$b" ]
}

@test "aarch64: dockerfile's JSON on the real Dockerfiles and Compose files is the native one" {
	n=0
	for f in "$BATS_TEST_DIRNAME"/../e2e/dockerfiles/*; do
		case ${f##*/} in EXPECTED.tsv | SOURCES.tsv) continue ;; esac
		a=$("$Q" "$X" --format json dockerfile "$f") || [ $? -eq 1 ]
		b=$("$CD" --format json dockerfile "$f") || [ $? -eq 1 ]
		[ "$a" = "$b" ] || { echo "$f differs"; diff <(echo "$a") <(echo "$b") | head -20; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 30 ]
}
