#!/usr/bin/env bats
# Symbolic-link environments (issue 16, item 10): a venv whose site-packages
# is a `cp -rs` copy of another (real directories, every file a link to the
# original file), as Nix and Bazel runfiles trees, `uv --link-mode=symlink` and
# copies of venvs are. glibc expands $ORIGIN to the directory of the path an
# object was opened by, never its real path, so a library missing from the
# copy is missing for `import torch` even though the original tree beside it
# has it; `check` replays the import on the same resolution as `ldd`. The
# fixture is torch's wheel layout of stacklibs_fixtures.bash. The tests where
# torch/_C stands in for a Python that is a wrapper script (as Nix's and
# Bazel's are) failed before the fix: check found libtorch_cuda.so in the
# original tree and reported nothing.

load stacklibs_fixtures

C_SITE=/opt/copy/.venv/lib/python3.12/site-packages
O_SITE=/opt/torch/.venv/lib/python3.12/site-packages
C_EXT=_C.cpython-312-x86_64-linux-gnu.so

setup_file() {
	T="$BATS_FILE_TMPDIR/template"
	S="$BATS_FILE_TMPDIR/src"
	mkdir -p "$S"
	fx_sources "$S"
	make_torch_root "$T" "$S"
	export T S
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	R="$BATS_TEST_TMPDIR/root"
	cp -a "$T" "$R"
}

# copy_venv: /opt/copy/.venv as `python -m venv` makes it, its site-packages
# a `cp -rs` copy of the fixture venv's. cp -rs writes each target as this
# machine's path of the file; under --root an absolute target restarts at the
# root, so each is rewritten to the in-root path it names.
copy_venv() {
	local v=$R/opt/copy/.venv l t
	mkdir -p "$v/bin" "$v/lib/python3.12"
	ln -s /usr/bin/python3.12 "$v/bin/python3"
	ln -s python3 "$v/bin/python"
	ln -s lib "$v/lib64"
	sed 's|/opt/torch/.venv|/opt/copy/.venv|' "$R/opt/torch/.venv/pyvenv.cfg" >"$v/pyvenv.cfg"
	cp -rs "$R$O_SITE" "$v/lib/python3.12/"
	while IFS= read -r -d '' l; do
		t=$(readlink "$l")
		ln -sfn "${t#"$R"}" "$l"
	done < <(find "$v/lib/python3.12/site-packages" -type l -print0)
	[ -L "$R$C_SITE/torch/lib/libtorch_cuda.so" ]
	[ -f "$R$O_SITE/torch/lib/libtorch_cuda.so" ]
}

# wrapper_python VENV: its bin/python3 a shell script that execs the
# interpreter, as Nix's wrapped Python and Bazel's launchers are; cuda-doctor
# cannot read it as ELF, so torch/_C stands in for the program.
wrapper_python() {
	rm -f "$R/opt/$1/.venv/bin/python3"
	printf '#!/bin/sh\nexec /usr/bin/python3.12 "$@"\n' >"$R/opt/$1/.venv/bin/python3"
	chmod +x "$R/opt/$1/.venv/bin/python3"
}

# cdj VENV: `check --json` on the fixture with VENV's python first on PATH.
cdj() {
	env -i PATH="/opt/$1/.venv/bin:/usr/bin" HOME=/nonexistent VIRTUAL_ENV="/opt/$1/.venv" \
		"$CD" --root "$R" check --json
}

# missing_cuda: the copy without torch/lib/libtorch_cuda.so, the original intact.
missing_cuda() {
	rm "$R$C_SITE/torch/lib/libtorch_cuda.so"
	[ -f "$R$O_SITE/torch/lib/libtorch_cuda.so" ]
}

# expect_missing JSON: lib-missing (error) names libtorch_cuda.so, needed in
# the copy; no library resolved into the original tree.
expect_missing() {
	local f
	f=$(jq -c '[.findings[] | select(.id == "lib-missing")]' <<<"$1")
	[ "$(jq length <<<"$f")" -eq 1 ]
	[ "$(jq -r '.[0].severity' <<<"$f")" = error ]
	[ "$(jq -r '.[0].title' <<<"$f")" = \
		"libtorch_cuda.so, needed by $C_SITE/torch/lib/libtorch_python.so, is found by no rule of the loader" ]
	[ "$(jq -r '[.libraries.not_found[] | select(.name == "libtorch_cuda.so") | .requested_by] | join(" ")' <<<"$1")" = \
		"$C_SITE/torch/lib/libtorch_python.so" ]
	[ "$(jq -r --arg o "$O_SITE/" '[.libraries.items[].path | select(startswith($o))] | length' <<<"$1")" -eq 0 ]
}

# expect_ldd_missing: ldd on the copy's torch/_C says "not found", exit 1.
expect_ldd_missing() {
	run "$CD" --root "$R" ldd "$C_SITE/torch/$C_EXT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"libtorch_cuda.so not found (cannot open shared object file: No such file or directory)"* ]]
	run "$CD" --root "$R" ldd --json "$C_SITE/torch/$C_EXT"
	[ "$status" -eq 1 ]
	[ "$(jq -r '[.needs[] | select(.name == "libtorch_cuda.so") | .path // "null"] | unique | join(" ")' <<<"$output")" = null ]
}

@test "cp -rs copy of a venv without libtorch_cuda.so: check says lib-missing, as ldd does (Python an ELF program)" {
	copy_venv
	missing_cuda
	run cdj copy
	[ "$status" -eq 1 ]
	[ "$(jq -r .libraries.program <<<"$output")" = /usr/bin/python3.12 ]
	expect_missing "$output"
	expect_ldd_missing
}

@test "cp -rs copy of a venv without libtorch_cuda.so: check says lib-missing, as ldd does (torch/_C standing in for a wrapper script)" {
	copy_venv
	wrapper_python copy
	missing_cuda
	run cdj copy
	[ "$status" -eq 1 ]
	[ "$(jq -r .libraries.program <<<"$output")" = null ]
	[ "$(jq -r '.libraries.items[] | select(.rule == "main") | .path' <<<"$output")" = "$C_SITE/torch/$C_EXT" ]
	expect_missing "$output"
	expect_ldd_missing
}

# same_as_original: the copy's report is the original venv's, with the copy's
# paths: the same findings, the same libraries by the same rules with the
# same versions and owners, each opened in the copy and reported with its
# real path in the original tree.
same_as_original() {
	local o c
	o=$(cdj torch)
	c=$(cdj copy)
	[ "$(jq -c '[.findings[].id]' <<<"$c")" = "$(jq -c '[.findings[].id]' <<<"$o")" ]
	[ "$(jq -c '[.libraries.not_found[].name]' <<<"$c")" = "$(jq -c '[.libraries.not_found[].name]' <<<"$o")" ]
	[ "$(jq -r '[.libraries.items[] | .rule + " " + .path] | join("\n")' <<<"$c")" = \
		"$(jq -r '[.libraries.items[] | .rule + " " + .path] | join("\n")' <<<"$o" | sed "s|^\([a-z_]*\) /opt/torch/|\1 /opt/copy/|")" ]
	[ "$(jq -r --arg c "$C_SITE/" '.libraries.program as $p |
		[.libraries.items[] | select(.path != $p and (.path | startswith($c) | not))] | length' <<<"$c")" -eq 0 ]
	# owners and versions: the copy's own RECORD rows name its links
	[ "$(jq -c '[.libraries.items[] | [.soname, .version, .version_source, .owner]]' <<<"$c")" = \
		"$(jq -c '[.libraries.items[] | [.soname, .version, .version_source, .owner]]' <<<"$o")" ]
	[ "$(jq -c '.torch | [.cudnn_version, .nccl_version, .cuda_runtime_version]' <<<"$c")" = \
		'["9.19.0.56","2.28.9","13.0.96"]' ]
	[ "$(jq -r '.libraries.items[] | select(.soname == "libtorch_cuda.so") | .realpath' <<<"$c")" = \
		"$O_SITE/torch/lib/libtorch_cuda.so" ]
	[ "$(jq -r '[.findings[] | select(.severity == "error")] | length' <<<"$c")" -eq 0 ]
	[ "$(jq -r '[.findings[].id | select(startswith("lib-missing") or startswith("lib-shadowed"))] | length' <<<"$c")" -eq 0 ]
}

@test "the unbroken cp -rs copy resolves inside the copy, as the original venv does (Python an ELF program)" {
	copy_venv
	same_as_original
}

@test "the unbroken cp -rs copy resolves inside the copy, as the original venv does (torch/_C standing in)" {
	copy_venv
	wrapper_python copy
	wrapper_python torch
	same_as_original
}
