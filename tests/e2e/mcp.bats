#!/usr/bin/env bats
# `cuda-doctor mcp`: the Model Context Protocol over stdio. Recorded exchanges
# (mcp/NAME.in, the answers expected line by line in mcp/NAME.out, the
# version as @VERSION@): a session (initialize and version negotiation,
# notifications never answered, ping, an unknown method, a tool's usage error)
# and malformed requests (not JSON, truncated, batches, wrong jsonrpc or id,
# duplicate keys, bad params and arguments, CRLF, a last line without a
# newline). Then the tools' results against the command line's own JSON, an
# oversized request, and a client that closes early.

load model_helpers

setup_file() {
	FX="$BATS_FILE_TMPDIR/fx"
	"$BATS_TEST_DIRNAME/sysfixtures.sh" "$FX"
	export FX
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	M="$BATS_TEST_DIRNAME/mcp"
	VER=$("$CD" --version | cut -d' ' -f2)
}

# exchange NAME [GLOBAL OPTIONS...]: the recorded requests in, the recorded answers out.
exchange() {
	local name=$1
	shift
	env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" "$@" mcp <"$M/$name.in" |
		sed "s/\"version\":\"$VER\"/\"version\":\"@VERSION@\"/" >"$BATS_TEST_TMPDIR/$name.out"
	diff -u "$M/$name.out" "$BATS_TEST_TMPDIR/$name.out"
}

# cdx ARGS...: the command line in the server's clean environment.
cdx() { env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" "$@"; }

# call TOOL ARGS_JSON [GLOBAL OPTIONS...]: one tools/call; the result object.
call() {
	local tool=$1 args=$2
	shift 2
	jq -cn --arg t "$tool" --argjson a "$args" \
		'{jsonrpc:"2.0",id:1,method:"tools/call",params:{name:$t,arguments:$a}}' |
		env -i PATH=/usr/bin:/bin HOME=/nonexistent "$CD" "$@" mcp | jq -c .result
}

@test "a recorded session: initialize, version negotiation, notifications, ping" {
	exchange session
}

@test "recorded malformed requests get JSON-RPC errors and the server goes on" {
	exchange malformed
	# every line is answered but the empty one and the client's response (the
	# last line has no newline, so wc counts one line fewer)
	[ "$(($(wc -l <"$M/malformed.in") + 1))" -eq "$(($(wc -l <"$M/malformed.out") + 2))" ]
}

@test "tools/list: check, explain, model, jit with their input schemas; fix once it lands" {
	run bash -c "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}' | '$CD' mcp"
	[ "$status" -eq 0 ]
	local names
	names=$(jq -r '[.result.tools[].name] | join(",")' <<<"$output")
	if "$CD" fix --help | grep -q '^cuda-doctor fix \['; then
		[ "$names" = "check,explain,model,jit,fix" ]
	else
		[ "$names" = "check,explain,model,jit" ]
	fi
	[ "$(jq -c '.result.tools[] | select(.name=="model") | .inputSchema.required' <<<"$output")" = '["model"]' ]
	[ "$(jq -c '.result.tools[] | select(.name=="explain") | .inputSchema.required' <<<"$output")" = '["log"]' ]
	[ "$(jq '[.result.tools[].inputSchema.additionalProperties] | all(. == false)' <<<"$output")" = true ]
}

@test "check: the report equals check --json with the server's global options" {
	local res
	res=$(call check '{}' --root "$FX/broken")
	[ "$(jq .isError <<<"$res")" = false ]
	diff <(jq -S .structuredContent <<<"$res") \
		<(cdx --root "$FX/broken" check --json | jq -S .)
	diff <(jq -r '.content[0].text' <<<"$res" | jq -S .) <(jq -S .structuredContent <<<"$res")
}

@test "explain: the log goes in on stdin; the diagnoses equal explain --json" {
	local log='RuntimeError: CUDA error: no kernel image is available for execution on the device'
	local res
	res=$(call explain "$(jq -cn --arg l "$log" '{log:$l,no_env:true}')")
	[ "$(jq -r '.structuredContent.diagnoses[0].category' <<<"$res")" = arch-unsupported ]
	[ "$(jq -r '.structuredContent.inputs[0].name' <<<"$res")" = "(stdin)" ]
	diff <(jq -S .structuredContent <<<"$res") \
		<(printf '%s' "$log" | cdx explain --no-env --json - | jq -S .)
}

@test "model: options map to the command line; findings at error severity are not tool errors" {
	local root=$BATS_TEST_TMPDIR/r res
	mkdir -p "$root"
	tiny_model "$root/models/tiny"
	res=$(call model '{"model":"/models/tiny","gpu_memory":"1MiB","dtype":"fp16","seq_len":128}' --root "$root")
	[ "$(jq .isError <<<"$res")" = false ]
	[ "$(jq -r '.structuredContent.findings[] | select(.severity=="error") | .id' <<<"$res")" = model-too-large ]
	diff <(jq -S .structuredContent <<<"$res") \
		<(cdx --root "$root" model /models/tiny --gpu-memory 1MiB --dtype fp16 --seq-len 128 --json | jq -S .)
}

@test "jit: ops as an array" {
	local res
	res=$(call jit '{"ops":["fused_adam","cpu_adam"],"gpu_cc":"9.0"}' --root "$FX/empty")
	[ "$(jq .isError <<<"$res")" = false ]
	diff <(jq -S .structuredContent <<<"$res") \
		<(cdx --root "$FX/empty" jit --op fused_adam --op cpu_adam --gpu-cc 9.0 --json | jq -S .)
	res=$(call jit '{"ops":["no_such_op"]}' --root "$FX/empty")
	[ "$(jq .isError <<<"$res")" = true ]
	[[ "$(jq -r '.content[0].text' <<<"$res")" == *"exited 2: cuda-doctor jit: unknown op 'no_such_op'"* ]]
}

@test "an oversized request is refused; the next one is answered" {
	{
		printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"explain","arguments":{"log":"'
		head -c $((9 << 20)) /dev/zero | tr '\0' a
		printf '"}}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
	} >"$BATS_TEST_TMPDIR/big"
	run "$CD" mcp <"$BATS_TEST_TMPDIR/big"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request larger than 8 MiB"}}' ]
	[ "${lines[1]}" = '{"jsonrpc":"2.0","id":2,"result":{}}' ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "a large log under the cap goes through explain" {
	{
		head -c 1000000 /dev/zero | tr '\0' x
		printf '\nImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n'
	} >"$BATS_TEST_TMPDIR/log"
	jq -cn --rawfile l "$BATS_TEST_TMPDIR/log" \
		'{jsonrpc:"2.0",id:1,method:"tools/call",params:{name:"explain",arguments:{log:$l,no_env:true}}}' \
		>"$BATS_TEST_TMPDIR/req"
	run bash -c "'$CD' mcp <'$BATS_TEST_TMPDIR/req' | jq -r '.result.structuredContent.diagnoses[0].category, .result.structuredContent.inputs[0].bytes'"
	[ "${lines[0]}" = missing-shared-lib ]
	[ "${lines[1]}" = "$(wc -c <"$BATS_TEST_TMPDIR/log")" ]
}

@test "the server ends with stdin, also mid-line, and leaves no temporary files" {
	local tmp=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$tmp"
	run bash -c "printf '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"explain\",\"arguments\":{\"log\":\"x\",\"no_env\":true}}}\n{\"jsonrpc\"' | TMPDIR='$tmp' '$CD' mcp"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "$(jq .result.isError <<<"${lines[0]}")" = false ]
	[ "$(jq .error.code <<<"${lines[1]}")" = -32700 ]
	[ -z "$(ls -A "$tmp")" ]
	run "$CD" mcp extra
	[ "$status" -eq 2 ]
}
