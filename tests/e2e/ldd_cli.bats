#!/usr/bin/env bats
# cuda-doctor ldd: command line, exit codes, output formats, --root, and a
# golden text/JSON rendering of a small graph built under a fake root.

load helpers/ldd_graphs

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	T="$BATS_TEST_TMPDIR"
	GOLD="$BATS_TEST_DIRNAME/golden"
	unset LD_LIBRARY_PATH LD_PRELOAD
}

# A graph under $T/root, seen through --root: paths in the output are in-root,
# so they do not depend on the temporary directory.
mkroot() {
	command -v gcc >/dev/null || skip "gcc is not installed"
	[ "$(uname -m)" = x86_64 ] || skip "the golden files are for x86-64"
	R="$T/root"
	mkdir -p "$R/lib/x86_64-linux-gnu" "$R/etc"
	mk "$R/usr/lib/x86_64-linux-gnu/libdef.so.1" -Wl,-soname,libdef.so.1
	mk "$R/app/lib/libb.so" -Wl,-soname,libb.so $(needs "$R/usr/lib/x86_64-linux-gnu/libdef.so.1")
	mk "$R/app/lib/liba.so" -Wl,-soname,liba.so \
		$(needs "$R/app/lib/libb.so" "$R/usr/lib/x86_64-linux-gnu/libdef.so.1")
	mk "$R/app/plug/libplug.so" -Wl,-soname,libplug.so
	mk "$T/gone/libmissing.so" -Wl,-soname,libmissing.so
	mk "$R/app/bin/main.so" -Wl,-soname,libmain.so.1 -Wl,--disable-new-dtags \
		-Wl,-rpath,'$ORIGIN/../lib' $(needs "$R/app/lib/liba.so" "$T/gone/libmissing.so")
}

@test "ldd: usage errors exit 2 with a clear message" {
	run "$CD" ldd
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing FILE"* ]]
	run "$CD" ldd /nonexistent/libx.so
	[ "$status" -eq 2 ]
	[[ "$output" == *"/nonexistent/libx.so"*"No such file"* ]]
	printf 'not an elf file at all\n' >"$T/text.so"
	run "$CD" ldd "$T/text.so"
	[ "$status" -eq 2 ]
	[[ "$output" == *"text.so: not an ELF object"* ]]
	run "$CD" ldd "$T"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a regular file"* ]]
	run "$CD" ldd /bin/sh /bin/ls
	[ "$status" -eq 2 ]
	run "$CD" ldd --frobnicate /bin/sh
	[ "$status" -eq 2 ]
	[[ "$output" == *"--frobnicate"* ]]
	run "$CD" ldd /bin/sh --dlopen
	[ "$status" -eq 2 ]
}

@test "ldd: --help describes the command" {
	run "$CD" ldd --help
	[ "$status" -eq 0 ]
	[[ "$output" == "cuda-doctor ldd -"* ]]
	[[ "$output" == *"--ld-library-path"* ]]
}

@test "ldd: a file without device code has empty arch lists and fatbin null" {
	run "$CD" ldd --json /bin/sh
	[ "$status" -eq 0 ]
	[ "$(jq -r .schema <<<"$output")" = cuda-doctor.ldd/1 ]
	[ "$(jq -r '.archs.sass | length' <<<"$output")" = 0 ]
	[ "$(jq -r .fatbin <<<"$output")" = null ]
	[ "$(jq -r '.not_found | length' <<<"$output")" = 0 ]
}

@test "ldd: golden text under --root; exit 1 for the missing need" {
	mkroot
	run "$CD" --root "$R" ldd /app/bin/main.so
	[ "$status" -eq 1 ]
	diff -u "$GOLD/ldd_root.txt" - <<<"$output"
	run "$CD" --root "$R" ldd -v /app/bin/main.so
	diff -u "$GOLD/ldd_root_v.txt" - <<<"$output"
}

@test "ldd: golden JSON under --root" {
	mkroot
	run "$CD" ldd --json /app/bin/main.so --root "$R"
	[ "$status" -eq 1 ]
	jq -S 'del(.root)' <<<"$output" | diff -u "$GOLD/ldd_root.json" -
	[ "$(jq -r .root <<<"$output")" = "$(cd "$R" && pwd -P)" ]
}

@test "ldd: --ld-library-path, --preload and --dlopen" {
	mkroot
	mkdir -p "$R/elsewhere" && cp "$T/gone/libmissing.so" "$R/elsewhere/"
	run "$CD" --root "$R" ldd --json --ld-library-path /elsewhere /app/bin/main.so
	[ "$status" -eq 0 ]
	[ "$(jq -r '.needs[] | select(.name == "libmissing.so") | .rule' <<<"$output")" = ld_library_path ]
	[ "$(jq -c .loader.ld_library_path <<<"$output")" = '["/elsewhere"]' ]
	# LD_LIBRARY_PATH in the environment is the default; the option replaces it.
	run env LD_LIBRARY_PATH=/elsewhere "$CD" --root "$R" ldd --json /app/bin/main.so
	[ "$status" -eq 0 ]
	run env LD_LIBRARY_PATH=/elsewhere "$CD" --root "$R" ldd --ld-library-path= --json /app/bin/main.so
	[ "$status" -eq 1 ]
	run "$CD" --root "$R" ldd --json --preload /elsewhere/libmissing.so /app/bin/main.so
	[ "$status" -eq 0 ]
	[ "$(jq -r '.needs[0] | "\(.kind) \(.rule) \(.path)"' <<<"$output")" = "preload preload /elsewhere/libmissing.so" ]
	run "$CD" --root "$R" ldd --json --dlopen /app/plug/libplug.so --dlopen libnothere.so /app/bin/main.so
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.needs[] | select(.kind == "dlopen") | .rule // "null"] | join(",")' <<<"$output")" = "path,null" ]
	[ "$(jq -r '.not_found | join(",")' <<<"$output")" = "libmissing.so,libnothere.so" ]
}

@test "ldd: markdown wraps the text report" {
	mkroot
	run "$CD" --root "$R" --format markdown ldd /app/bin/main.so
	[ "${lines[0]}" = "## cuda-doctor ldd" ]
	[[ "$output" == *'```text'* ]]
	[[ "$output" == *"libmissing.so not found"* ]]
}

@test "ldd: --no-archs leaves archs and fatbin null" {
	run "$CD" ldd --json --no-archs /bin/sh
	[ "$status" -eq 0 ]
	[ "$(jq -r '.archs, .fatbin' <<<"$output" | sort -u)" = null ]
	run "$CD" ldd --no-archs /bin/sh
	[[ "$output" != *"cuda"* ]]
}
