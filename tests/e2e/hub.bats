#!/usr/bin/env bats
# `cuda-doctor model ORG/NAME` when the model is not cached: the Hub's
# metadata through libcurl, against hubserver.py on 127.0.0.1 serving the
# recorded answers of hub/ and the repositories of hub_fixtures.bash (a 5.5 GiB
# sharded checkpoint that is sparse on disk). Nothing leaves this machine:
# HF_ENDPOINT names the local server (or an unresolvable host reached only
# through the local server as a proxy).

load model_helpers
load hub_fixtures

setup_file() {
	command -v python3 >/dev/null || { echo "python3 is missing"; return 1; }
	H="$BATS_FILE_TMPDIR/hub"
	mkdir -p "$H"
	cp -r "$BATS_TEST_DIRNAME/hub/." "$H/"
	hub_repos "$H"
	python3 "$BATS_TEST_DIRNAME/hubserver.py" "$H" "$H/port" "$H/log" 300 3>&- &
	echo $! >"$H/pid"
	for _ in $(seq 100); do [ -s "$H/port" ] && break; sleep 0.05; done
	[ -s "$H/port" ]
	export H
}

teardown_file() {
	kill "$(cat "$H/pid")" 2>/dev/null || true
}

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	PORT=$(cat "$H/port")
	EP="http://127.0.0.1:$PORT"
	ROOT=$BATS_TEST_TMPDIR/root
	mkdir -p "$ROOT/home/u"
	: >"$H/log"
	TOKEN=hf_TeStToKeN0123456789abcdef
}

# hub VAR=VALUE... -- ARGS...: cuda-doctor model in a clean environment.
hub() {
	local vars=(PATH=/usr/bin:/bin HOME=/home/u)
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	env -i "${vars[@]}" timeout 60 "$CD" --root "$ROOT" model "$@"
}

requests() { wc -l <"$H/log"; }

@test "a sharded checkpoint not in the cache: planned from the headers, nothing downloaded" {
	run hub HF_ENDPOINT="$EP" -- org/big --gpu-memory 80GiB --json
	[ "$status" -eq 0 ]
	local j=$output
	[ "$(jq -r .model.source <<<"$j")" = hub ]
	[ "$(jq -r .model.hub.state <<<"$j")" = ok ]
	[ "$(jq -r .model.hub.commit <<<"$j")" = 8afc3c0a7f9a4e3f2bd12e5b8c7d6e5f4a3b2c1d ]
	[ "$(jq -r .model.weights.format <<<"$j")" = safetensors-sharded ]
	[ "$(jq -r .model.weights.parameters <<<"$j")" = 2940215296 ]
	[ "$(jq -r .model.weights.parameters_exact <<<"$j")" = true ]
	# the headers' count agrees with the API's own
	[ "$(jq -r .model.hub.api_parameters <<<"$j")" = 2940215296 ]
	[ "$(jq -c .model.hub.api_dtypes <<<"$j")" = '[{"dtype":"BF16","parameters":2940215296}]' ]
	[ "$(jq -r .model.config.model_type <<<"$j")" = llama ]
	[ "$(jq -r .model.tokenizer.tokenizer_class <<<"$j")" = LlamaTokenizer ]
	[ "$(jq -r .model.memory.fits <<<"$j")" = true ]
	# 5.5 GiB listed, a few hundred KiB read: only the headers, by range requests
	[ "$(jq -r .model.hub.download_bytes <<<"$j")" = 5880440146 ]
	[ "$(jq -r .model.hub.bytes_read <<<"$j")" -lt 300000 ]
	[ "$(jq -r .model.hub.requests <<<"$j")" = 6 ]
	[ "$(jq -r 'select(.path | endswith(".safetensors")) | .range' "$H/log" | sort -u)" = "bytes=0-65535" ]
	[ "$(jq -r 'select(.path == "/api/models/org/big/revision/main") | .query' "$H/log")" = blobs=true ]
	[ "$(jq -r '.findings[] | select(.severity=="error") | .id' <<<"$j")" = "" ]
}

@test "the plan from the Hub equals the plan of the same files on disk" {
	run hub HF_ENDPOINT="$EP" -- org/big --gpu-memory 24GiB --dtype fp16 --seq-len 4096 --json
	[ "$status" -eq 0 ]
	local remote=$output
	mkdir -p "$ROOT/hubfiles"
	cp -a --sparse=always "$H/repos/org/big/." "$ROOT/hubfiles/"
	run hub -- /hubfiles --gpu-memory 24GiB --dtype fp16 --seq-len 4096 --json
	diff <(jq -S '.model.weights | del(.files) | del(.index)' <<<"$remote") \
		<(jq -S '.model.weights | del(.files) | del(.index)' <<<"$output")
	diff <(jq -S .model.memory <<<"$remote") <(jq -S .model.memory <<<"$output")
}

@test "the text report says where the plan came from" {
	run hub HF_ENDPOINT="$EP" -- org/big --gpu-memory 80GiB
	[ "$status" -eq 0 ]
	[[ "$output" == *"not cached: planned from the Hub's metadata (8 files, 5.5 GiB to download; 6 requests,"* ]]
	[[ "$output" == *"safetensors-sharded: 3 files (0 with problems), 5.5 GiB on the Hub, 19 tensors"* ]]
	[[ "$output" == *"verdict: fits"* ]]
}

@test "too large for the GPU, found before the download" {
	run hub HF_ENDPOINT="$EP" -- org/big --gpu-memory 4GiB --json
	[ "$status" -eq 1 ]
	[ "$(jq -r '.findings[] | select(.severity=="error") | .id' <<<"$output")" = model-too-large ]
}

@test "HF_TOKEN goes to the Hub, never to the CDN, and is never printed" {
	run hub HF_ENDPOINT="$EP" HF_TOKEN="$TOKEN" -- org/big --gpu-memory 80GiB --json
	[ "$status" -eq 0 ]
	[[ "$output" != *"$TOKEN"* ]]
	[ "$(jq -r .model.hub.token_source <<<"$output")" = HF_TOKEN ]
	[ "$(jq -r 'select(.host | startswith("127.0.0.1")) | .authorization' "$H/log" | sort -u)" = "Bearer $TOKEN" ]
	[ "$(jq -r 'select(.host | startswith("localhost")) | .authorization' "$H/log" | sort -u)" = null ]
	run hub HF_ENDPOINT="$EP" HF_TOKEN="$TOKEN" -- org/gated
	[[ "$output" != *"$TOKEN"* ]]
	run hub HF_ENDPOINT="$EP" HF_TOKEN="$TOKEN" -- org/gated --format html
	[[ "$output" != *"$TOKEN"* ]]
}

@test "the token file is used when HF_TOKEN is unset" {
	mkdir -p "$ROOT/home/u/.cache/huggingface"
	printf '%s\n' "$TOKEN" >"$ROOT/home/u/.cache/huggingface/token"
	run hub HF_ENDPOINT="$EP" -- org/big --gpu-memory 80GiB --json
	[ "$(jq -r .model.hub.token_source <<<"$output")" = "the token file /home/u/.cache/huggingface/token" ]
	[ "$(jq -r 'select(.path == "/api/models/org/big/revision/main") | .authorization' "$H/log")" = "Bearer $TOKEN" ]
}

@test "a gated repository: model-gated, 401 without a token, 403 with one" {
	run hub HF_ENDPOINT="$EP" -- org/gated --json
	[ "$status" -eq 1 ]
	[ "$(jq -r '.findings[0].id' <<<"$output")" = model-gated ]
	[ "$(jq -r .model.hub.http_status <<<"$output")" = 401 ]
	[ "$(jq -r .model.hub.error_code <<<"$output")" = GatedRepo ]
	[ "$(jq -r .model.hub.gated <<<"$output")" = manual ]
	[[ "$(jq -r '.findings[0].fix[0]' <<<"$output")" == "# open $EP/org/gated, accept the conditions"* ]]
	# nothing after the refused config.json
	[ "$(requests)" -eq 2 ]
	run hub HF_ENDPOINT="$EP" HF_TOKEN="$TOKEN" -- org/gated
	[ "$status" -eq 1 ]
	[[ "$output" == *"org/gated is gated: the token sent has not been granted access"* ]]
	[[ "$output" == *"HTTP 403 GatedRepo"* ]]
	[[ "$output" == *"token: sent, from HF_TOKEN"* ]]
}

@test "a missing repository or revision: model-not-found, an error" {
	run hub HF_ENDPOINT="$EP" -- org/missing
	[ "$status" -eq 1 ]
	[[ "$output" == *"[error model-not-found]"* ]]
	[[ "$output" == *"org/missing is not on the Hub, or it is private and no token was sent"* ]]
	[[ "$output" == *"HTTP 401 RepoNotFound"* ]]
	run hub HF_ENDPOINT="$EP" HF_TOKEN="$TOKEN" -- org/missing --json
	[ "$status" -eq 1 ]
	[ "$(jq -r .model.hub.state <<<"$output")" = not-found ]
	[ "$(jq -r .model.hub.http_status <<<"$output")" = 404 ]
	run hub HF_ENDPOINT="$EP" -- org/big --revision v9
	[ "$status" -eq 1 ]
	[[ "$output" == *"cannot load org/big: revision 'v9' of org/big is not on the Hub"* ]]
	[ "$(jq -r .path "$H/log" | tail -1)" = /api/models/org/big/revision/v9 ]
}

@test "a token the Hub refuses: an error that says so" {
	run hub HF_ENDPOINT="$EP" HF_TOKEN="$TOKEN" -- org/private --json
	[ "$status" -eq 1 ]
	[ "$(jq -r .model.hub.state <<<"$output")" = denied ]
	[ "$(jq -r '.findings[0].title' <<<"$output")" = "cannot load org/private: the Hub refused access (HTTP 401)" ]
	[ "$(jq -r .model.hub.error <<<"$output")" = "Invalid credentials in Authorization header" ]
}

@test "the Hub unreachable or failing: a warning, the load may still download" {
	run hub HF_ENDPOINT="$EP" -- org/flaky
	[ "$status" -eq 0 ]
	[[ "$output" == *"[warning model-not-found]"* ]]
	[[ "$output" == *"the Hub answered HTTP 503"* ]]
	run hub HF_ENDPOINT=http://127.0.0.1:9 -- org/big --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .model.hub.state <<<"$output")" = unreachable ]
	[[ "$(jq -r .model.hub.error <<<"$output")" == "the Hub could not be reached: "*"onnect"* ]]
}

@test "a proxy from the environment is used (http_proxy)" {
	run hub HF_ENDPOINT=http://hub.invalid http_proxy="$EP" -- org/quant --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .model.source <<<"$output")" = hub ]
	[ "$(jq -r '[.proxy] | all' "$H/log" | sort -u)" = true ]
	[ "$(jq -r .host "$H/log" | head -1)" = hub.invalid ]
}

@test "GGUF on the Hub: the first file by name, its header only" {
	run hub HF_ENDPOINT="$EP" -- org/quant --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .model.weights.format <<<"$output")" = gguf ]
	[ "$(jq -r .model.weights.gguf.file <<<"$output")" = tiny-Q4_K_M.gguf ]
	[ "$(jq -r .model.weights.other_gguf_files <<<"$output")" = 1 ]
	[ "$(jq -r 'select(.path | endswith("Q8_0.gguf")) | .path' "$H/log")" = "" ]
}

@test "a hostile header length is refused, not fetched" {
	run hub HF_ENDPOINT="$EP" -- org/hostile --json
	[ "$status" -eq 1 ]
	[ "$(jq -r '.findings[0].id' <<<"$output")" = model-weights-corrupt ]
	[ "$(jq -r 'select(.path | endswith("model.safetensors")) | .range' "$H/log" | sort -u)" = "bytes=0-65535" ]
	[ "$(jq -r .model.hub.bytes_read <<<"$output")" -lt 70000 ]
}

@test "offline, or --root without HF_ENDPOINT: the Hub is not asked" {
	run hub HF_ENDPOINT="$EP" HF_HUB_OFFLINE=1 -- org/big --json
	[ "$status" -eq 1 ]
	[ "$(jq -r .model.hub <<<"$output")" = null ]
	run hub HF_ENDPOINT="$EP" TRANSFORMERS_OFFLINE=1 -- org/big
	[ "$status" -eq 1 ]
	run hub -- org/big --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .model.hub <<<"$output")" = null ]
	[ "$(requests)" -eq 0 ]
}

@test "a cached model is read from the cache, not the Hub" {
	cache_model "$ROOT/cache" org/big >/dev/null
	run hub HF_ENDPOINT="$EP" HF_HUB_CACHE=/cache -- org/big --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .model.source <<<"$output")" = cache ]
	[ "$(requests)" -eq 0 ]
}
