#!/usr/bin/env bats
# `cuda-doctor explain` and `cuda-doctor run`, end to end: every signature's
# own sample, the JSON contract, exit codes, stdin, the environment
# cross-check under --root, run's pass-through and exit status, and hostile
# input (binary, NUL, invalid UTF-8, empty, a 100 MB line, an endless pipe).

bats_require_minimum_version 1.5.0

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	SIGS="$BATS_TEST_DIRNAME/../../data/signatures"
	T="$BATS_TEST_TMPDIR"
}

# id<TAB>category<TAB>first sample, one line per signature (a sample that
# continues on indented lines, a message over several lines, joined with blanks)
samples() {
	awk '
		function out() { if (cur != "") print id "\t" cat "\t" cur; cur = "" }
		cur != "" && /^[ \t]/ { sub(/^[ \t]+/, ""); cur = cur " " $0; next }
		{ out() }
		/^id: /       { id = substr($0, 5); got = 0 }
		/^category: / { cat = substr($0, 11) }
		/^sample: / && !got { cur = substr($0, 9); got = 1 }
		END { out() }
	' "$SIGS"/*.txt
}

@test "every signature's first sample is diagnosed as that signature (all 14 categories)" {
	local n=0 bad=0 cats
	while IFS=$'\t' read -r id cat line; do
		printf '%s\n' "$line" >"$T/one.log"
		got=$("$CD" --json explain --no-env "$T/one.log" |
			jq -r '.diagnoses[0] | .signature + " " + .category')
		if [ "$got" != "$id $cat" ]; then
			echo "$id: got '$got'"
			bad=$((bad + 1))
		fi
		n=$((n + 1))
	done < <(samples)
	cats=$(samples | cut -f2 | sort -u | wc -l)
	echo "$n signatures, $cats categories, $bad wrong"
	[ "$n" -ge 150 ]
	[ "$cats" -eq 14 ]
	[ "$bad" -eq 0 ]
}

@test "JSON output carries the contract keys" {
	printf '%s\n' 'x.h:1:1: fatal error: cusparse.h: No such file or directory' \
		'ninja: build stopped: subcommand failed.' >"$T/a.log"
	run "$CD" --json explain --no-env "$T/a.log"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.schema == "cuda-doctor.explain/1"'
	echo "$output" | jq -e '.diagnoses[0].category == "missing-headers"'
	echo "$output" | jq -e '.diagnoses[0].signature == "header-cusparse"'
	echo "$output" | jq -e '.diagnoses[0].severity == "error" and .diagnoses[0].role == "cause"'
	echo "$output" | jq -e '.diagnoses[0].root_cause == true and .diagnoses[0].line == 1'
	echo "$output" | jq -e '.diagnoses[0].lines == [1] and .diagnoses[0].count == 1'
	echo "$output" | jq -e '.diagnoses[0].facts.header == "cusparse.h"'
	echo "$output" | jq -e '(.diagnoses[0].explanation | length) > 20'
	echo "$output" | jq -e '(.diagnoses[0].fix | length) >= 1 and (.diagnoses[0].sources | length) >= 1'
	echo "$output" | jq -e '.diagnoses[0] | has("environment") and has("ranks") and has("text") and has("title")'
	echo "$output" | jq -e '.diagnoses[1].role == "symptom" and .diagnoses[1].line == 2'
	echo "$output" | jq -e '.summary.root_cause == "header-cusparse" and .summary.errors == true'
	echo "$output" | jq -e '.inputs[0].lines == 2 and .environment_checked == false'
}

@test "exit 1 on an error diagnosis, 0 with 'no known failure found'" {
	printf 'RuntimeError: No CUDA GPUs are available\n' >"$T/e.log"
	run "$CD" explain --no-env "$T/e.log"
	[ "$status" -eq 1 ]
	[[ "$output" == *"root cause"*"cuda-init"* ]]
	printf 'epoch 1 loss 0.5\nepoch 2 loss 0.4\n' >"$T/ok.log"
	run "$CD" explain --no-env "$T/ok.log"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no known failure found"* ]]
	run "$CD" --json explain --no-env "$T/ok.log"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses == [] and .summary.root_cause == null'
}

@test "a warning alone exits 0" {
	printf "%s\n" "Lock file exists in build directory: '/root/.cache/torch_extensions/py38_cu113/nvdiffrast_plugin/lock'" >"$T/w.log"
	run "$CD" --json explain --no-env "$T/w.log"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses[0].severity == "warning"'
}

@test "usage errors and unreadable inputs exit 2" {
	run "$CD" explain --no-env "$T/does-not-exist.log"
	[ "$status" -eq 2 ]
	run "$CD" explain --frobnicate
	[ "$status" -eq 2 ]
	run "$CD" run --log
	[ "$status" -eq 2 ]
	run "$CD" run
	[ "$status" -eq 2 ]
}

@test "reads stdin with '-' and when no file is given" {
	run bash -c "printf 'TypeError: Got unsupported ScalarType BFloat16\n' | '$CD' --json explain --no-env -"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].category == "dtype-unsupported" and .inputs[0].name == "(stdin)"'
	run bash -c "printf 'TypeError: Got unsupported ScalarType BFloat16\n' | '$CD' --json explain --no-env"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].signature == "numpy-bf16-unsupported"'
}

@test "several files: each diagnosis names its input and line" {
	printf 'ok\n' >"$T/1.log"
	printf 'ok\nok\nRuntimeError: CUDA error: invalid device ordinal\n' >"$T/2.log"
	run "$CD" --json explain --no-env "$T/1.log" "$T/2.log"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e --arg f "$T/2.log" '.diagnoses[0].input == $f and .diagnoses[0].line == 3'
	echo "$output" | jq -e '(.inputs | length) == 2'
}

@test "ranks, CRLF, colour codes and progress bars of a real multi-rank log" {
	printf '\033[31m[rank3]: RuntimeError: CUDA error: invalid device ordinal\033[0m\r\n' >"$T/r.log"
	printf 'Loading shards:  50%%|#####     | 1/2\r[rank1]: RuntimeError: CUDA error: invalid device ordinal\r\n' >>"$T/r.log"
	printf '[default0]:RuntimeError: CUDA error: invalid device ordinal\n' >>"$T/r.log"
	run "$CD" --json explain --no-env "$T/r.log"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '(.diagnoses | length) == 1'
	echo "$output" | jq -e '.diagnoses[0].ranks == [0,1,3] and .diagnoses[0].lines == [1,2,3]'
	echo "$output" | jq -e '.diagnoses[0].text | test("\u001b") | not'
}

@test "the root cause outranks its symptoms and the ImportError that follows" {
	cat >"$T/b.log" <<-'EOF'
		Using /root/.cache/torch_extensions/py310_cu121 as PyTorch extensions root...
		[1/3] /usr/local/cuda/bin/nvcc -c multi_tensor_adam.cu -o multi_tensor_adam.cuda.o
		/x/csrc/includes/type_shim.h:6:10: fatal error: cuda_bf16.h: No such file or directory
		ninja: build stopped: subcommand failed.
		[rank1]: subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.
		[rank1]: RuntimeError: Error building extension 'fused_adam'
		[rank0]: ImportError: /root/.cache/torch_extensions/py310_cu121/fused_adam/fused_adam.so: cannot open shared object file: No such file or directory
	EOF
	run "$CD" --json explain --no-env "$T/b.log"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].category == "missing-headers" and .diagnoses[0].line == 3'
	echo "$output" | jq -e '.diagnoses[0].facts.header == "cuda_bf16.h"'
	echo "$output" | jq -e '[.diagnoses[1:][] | .role] | all(. == "symptom")'
	echo "$output" | jq -e '.diagnoses[-1].severity == "info"'
}

@test "markdown output" {
	printf 'RuntimeError: No CUDA GPUs are available\n' >"$T/e.log"
	run "$CD" --format markdown explain --no-env "$T/e.log"
	[ "$status" -eq 1 ]
	[[ "$output" == "# cuda-doctor explain"* ]]
	[[ "$output" == *'`cuda-init`'* ]]
}

@test "--root: which toolkits have the missing header, where the missing library is" {
	R="$T/root"
	mkdir -p "$R/usr/local/cuda-12.1/include" "$R/usr/local/cuda-12.4/include" "$R/usr/local/cuda-12.4/lib64"
	touch "$R/usr/local/cuda-12.4/include/cusparse.h" "$R/usr/local/cuda-12.1/include/cuda_runtime.h"
	touch "$R/usr/local/cuda-12.4/lib64/libcudart.so.12"
	printf '%s\n' 'x.h:1:1: fatal error: cusparse.h: No such file or directory' \
		'ImportError: libcudart.so.12: cannot open shared object file: No such file or directory' >"$T/x.log"
	run env CUDA_HOME=/usr/local/cuda-12.1 LD_LIBRARY_PATH=/opt/lib "$CD" --root "$R" --json explain "$T/x.log"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.environment_checked == true'
	echo "$output" | jq -e '.diagnoses[0].environment | any(test("absent from /usr/local/cuda-12.1/include"))'
	echo "$output" | jq -e '.diagnoses[0].environment | any(test("present in /usr/local/cuda-12.4/include/cusparse.h"))'
	echo "$output" | jq -e '.diagnoses[0].environment | any(test("CUDA_HOME=/usr/local/cuda-12.1"))'
	echo "$output" | jq -e '.diagnoses[1].environment | any(test("libcudart.so.12 is present in /usr/local/cuda-12.4/lib64"))'
	echo "$output" | jq -e '.diagnoses[1].environment | any(test("LD_LIBRARY_PATH=/opt/lib"))'
}

# ---- run ----------------------------------------------------------------------

@test "run passes stdout and stderr through unchanged and in order, and keeps status 0" {
	run bash -c "'$CD' run -- sh -c 'for i in 1 2 3 4 5; do echo out\$i; echo err\$i >&2; done; printf tail' >'$T/o' 2>'$T/e'"
	[ "$status" -eq 0 ]
	[ "$(cat "$T/o")" = "$(printf 'out1\nout2\nout3\nout4\nout5\ntail')" ]
	[ "$(cat "$T/e")" = "$(printf 'err1\nerr2\nerr3\nerr4\nerr5')" ]
}

@test "run keeps the command's exit status and explains the failure on stderr" {
	run bash -c "'$CD' run --no-env -- sh -c 'echo RuntimeError: No CUDA GPUs are available >&2; exit 3' 2>'$T/e' >'$T/o'"
	[ "$status" -eq 3 ]
	[ ! -s "$T/o" ]
	head -1 "$T/e" | grep -qx 'RuntimeError: No CUDA GPUs are available'
	grep -q 'cuda-init' "$T/e"
	grep -q 'exited with status 3' "$T/e"
	run "$CD" run --no-env -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run "$CD" run --no-env -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	run -127 "$CD" run --no-env -- /nonexistent/command
	[ "$status" -eq 127 ]
}

@test "run --json writes the diagnosis as JSON on stderr with the exit status" {
	run bash -c "'$CD' --json run --no-env -- sh -c 'echo TypeError: Got unsupported ScalarType BFloat16; exit 1' 2>'$T/e' >/dev/null"
	[ "$status" -eq 1 ]
	jq -e '.command == "run" and .exit_status == 1 and .diagnoses[0].category == "dtype-unsupported"' "$T/e"
}

@test "run --log keeps a copy of both streams" {
	run "$CD" run --no-env --log "$T/copy.log" -- sh -c 'echo one; echo two >&2; echo three'
	[ "$status" -eq 0 ]
	grep -qx one "$T/copy.log"
	grep -qx two "$T/copy.log"
	grep -qx three "$T/copy.log"
	[ "$(wc -l <"$T/copy.log")" -eq 3 ]
}

# ---- hostile input ------------------------------------------------------------

@test "binary input, NUL bytes and invalid UTF-8 give valid output" {
	head -c 2000000 /dev/urandom >"$T/bin"
	run "$CD" --json explain --no-env "$T/bin"
	[ "$status" -le 1 ]
	echo "$output" | jq -e '.inputs[0].bytes == 2000000'
	printf '\0\0\377\376garbage\n\377\0RuntimeError: No CUDA GPUs are available\0\300\n' >"$T/nul"
	run "$CD" --json explain --no-env "$T/nul"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].signature == "no-cuda-gpus" and .diagnoses[0].line == 2'
	printf '\303(\240\241 fatal error: \377\376.h: No such file or directory\n' >"$T/utf"
	run "$CD" --json explain --no-env "$T/utf"
	echo "$output" | jq -e '.diagnoses | length >= 0'
}

@test "an empty file" {
	: >"$T/empty"
	run "$CD" --json explain --no-env "$T/empty"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.inputs[0].lines == 0 and .diagnoses == []'
}

@test "a 100 MB single line: found, bounded memory" {
	{ head -c 104857600 /dev/zero | tr '\0' x; printf ' fatal error: cusparse.h: No such file or directory\n'; } >"$T/long"
	run /usr/bin/time -f 'maxrss=%M' -o "$T/rss" "$CD" --json explain --no-env "$T/long"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].facts.header == "cusparse.h" and .summary.long_lines >= 1'
	rss=$(sed -n 's/^maxrss=//p' "$T/rss")
	echo "max RSS ${rss} KiB"
	[ "$rss" -lt 65536 ]
	rm -f "$T/long"
}

@test "explain - on an endless stream stays bounded in memory" {
	run bash -c "yes 'RuntimeError: CUDA error: invalid device ordinal' | /usr/bin/time -f 'maxrss=%M' -o '$T/rss' timeout 4 '$CD' explain --no-env - >/dev/null"
	rss=$(sed -n 's/^maxrss=//p' "$T/rss")
	echo "max RSS ${rss} KiB"
	[ -n "$rss" ]
	[ "$rss" -lt 65536 ]
}

@test "run on an endless, never-ending line stays bounded in memory" {
	run bash -c "/usr/bin/time -f 'maxrss=%M' -o '$T/rss' timeout 4 '$CD' run --no-env -- sh -c 'while :; do printf xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx; done' >/dev/null"
	rss=$(sed -n 's/^maxrss=//p' "$T/rss")
	echo "max RSS ${rss} KiB"
	[ -n "$rss" ]
	[ "$rss" -lt 65536 ]
}
