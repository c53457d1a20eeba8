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

@test "--root: a header outside the toolkit probe's inventory is looked for by the probe" {
	R="$T/root"
	mkdir -p "$R/usr/local/cuda-12.1/targets/x86_64-linux/include" "$R/usr/local/cuda-12.4/include/cub"
	touch "$R/usr/local/cuda-12.1/targets/x86_64-linux/include/cuda_bf16.h" \
		"$R/usr/local/cuda-12.4/include/cuda_bf16.h" "$R/usr/local/cuda-12.4/include/cub/cub.cuh"
	printf '%s\n' 'x.cpp:1:10: fatal error: cuda_bf16.h: No such file or directory' \
		'y.cu:2:10: fatal error: cub/cub.cuh: No such file or directory' >"$T/x.log"
	run env CUDA_HOME=/usr/local/cuda-12.1 "$CD" --root "$R" --json explain "$T/x.log"
	[ "$status" -eq 1 ]
	env0=$(jq -c '.diagnoses[] | select(.facts.header == "cuda_bf16.h") | .environment' <<<"$output")
	jq -e 'index("cuda_bf16.h is present in /usr/local/cuda-12.4/include/cuda_bf16.h") != null' <<<"$env0"
	# the copy under targets/ is nvcc's alone: the C++ compile of x.cpp cannot see it
	jq -e 'index("cuda_bf16.h is absent from /usr/local/cuda-12.1/include; it is at /usr/local/cuda-12.1/targets/x86_64-linux/include/cuda_bf16.h (nvcc searches it, the C++ compiler of an extension build does not)") != null' <<<"$env0"
	env1=$(jq -c '.diagnoses[] | select(.facts.header == "cub/cub.cuh") | .environment' <<<"$output")
	jq -e 'index("cub/cub.cuh is absent from /usr/local/cuda-12.1/include") != null' <<<"$env1"
	jq -e 'index("cub/cub.cuh is present in /usr/local/cuda-12.4/include/cub/cub.cuh") != null' <<<"$env1"
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

@test "run: a command that is missing or not executable: 127 or 126, and why, on stderr" {
	run -127 --separate-stderr "$CD" run --no-env -- /nonexistent/command
	[ "$status" -eq 127 ]
	[ "${stderr_lines[0]}" = "cuda-doctor run: /nonexistent/command: No such file or directory" ]
	printf 'echo hi\n' >"$T/noexec"
	chmod 644 "$T/noexec"
	run -126 --separate-stderr "$CD" run --no-env -- "$T/noexec"
	[ "$status" -eq 126 ]
	[ "${stderr_lines[0]}" = "cuda-doctor run: $T/noexec: Permission denied" ]
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

@test "a PowerShell redirect (UTF-16LE with a BOM) and UTF-16BE are read as text" {
	printf 'loading model\r\nRuntimeError: CUDA error: no kernel image is available for execution on the device\r\n' >"$T/utf8"
	{ printf '\377\376'; iconv -f UTF-8 -t UTF-16LE "$T/utf8"; } >"$T/le"
	iconv -f UTF-8 -t UTF-16BE "$T/utf8" >"$T/be"
	for f in le be; do
		run "$CD" --json explain --no-env "$T/$f"
		[ "$status" -eq 1 ]
		echo "$output" | jq -e '.diagnoses[0].signature == "no-kernel-image" and .diagnoses[0].line == 2 and .inputs[0].lines == 2'
	done
}

@test "lines ended by a carriage return alone are lines" {
	printf 'one\rtwo\rRuntimeError: CUDA error: no kernel image is available for execution on the device\r' >"$T/cr"
	run "$CD" --json explain --no-env "$T/cr"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].line == 3 and .inputs[0].lines == 3'
}

@test "several failures among 10 MB lines and an ANSI flood: bounded, root cause first" {
	{
		head -c 10485760 /dev/zero | tr '\0' x
		printf '\n'
		for _ in $(seq 20000); do printf '\033[1;31m\033[0m\033[2K\r'; done
		printf 'ImportError: /home/x/DCNv2/_ext.cpython-36m-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationERKSs\n'
		head -c 10485760 /dev/zero | tr '\0' y
		printf '\nRuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked against (8, 0, 3)\n'
	} >"$T/mixed"
	run /usr/bin/time -f 'maxrss=%M elapsed=%e' -o "$T/rss" "$CD" --json explain --no-env "$T/mixed"
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.diagnoses[0].category == "lib-path-pollution" and .diagnoses[1].category == "undefined-symbol" and .summary.long_lines >= 2'
	cat "$T/rss"
	rss=$(sed -n 's/^maxrss=\([0-9]*\).*/\1/p' "$T/rss")
	[ "$rss" -lt 65536 ]
	rm -f "$T/mixed"
}

@test "never silent: a failure no signature knows names the lines that look like it" {
	printf 'step 1\nTraceback (most recent call last):\n  File "x.py", line 3, in <module>\n    raise ValueError("the frobnicator exploded")\nValueError: the frobnicator exploded\nprocess exited with code 1\n' >"$T/odd"
	# --no-guess: the diagnosis of last resort itself (explain_guess.bats has the guess)
	run "$CD" --json explain --no-env --no-guess "$T/odd"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses[0].category == "unknown" and .diagnoses[0].line == 5 and .diagnoses[0].root_cause == false and .summary.causes == 0'
	echo "$output" | jq -e '[.diagnoses[0].candidates[].line] == [2, 3, 5, 6]'
	run "$CD" explain --no-env --no-guess "$T/odd"
	[[ "$output" == *"no known failure found, but lines that look like one"* ]]
	[[ "$output" == *"5: ValueError: the frobnicator exploded"* ]]
	[[ "$output" == *"cuda-doctor check"* ]]
	printf 'epoch 1 loss 0.3\nepoch 2 loss 0.2\n' >"$T/fine"
	run "$CD" --json explain --no-env "$T/fine"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses == []'
}

@test "never silent: a traceback cut at both ends (frames only) is still a failure" {
	# markdown-quoted frames, as a pasted excerpt has them, and plain ones
	printf '%s\n' '  `File "/srv/app/run.py", line 9, in <module>`' '   ` main()`' \
		'  File "/srv/app/run.py", line 5, in main' '    baton.wait()' >"$T/cut"
	run "$CD" --json explain --no-env --no-guess "$T/cut"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses[0].category == "unknown" and ([.diagnoses[0].candidates[].line] == [1, 3])'
	# a path and a line number in other words is no frame
	printf '%s\n' 'Using File "/srv/app/run.py" at line 9' 'saved file /srv/out, line count 3' >"$T/notframe"
	run "$CD" --json explain --no-env --no-guess "$T/notframe"
	echo "$output" | jq -e '.diagnoses == []'
}

@test "healthy output (tests/fixtures/healthy) is no failure: no error or warning diagnosis, exit 0" {
	n=0
	for f in "$BATS_TEST_DIRNAME"/../fixtures/healthy/*.log; do
		run "$CD" --json explain --no-env "$f"
		[ "$status" -eq 0 ] || { echo "$f: exit $status"; false; }
		bad=$(jq -r '[.diagnoses[] | select(.severity != "info") | .signature] | join(",")' <<<"$output")
		[ -z "$bad" ] || { echo "$f: $bad"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 10 ]
}

@test "a benign line (collect_env's Could not collect) is never a line of last resort" {
	printf '%s\n' 'Clang version: Could not collect' 'worker: could not reach the frobnicator' \
		'[conda] Could not collect' >"$T/benign"
	run "$CD" --json explain --no-env --no-guess "$T/benign"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses[0].category == "unknown" and ([.diagnoses[0].candidates[].line] == [2])'
	printf '%s\n' 'GPU models and configuration: Could not collect' 'cuDNN version: Could not collect' >"$T/benign2"
	run "$CD" --json explain --no-env "$T/benign2"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses == []'
}

@test "never silent: a Python warning that names the GPU stack is a line of last resort, other warnings are not" {
	printf '%s\n' 'step 1' '/x/site-packages/frob/gpu.py:12: UserWarning: the frobnicator found no CUDA device it likes' 'step 2' >"$T/warn"
	run "$CD" --json explain --no-env --no-guess "$T/warn"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses[0].category == "unknown" and .diagnoses[0].line == 2'
	printf '%s\n' 'step 1' '/x/site-packages/frob/io.py:3: FutureWarning: frob.load is deprecated' >"$T/warn2"
	run "$CD" --json explain --no-env "$T/warn2"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.diagnoses == []'
}

@test "a compute capability from the GPU a log names (data/gpu_models.tsv), the nearest line first, for its categories only" {
	printf '%s\n' 'GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-1b2c)' \
		'RuntimeError: CUDA error: no kernel image is available for execution on the device' >"$T/m1"
	run "$CD" --json explain --no-env "$T/m1"
	echo "$output" | jq -e '.diagnoses[0].signature == "no-kernel-image" and .diagnoses[0].facts.cc == "12.0" and .diagnoses[0].fact_lines.cc == 1'
	# nvidia-smi's table, another case; a capability line nearer than the name wins
	printf '%s\n' '|   0  TESLA T4                       Off |' 'CUDA Capability Major/Minor version number:    8.6' \
		'RuntimeError: CUDA error: no kernel image is available for execution on the device' >"$T/m2"
	run "$CD" --json explain --no-env "$T/m2"
	echo "$output" | jq -e '.diagnoses[0].facts.cc == "8.6"'
	head -1 "$T/m2" >"$T/m3" && tail -1 "$T/m2" >>"$T/m3"
	run "$CD" --json explain --no-env "$T/m3"
	echo "$output" | jq -e '.diagnoses[0].facts.cc == "7.5"'
	# a category whose key fact is not the capability takes none
	printf '%s\n' 'GPU 0: NVIDIA A100-SXM4-40GB' \
		'ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory' >"$T/m4"
	run "$CD" --json explain --no-env "$T/m4"
	echo "$output" | jq -e '.diagnoses[0].category == "missing-shared-lib" and .diagnoses[0].facts.cc == null'
}

@test "a compute capability from the lines around needs X.Y or sm_XY: a bare number of an nvidia-smi csv is not one, Paddle's typed digits are" {
	printf '%s\n' 'NVIDIA GeForce MX250, 45, 350.00 W' \
		'RuntimeError: CUDA error: no kernel image is available for execution on the device' >"$T/csv1"
	run "$CD" --json explain --no-env "$T/csv1"
	echo "$output" | jq -e '.diagnoses[0].signature == "no-kernel-image" and (.diagnoses[0].facts.cc == null)'
	printf '%s\n' 'NVIDIA GeForce RTX 3090, 8.6, 24576 MiB' \
		'RuntimeError: CUDA error: no kernel image is available for execution on the device' >"$T/csv2"
	run "$CD" --json explain --no-env "$T/csv2"
	echo "$output" | jq -e '.diagnoses[0].facts.cc == "8.6"'
	# a tool that writes the capability as its digits, typed {cc:int} by its pattern
	printf '%s\n' 'W0404 16:40:48.365986 14840 device_context.cc:237] Please NOTE: device: 0, CUDA Capability: 61, Driver API Version: 10.1, Runtime API Version: 10.0' \
		'RuntimeError: CUDA error: no kernel image is available for execution on the device' >"$T/paddle"
	run "$CD" --json explain --no-env "$T/paddle"
	echo "$output" | jq -e '.diagnoses[0].facts.cc == "6.1"'
}
