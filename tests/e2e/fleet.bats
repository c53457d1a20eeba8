#!/usr/bin/env bats
# check's fleet fields: the host name, the fingerprint (docs/json.md "fleet"),
# nothing time-varying unless --volatile, and -o FILE written atomically.

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	T=$BATS_TEST_TMPDIR
}

# node NAME HOST: a root whose /etc/hostname is HOST.
node() {
	mkdir -p "$T/$1/etc"
	echo "$2" >"$T/$1/etc/hostname"
}

# report NAME MODE [ARGS...]: check --json of root NAME with the fake driver in MODE.
report() {
	local name=$1 mode=$2
	shift 2
	env -i PATH=/usr/bin:/bin HOME=/nonexistent CD_FAKE_MODE="$mode" "$CD" --root "$T/$name" \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" --timeout 5 \
		check --json "$@"
}

@test "fleet: the report names the host and a sha256 fingerprint right after tool" {
	node a gpu017
	run report a ok
	[ "$status" -le 1 ]
	[ "$(jq -r '.fleet.hostname' <<<"$output")" = gpu017 ]
	[ "$(jq -r '.host.hostname' <<<"$output")" = gpu017 ]
	[[ "$(jq -r '.fleet.fingerprint' <<<"$output")" =~ ^sha256:[0-9a-f]{64}$ ]]
	[ "$(jq -r '.fleet.volatile' <<<"$output")" = false ]
	[ "$(jq -r 'keys_unsorted[0:3] | join(",")' <<<"$output")" = schema,tool,fleet ]
}

@test "fleet: two runs on one node are byte-identical" {
	node a gpu017
	report a ok >"$T/1.json" || [ $? -le 1 ]
	report a ok >"$T/2.json" || [ $? -le 1 ]
	cmp "$T/1.json" "$T/2.json"
}

@test "fleet: identical nodes share the fingerprint and differ only in identity keys" {
	node a gpu017
	node b gpu233
	report a ok >"$T/a.json" || [ $? -le 1 ]
	report b ok >"$T/b.json" || [ $? -le 1 ]
	[ "$(jq -r .fleet.fingerprint "$T/a.json")" = "$(jq -r .fleet.fingerprint "$T/b.json")" ]
	# Only the host name (twice) and the root directory differ.
	run diff "$T/a.json" "$T/b.json"
	[ "$status" -eq 1 ]
	[ "$(grep -c '^>' <<<"$output")" -eq 3 ]
	[[ "$output" == *'"hostname": "gpu233"'* ]]
}

@test "fleet: the fingerprint changes with the driver, and is what docs/json.md says" {
	node a gpu017
	report a ok >"$T/ok.json" || [ $? -le 1 ]
	report a old >"$T/old.json" || [ $? -le 1 ]
	[ "$(jq -r .fleet.fingerprint "$T/ok.json")" != "$(jq -r .fleet.fingerprint "$T/old.json")" ]
	# The documented recipe: drop fleet, the identity and the volatile keys
	# (data/fleet_keys.tsv), compact JSON with sorted keys, SHA-256.
	for f in ok old; do
		want=$(jq -cS 'del(.fleet, .host.hostname, .tool.root) | .gpus |= (if . then map(del(.uuid, .memory_free_bytes, .memory_used_bytes)) else . end)' "$T/$f.json" | tr -d '\n' | sha256sum | cut -d' ' -f1)
		[ "$(jq -r .fleet.fingerprint "$T/$f.json")" = "sha256:$want" ]
	done
}

@test "fleet: free and used GPU memory are null unless --volatile, which keeps the fingerprint" {
	node a gpu017
	report a ok >"$T/plain.json" || [ $? -le 1 ]
	report a ok --volatile >"$T/vol.json" || [ $? -le 1 ]
	[ "$(jq -c '[.gpus[].memory_free_bytes, .gpus[].memory_used_bytes] | unique' "$T/plain.json")" = "[null]" ]
	[ "$(jq '.gpus[0].memory_free_bytes' "$T/vol.json")" -gt 0 ]
	[ "$(jq -r .fleet.volatile "$T/vol.json")" = true ]
	[ "$(jq -r .fleet.fingerprint "$T/plain.json")" = "$(jq -r .fleet.fingerprint "$T/vol.json")" ]
	[ "$(jq '.gpus[0].memory_total_bytes' "$T/plain.json")" -gt 0 ]
}

@test "check -o FILE: the report written through FILE.tmp, nothing left behind" {
	node a gpu017
	report a ok >"$T/stdout.json" || [ $? -le 1 ]
	run report a ok -o "$T/out.json"
	[ "$status" -le 1 ]
	[ -z "$output" ]
	cmp "$T/stdout.json" "$T/out.json"
	[ ! -e "$T/out.json.tmp" ]
	run report a ok --output="$T/out2.json"
	cmp "$T/stdout.json" "$T/out2.json"
}

@test "check -o FILE: an unwritable place is one message, exit 2, the old file kept" {
	node a gpu017
	run report a ok -o "$T/missing/dir/out.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing/dir/out.json.tmp"* ]]
	run report a ok -o
	[ "$status" -eq 2 ]
	[[ "$output" == *"-o needs a file name"* ]]
	# FILE.tmp cannot be made: FILE keeps what it had.
	echo old >"$T/kept.json"
	mkdir "$T/kept.json.tmp"
	run report a ok -o "$T/kept.json"
	[ "$status" -eq 2 ]
	[ "$(cat "$T/kept.json")" = old ]
	# Never a device or a FIFO: -o replaces regular files only.
	mkfifo "$T/fifo"
	run report a ok -o "$T/fifo"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a regular file"* ]]
	[ -p "$T/fifo" ]
}
