#!/usr/bin/env bats
# `cuda-doctor model`: resolution (local, hub cache, revisions, offline),
# config and transformers checks, weight headers (healthy, incomplete,
# corrupt, hostile), the memory plan, dtype and kernel checks, GGUF, usage
# errors. Fixtures are built in a fresh --root for every test by
# model_helpers.bash; the environment is emptied so the host's caches and
# Python never leak in.

load model_helpers

setup() {
	CD="${CD_BIN:?set CD_BIN}"
	ROOT=$(mktemp -d)
	mkdir -p "$ROOT/home/u"
	mk_tf "$ROOT/venv" 4.44.2 llama mistral bert t5 whisper
	VENV=/venv
	ENVS=()
}

teardown() {
	chmod -R u+rwX "$ROOT" 2>/dev/null || true
	rm -rf "$ROOT"
}

# cdm ARGS...: cuda-doctor model under $ROOT with only $ENVS in the environment.
cdm() {
	env -i PATH="$PATH" HOME=/home/u "${ENVS[@]}" timeout 20 "$CD" --root "$ROOT" --env "$VENV" \
		model "$@"
}

jqr() { jq -r "$1" <<<"$output"; }

@test "a healthy local model: exit 0, exact parameters, task, transformers knows the type" {
	tiny_model "$ROOT/models/tiny"
	run cdm /models/tiny --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.source)" = local ]
	[ "$(jqr .model.weights.format)" = safetensors ]
	[ "$(jqr .model.weights.parameters)" = 41024 ]
	[ "$(jqr .model.weights.parameters_exact)" = true ]
	[ "$(jqr '.model.weights.dtypes[0].dtype')" = BF16 ]
	[ "$(jqr '.model.weights.dtypes[0].bytes')" = 82048 ]
	[ "$(jqr .model.task.name)" = text-generation ]
	[ "$(jqr .model.transformers.version)" = 4.44.2 ]
	[ "$(jqr .model.transformers.knows_model_type)" = true ]
	[ "$(jqr .model.tokenizer.tokenizer_class)" = LlamaTokenizer ]
	[ "$(jqr '.findings | length')" = 0 ]
}

@test "text report matches the golden file" {
	tiny_model "$ROOT/models/tiny"
	run cdm /models/tiny --gpu-memory 24GiB --gpu-cc 8.6 --seq-len 2048 --dtype bf16
	[ "$status" -eq 0 ]
	diff -u "$BATS_TEST_DIRNAME/golden/model_tiny.txt" \
		<(sed -e "s/^cuda-doctor [0-9.]* /cuda-doctor VERSION /" <<<"$output")
}

@test "markdown report is paste-ready" {
	tiny_model "$ROOT/models/tiny"
	run cdm /models/tiny --format markdown
	[ "$status" -eq 0 ]
	[[ "$output" == "### cuda-doctor "*" model \`/models/tiny\`"* ]]
	[[ "$output" == *'"schema": "cuda-doctor.report/1"'* ]]
}

@test "hub cache: refs/main -> snapshot -> blobs, through HF_HUB_CACHE" {
	repo=$(cache_model "$ROOT/cache" org/tiny)
	ENVS=(HF_HUB_CACHE=/cache)
	run cdm org/tiny --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.source)" = cache ]
	[ "$(jqr .model.cache.variable)" = HF_HUB_CACHE ]
	[ "$(jqr .model.cache.commit)" = 0123456789abcdef0123456789abcdef01234567 ]
	[ "$(jqr .model.weights.parameters)" = 41024 ]
	[[ "$(jqr '.model.weights.files[0].blob')" == ../../blobs/* ]]
	[ -n "$repo" ]
}

@test "hub cache: HF_HOME/hub and ~/.cache/huggingface/hub are found too" {
	cache_model "$ROOT/hfhome/hub" org/tiny >/dev/null
	ENVS=(HF_HOME=/hfhome)
	run cdm org/tiny --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.cache.dir)" = /hfhome/hub ]
	cache_model "$ROOT/home/u/.cache/huggingface/hub" org/other >/dev/null
	ENVS=()
	run cdm org/other --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.cache.variable)" = HOME ]
}

@test "transformers 4.x reads TRANSFORMERS_CACHE first; the model in another cache is named" {
	cache_model "$ROOT/cache" org/tiny >/dev/null
	mkdir -p "$ROOT/legacy"
	ENVS=(TRANSFORMERS_CACHE=/legacy HF_HUB_CACHE=/cache)
	run cdm org/tiny --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.findings[0].id')" = model-not-found ]
	[ "$(jqr .model.cache.dir)" = /legacy ]
	[ "$(jqr .model.cache.found_in)" = /cache ]
	[[ "$(jqr '.findings[0].fix[0]')" == "export HF_HUB_CACHE=/cache" ]]
}

@test "revisions: a commit hash works, an uncached branch lists the cached refs" {
	cache_model "$ROOT/cache" org/tiny >/dev/null
	ENVS=(HF_HUB_CACHE=/cache HF_HUB_OFFLINE=1)
	run cdm org/tiny --revision 0123456789abcdef0123456789abcdef01234567 --json
	[ "$status" -eq 0 ]
	run cdm org/tiny --revision v2.0
	[ "$status" -eq 1 ]
	[[ "$output" == *"revision 'v2.0' of org/tiny is not in the cache (cached refs: main)"* ]]
	[[ "$output" == *"fix: hf download org/tiny --revision v2.0"* ]]
}

@test "not cached: offline is an error, online a warning that it will download" {
	mkdir -p "$ROOT/cache"
	ENVS=(HF_HUB_CACHE=/cache HF_HUB_OFFLINE=1)
	run cdm org/absent
	[ "$status" -eq 1 ]
	[[ "$output" == *"offline mode and nothing usable is cached"* ]]
	[[ "$output" == *"[error model-not-found]"* ]]
	ENVS=(HF_HUB_CACHE=/cache)
	run cdm org/absent
	[ "$status" -eq 0 ]
	[[ "$output" == *"[warning model-not-found]"* ]]
	[[ "$output" == *"will download it"* ]]
}

@test "unreadable caches and bad names are model-not-found with the reason" {
	echo x >"$ROOT/cachefile"
	ENVS=(HF_HUB_CACHE=/cachefile)
	run cdm org/tiny
	[ "$status" -eq 1 ]
	[[ "$output" == *"/cachefile: not a directory"* ]]
	run cdm 'org/bad--name'
	[ "$status" -eq 1 ]
	[[ "$output" == *"not a valid repo id"* ]]
	run cdm ./no/such/dir
	[ "$status" -eq 1 ]
	[[ "$output" == *"no such file or directory"* ]]
	ln -s /loop "$ROOT/loop"
	ENVS=(HF_HUB_CACHE=/loop)
	run cdm org/tiny
	[ "$status" -eq 1 ]
	[[ "$output" == *"/loop: path cannot be resolved (symlink loop?)"* ]]
	if [ "$(id -u)" -ne 0 ]; then
		mkdir -p "$ROOT/locked/models--org--tiny"
		chmod 000 "$ROOT/locked"
		ENVS=(HF_HUB_CACHE=/locked)
		run cdm org/tiny
		[ "$status" -eq 1 ]
		[[ "$output" == *"Permission denied"* ]]
	fi
}

@test "a dangling blob symlink and an .incomplete blob are model-weights-incomplete" {
	repo=$(cache_model "$ROOT/cache" org/tiny)
	blob=$(readlink "$repo/snapshots/"*/model.safetensors)
	mv "$repo/snapshots/"*/"$blob" "$repo/blobs/$(basename "$blob").incomplete"
	ENVS=(HF_HUB_CACHE=/cache HF_HUB_OFFLINE=1)
	run cdm org/tiny --json
	[ "$status" -eq 1 ]
	[ "$(jqr '[.findings[].id] | index("model-weights-incomplete") != null')" = true ]
	[ "$(jqr '.model.weights.files[] | select(.name=="model.safetensors") | .state')" = dangling-symlink ]
	[[ "$(jqr '.model.cache.incomplete_blobs[0]')" == blobs/*.incomplete* ]]
}

@test "a symlink loop in the snapshot is a finding, not a hang" {
	repo=$(cache_model "$ROOT/cache" org/tiny)
	snap=$(echo "$repo"/snapshots/*)
	rm "$snap/model.safetensors"
	ln -s loop2 "$snap/model.safetensors"
	ln -s model.safetensors "$snap/loop2"
	ENVS=(HF_HUB_CACHE=/cache)
	run cdm org/tiny --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.model.weights.files[] | select(.name=="model.safetensors") | .state')" = symlink-loop ]
}

# A two-shard checkpoint with its index.
sharded() {
	local d=$1
	config_write "$d" llama LlamaForCausalLM
	echo '{}' >"$d/tokenizer.json"
	st_write "$d/model-00001-of-00002.safetensors" model.embed_tokens.weight:BF16:128x64 \
		model.layers.0.mlp.up_proj.weight:BF16:128x64
	st_write "$d/model-00002-of-00002.safetensors" model.layers.1.mlp.up_proj.weight:BF16:128x64 \
		lm_head.weight:BF16:128x64
	cat >"$d/model.safetensors.index.json" <<EOF
{"metadata": {"total_size": 65536}, "weight_map": {
 "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
 "model.layers.0.mlp.up_proj.weight": "model-00001-of-00002.safetensors",
 "model.layers.1.mlp.up_proj.weight": "model-00002-of-00002.safetensors",
 "lm_head.weight": "model-00002-of-00002.safetensors"}}
EOF
}

@test "sharded: every shard read, every index tensor found" {
	sharded "$ROOT/m"
	run cdm /m --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.weights.format)" = safetensors-sharded ]
	[ "$(jqr .model.weights.parameters)" = 32768 ]
	[ "$(jqr '.model.weights.files | length')" = 3 ]
}

@test "sharded: a missing shard and a tensor missing from its shard" {
	sharded "$ROOT/m"
	rm "$ROOT/m/model-00002-of-00002.safetensors"
	run cdm /m --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.model.weights.files[] | select(.name=="model-00002-of-00002.safetensors") | .state')" = missing ]
	[ "$(jqr .model.weights.parameters_exact)" = false ]
	sharded "$ROOT/n"
	st_write "$ROOT/n/model-00002-of-00002.safetensors" lm_head.weight:BF16:128x64
	run cdm /n --json
	[ "$status" -eq 1 ]
	[ "$(jqr .model.weights.index_missing_tensors)" = 1 ]
	[[ "$output" == *"model.layers.1.mlp.up_proj.weight (index: model-00002-of-00002.safetensors"* ]]
}

@test "a truncated shard is incomplete; the message says so" {
	sharded "$ROOT/m"
	ST_TRUNCATE=100 st_write "$ROOT/m/model-00002-of-00002.safetensors" \
		model.layers.1.mlp.up_proj.weight:BF16:128x64 lm_head.weight:BF16:128x64
	run cdm /m
	[ "$status" -eq 1 ]
	[[ "$output" == *"[error model-weights-incomplete]"* ]]
	[[ "$output" == *"truncated (tensors need 32768 bytes of data but the file holds 32668"* ]]
}

@test "hostile headers: each is model-weights-corrupt or -incomplete with its reason" {
	config_write "$ROOT/m" llama LlamaForCausalLM
	check() { # JSON-or-bytes EXPECTED-STATE EXPECTED-TEXT
		run cdm /m --json
		[ "$status" -eq 1 ]
		[ "$(jqr '.model.weights.files[] | select(.name=="model.safetensors") | .state')" = "$1" ]
		[[ "$(jqr '.model.weights.files[] | select(.name=="model.safetensors") | .problem')" == *"$2"* ]]
	}
	ST_RAW_JSON='{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}' \
		st_write "$ROOT/m/model.safetensors" a:U8:12
	check corrupt overlaps
	ST_RAW_JSON='{"a":{"dtype":"F7","shape":[1],"data_offsets":[0,1]}}' st_write "$ROOT/m/model.safetensors" a:U8:1
	check corrupt "unknown dtype 'F7'"
	ST_RAW_JSON='{"a":{"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,1]}}' \
		st_write "$ROOT/m/model.safetensors" a:U8:1
	check corrupt "overflows 64 bits"
	ST_RAW_JSON='{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":'"$(printf '%*s' 10000 '' | tr ' ' '[')"'}' \
		st_write "$ROOT/m/model.safetensors" a:U8:1
	check corrupt nesting
	{ le 1000000 8; printf '{}'; } >"$ROOT/m/model.safetensors"
	check truncated "larger than the file"
	{ le 100000001 8; printf '{}'; } >"$ROOT/m/model.safetensors"
	truncate -s 200000000 "$ROOT/m/model.safetensors"
	check corrupt HeaderTooLarge
	printf 'abc' >"$ROOT/m/model.safetensors"
	check truncated "shorter than the 8-byte header"
}

@test "FIFOs named like model files are refused, never opened for reading" {
	tiny_model "$ROOT/m"
	rm "$ROOT/m/model.safetensors" "$ROOT/m/config.json"
	mkfifo "$ROOT/m/model.safetensors" "$ROOT/m/config.json"
	run cdm /m --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.model.weights.files[0].problem')" = "not a regular file" ]
	[[ "$(jqr .model.config.error)" == "config.json: unreadable (not a regular file)" ]]
}

@test "a 100 MB header is read within the loader's limit and rejected quickly as not JSON" {
	config_write "$ROOT/m" llama LlamaForCausalLM
	{ le 100000000 8; printf '{"a"'; } >"$ROOT/m/model.safetensors"
	truncate -s 100000008 "$ROOT/m/model.safetensors"
	run cdm /m --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.model.weights.files[0].state')" = corrupt ]
}

@test "config.json that is not JSON, or nested 5000 deep, is model-config-invalid" {
	tiny_model "$ROOT/m"
	echo '{"model_type": "llama",' >"$ROOT/m/config.json"
	run cdm /m
	[ "$status" -eq 1 ]
	[[ "$output" == *"[error model-config-invalid]"* ]]
	[[ "$output" == *"config.json is not valid JSON"* ]]
	printf '%*s' 5000 '' | tr ' ' '[' >"$ROOT/m/config.json"
	run cdm /m
	[ "$status" -eq 1 ]
	[[ "$output" == *"maximum parsing depth"* ]]
	rm "$ROOT/m/config.json"
	run cdm /m
	[ "$status" -eq 1 ]
	[[ "$output" == *"has no config.json"* ]]
}

@test "model_type unknown to the installed transformers names the release that knows it" {
	tiny_model "$ROOT/m"
	config_write "$ROOT/m" qwen3 Qwen3ForCausalLM
	run cdm /m
	[ "$status" -eq 1 ]
	[[ "$output" == *"transformers 4.44.2 does not know model_type 'qwen3'"* ]]
	[[ "$output" == *'fix: /venv/bin/python -m pip install -U "transformers>=4.51.0"'* ]]
	echo '{"architectures": ["LlamaForCausalLM"]}' >"$ROOT/m/config.json"
	run cdm /m
	[ "$status" -eq 1 ]
	[[ "$output" == *"config.json has no model_type"* ]]
}

# Seen on the H200 machine with transformers 5.17.0: its configuration_auto.py
# is laid out differently, and llama was reported unknown. A models/<type>
# directory is enough to know a type, whatever the mapping file looks like.
@test "a model_type with a models/<type> directory is known even when the mapping file is not understood" {
	tiny_model "$ROOT/m"
	config_write "$ROOT/m" llama LlamaForCausalLM
	sp=$(echo "$ROOT"/venv/lib/python3.*/site-packages)
	printf 'CONFIG_MAPPING_NAMES = _generated_mapping(\n)\n("unrelated", "X"),\n' \
		>"$sp/transformers/models/auto/configuration_auto.py"
	mkdir -p "$sp/transformers/models/llama"
	run cdm /m --json
	[ "$(jqr '[.findings[].id] | index("model-type-unknown")')" = null ]
	[ "$(jqr .model.transformers.knows_model_type)" = true ]
	# Neither the mapping nor a directory: unknown, and the evidence says both.
	config_write "$ROOT/m" qwen3 Qwen3ForCausalLM
	run cdm /m
	[ "$status" -eq 1 ]
	[[ "$output" == *"and no directory"*"/models/qwen3"* ]]
}

@test "auto_map: remote code is an error without trust_remote_code, lists the files" {
	tiny_model "$ROOT/m"
	config_write "$ROOT/m" deepseek_x DeepseekXForCausalLM \
		'"auto_map": {"AutoConfig": "configuration_deepseek.DeepseekConfig", "AutoModelForCausalLM": "modeling_deepseek.DeepseekXForCausalLM"}'
	touch "$ROOT/m/configuration_deepseek.py"
	run cdm /m --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.findings[] | select(.id=="model-needs-remote-code") | .severity')" = error ]
	[ "$(jqr '[.findings[].id] | index("model-type-unknown")')" = null ]
	[[ "$output" == *"would execute configuration_deepseek.py"* ]]
	[[ "$output" == *"would execute modeling_deepseek.py (missing: it would be downloaded first)"* ]]
	run cdm /m --trust-remote-code --json
	[ "$(jqr '.findings[] | select(.id=="model-needs-remote-code") | .severity')" = warning ]
	config_write "$ROOT/m" llama LlamaForCausalLM '"auto_map": {"AutoModel": "modeling_x.X"}'
	run cdm /m --json
	[ "$status" -eq 0 ]
	[ "$(jqr '.findings[] | select(.id=="model-needs-remote-code") | .severity')" = info ]
}

@test "a checkpoint saved by a newer transformers is a warning" {
	tiny_model "$ROOT/m"
	config_write "$ROOT/m" llama LlamaForCausalLM '"transformers_version": "4.57.1"'
	sed -i 's/"transformers_version": "4.40.0"//; s/"hidden_size": 64,/"hidden_size": 64/' "$ROOT/m/config.json"
	run cdm /m
	[ "$status" -eq 0 ]
	[[ "$output" == *"[warning model-transformers-too-old]"* ]]
	[[ "$output" == *'install -U "transformers>=4.57.1"'* ]]
}

@test "task: an unknown head is model-task-unknown; --task settles it" {
	tiny_model "$ROOT/m"
	config_write "$ROOT/m" llama LlamaForMultipleChoice
	run cdm /m
	[ "$status" -eq 0 ]
	[[ "$output" == *"[warning model-task-unknown]"* ]]
	[[ "$output" == *"--task <task>"* ]]
	run cdm /m --task text-classification --json
	[ "$(jqr .model.task.name)" = text-classification ]
	[ "$(jqr '[.findings[].id] | index("model-task-unknown")')" = null ]
	config_write "$ROOT/m" t5 T5ForConditionalGeneration
	run cdm /m --json
	[ "$(jqr .model.task.name)" = text2text-generation ]
	config_write "$ROOT/m" whisper WhisperForConditionalGeneration
	run cdm /m --json
	[ "$(jqr .model.task.name)" = automatic-speech-recognition ]
	config_write "$ROOT/m" llava LlavaForConditionalGeneration '"vision_config": {}'
	run cdm /m --json
	[ "$(jqr .model.task.name)" = image-text-to-text ]
}

@test "no tokenizer files for a text model is a warning" {
	tiny_model "$ROOT/m"
	rm "$ROOT/m/tokenizer.json" "$ROOT/m/tokenizer_config.json"
	run cdm /m
	[ "$status" -eq 0 ]
	[[ "$output" == *"[warning model-tokenizer-missing]"* ]]
}

@test "memory: too large for one GPU names the shortfall and the cheapest fix first" {
	tiny_model "$ROOT/m"
	# fp32 (transformers 4.x default) needs 160 KiB + 512 MiB overhead; 0.85 x
	# 631764706 = 536999999 holds bf16 (82048 + 536870912) but not fp32.
	run cdm /m --gpu-memory 631764706 --json
	[ "$status" -eq 1 ]
	[ "$(jqr .model.memory.dtype)" = float32 ]
	[ "$(jqr .model.memory.weights_bytes)" = 164096 ]
	[ "$(jqr .model.memory.fits)" = false ]
	[[ "$(jqr '.findings[] | select(.id=="model-too-large") | .fix[0]')" == *"torch_dtype=torch.bfloat16)"* ]]
	run cdm /m --gpu-memory 631764706 --dtype bf16 --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.memory.fits)" = true ]
	[ "$(jqr .model.memory.required_bytes)" = $((82048 + 512 * 1048576)) ]
}

@test "memory: int8 and int4 sizes follow bitsandbytes" {
	tiny_model "$ROOT/m"
	run cdm /m --dtype int8 --json
	[ "$(jqr .model.memory.weights_bytes)" = 59008 ]
	run cdm /m --dtype int4 --json
	[ "$(jqr .model.memory.weights_bytes)" = 46720 ]
}

@test "memory: the KV cache is 2 x layers x kv_heads x head_dim x tokens x bytes" {
	tiny_model "$ROOT/m"
	run cdm /m --dtype bf16 --seq-len 1000 --batch 3 --json
	[ "$(jqr .model.memory.kv_cache_bytes)" = $((2 * 2 * 2 * 16 * 1000 * 3 * 2)) ]
}

@test "memory: device_map=auto splits layers across GPUs and offloads the rest" {
	tiny_model "$ROOT/m"
	g=$((512 * 1048576 + 60000))
	run cdm /m --dtype bf16 --gpu-memory "$((g * 100 / 85)),$((g * 100 / 85))" --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.memory.device)" = cuda ]
	[ "$(jqr '.model.memory.devices[0].first_unit')" = model.embed_tokens ]
	[ "$(jqr '.model.memory.devices[1].last_unit')" = lm_head ]
	[ "$(jqr '.model.memory.offload_bytes')" = 0 ]
	run cdm /m --dtype bf16 --gpu-memory "$((g * 100 / 85)),$(((512 * 1048576 + 1000) * 100 / 85))" --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.model.memory.offload_bytes > 0')" = true ]
	run cdm /m --device cuda:2 --gpu-memory 1G,1G
	[ "$status" -eq 1 ]
	[[ "$output" == *"[error model-device-unavailable]"* ]]
}

@test "dtype: bf16 below compute capability 8.0, fp8 below 8.9, fp16 on CPU" {
	tiny_model "$ROOT/m"
	run cdm /m --dtype bf16 --gpu-memory 16G --gpu-cc 7.5
	[ "$status" -eq 1 ]
	[[ "$output" == *"bfloat16 needs compute capability 8.0; cuda:0 is 7.5"* ]]
	run cdm /m --dtype fp16 --device cpu
	[ "$status" -eq 0 ]
	[[ "$output" == *"not implemented for 'Half'"* ]]
	config_write "$ROOT/f8" llama LlamaForCausalLM '"quantization_config": {"quant_method": "fp8"}'
	st_write "$ROOT/f8/model.safetensors" model.layers.0.mlp.up_proj.weight:F8_E4M3:128x64 \
		model.layers.0.mlp.up_proj.weight_scale_inv:F32:1x1
	run cdm /f8 --gpu-memory 80G --gpu-cc 8.0
	[ "$status" -eq 1 ]
	[[ "$output" == *"FP8 weights need compute capability 8.9; cuda:0 is 8.0"* ]]
	run cdm /f8 --gpu-memory 80G --gpu-cc 9.0
	[ "$status" -eq 0 ]
	run cdm /m --dtype int4 --gpu-memory 16G
	[ "$status" -eq 1 ]
	[[ "$output" == *"int4 loading needs bitsandbytes"* ]]
}

@test "flash_attention_2 without flash-attn, or on a pre-Ampere GPU" {
	tiny_model "$ROOT/m"
	config_write "$ROOT/m" llama LlamaForCausalLM '"attn_implementation": "flash_attention_2"'
	run cdm /m --dtype bf16 --gpu-memory 16G --gpu-cc 9.0
	[ "$status" -eq 1 ]
	[[ "$output" == *"flash_attn seems to be not installed"* ]]
	mkdir -p "$ROOT/venv/lib/python3.11/site-packages/flash_attn"
	touch "$ROOT/venv/lib/python3.11/site-packages/flash_attn/__init__.py"
	run cdm /m --dtype bf16 --gpu-memory 16G --gpu-cc 9.0
	[ "$status" -eq 0 ]
	run cdm /m --dtype fp16 --gpu-memory 16G --gpu-cc 7.5
	[ "$status" -eq 1 ]
	[[ "$output" == *"FlashAttention only supports Ampere GPUs or newer."* ]]
}

@test "GGUF: headers, parameters and layer geometry; truncation and version 1" {
	mkdir -p "$ROOT/g"
	gguf_write "$ROOT/g/tiny.Q4_K.gguf" llama 2 8 4 256
	run cdm /g/tiny.Q4_K.gguf --seq-len 100 --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.weights.format)" = gguf ]
	[ "$(jqr .model.weights.gguf.architecture)" = llama ]
	[ "$(jqr .model.weights.gguf.block_count)" = 2 ]
	[ "$(jqr .model.weights.parameters)" = $((256 * 32 + 2 * 256 * 256)) ]
	[ "$(jqr .model.memory.weights_bytes)" = $((256 * 32 * 2 + 2 * 36864)) ]
	[ "$(jqr .model.memory.kv_cache_bytes)" = $((2 * 2 * 4 * 32 * 100 * 2)) ]
	GG_TRUNCATE=1000 gguf_write "$ROOT/g/tiny.Q4_K.gguf" llama 2 8 4 256
	run cdm /g --json
	[ "$status" -eq 1 ]
	[ "$(jqr '.model.weights.files[0].state')" = truncated ]
	printf 'GGUF\001\000\000\000' >"$ROOT/g/tiny.Q4_K.gguf"
	run cdm /g/tiny.Q4_K.gguf
	[ "$status" -eq 1 ]
	[[ "$output" == *"GGUF version 1"* ]]
}

@test "pickle weights: a warning, sizes estimated from the file" {
	config_write "$ROOT/p" llama LlamaForCausalLM
	echo '{}' >"$ROOT/p/tokenizer.json"
	truncate -s 2000000 "$ROOT/p/pytorch_model.bin"
	run cdm /p --dtype bf16 --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.weights.pickle)" = true ]
	[ "$(jqr .model.memory.estimated)" = true ]
	[ "$(jqr .model.memory.weights_bytes)" = 2000000 ]
	[ "$(jqr '.findings[] | select(.id=="model-weights-pickle") | .severity')" = warning ]
}

@test "no weights at all is incomplete; no transformers is a warning" {
	config_write "$ROOT/e" llama LlamaForCausalLM
	echo '{}' >"$ROOT/e/tokenizer.json"
	run cdm /e
	[ "$status" -eq 1 ]
	[[ "$output" == *"Error no file named model.safetensors"* ]]
	tiny_model "$ROOT/m"
	VENV=/nowhere
	mkdir -p "$ROOT/nowhere"
	run cdm /m --json
	[ "$status" -eq 0 ]
	[ "$(jqr '.findings[0].id')" = model-transformers-missing ]
}

@test "usage errors exit 2" {
	run "$CD" model
	[ "$status" -eq 2 ]
	run "$CD" model x --dtype fp8
	[ "$status" -eq 2 ]
	[[ "$output" == *"--dtype 'fp8'"* ]]
	run "$CD" model x --gpu-memory lots
	[ "$status" -eq 2 ]
	run "$CD" model x --batch 4
	[ "$status" -eq 2 ]
	[[ "$output" == *"--batch needs --seq-len"* ]]
	run "$CD" model x --headroom 1.5
	[ "$status" -eq 2 ]
	run "$CD" model x --device gpu
	[ "$status" -eq 2 ]
	run "$CD" model x y
	[ "$status" -eq 2 ]
	run "$CD" model x --gpu-cc nine
	[ "$status" -eq 2 ]
	run "$CD" model --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--gpu-memory"* ]]
}

@test "the Python environment: VIRTUAL_ENV, a venv's python3 on PATH, a pyenv shim" {
	tiny_model "$ROOT/m"
	VENV=
	cdp() {
		env -i PATH="$1" HOME=/home/u "${ENVS[@]}" "$(command -v timeout)" 20 "$CD" \
			--root "$ROOT" model /m --json
	}
	ENVS=(VIRTUAL_ENV=/venv)
	run cdp /usr/bin
	[ "$(jqr .model.transformers.found_via)" = VIRTUAL_ENV ]
	[ "$(jqr .model.transformers.version)" = 4.44.2 ]
	ENVS=()
	mkdir -p "$ROOT/venv/bin"
	ln -s /usr/bin/python3.11 "$ROOT/venv/bin/python3"
	mkdir -p "$ROOT/usr/bin" && touch "$ROOT/usr/bin/python3.11"
	run cdp "/nope:/venv/bin:/usr/bin"
	[ "$(jqr .model.transformers.found_via)" = PATH ]
	[ "$(jqr .model.transformers.prefix)" = /venv ]
	[ "$(jqr .model.transformers.knows_model_type)" = true ]
	mk_tf "$ROOT/pyenv/versions/3.11.7" 4.57.1 llama
	rm "$ROOT/pyenv/versions/3.11.7/pyvenv.cfg"
	mkdir -p "$ROOT/pyenv/shims"
	printf '#!/usr/bin/env bash\nset -e\nexec "/pyenv/libexec/pyenv" exec "$program" "$@"\n' \
		>"$ROOT/pyenv/shims/python3"
	echo 3.11.7 >"$ROOT/pyenv/version"
	run cdp "/pyenv/shims:/usr/bin"
	[ "$(jqr .model.transformers.prefix)" = /pyenv/versions/3.11.7 ]
	[ "$(jqr .model.transformers.found_via)" = pyenv ]
	[ "$(jqr .model.transformers.version)" = 4.57.1 ]
	ENVS=(PYENV_VERSION=system)
	run cdp "/pyenv/shims:/venv/bin"
	[ "$(jqr .model.transformers.prefix)" = /venv ]
}

@test "transformers earlier on PYTHONPATH is the copy judged; flash_attn's version from its dist-info" {
	tiny_model "$ROOT/m"
	mk_tf "$ROOT/pp" 4.57.1 llama
	sp=/pp/lib/python3.11/site-packages
	mkdir -p "$ROOT$sp/flash_attn" "$ROOT$sp/flash_attn-2.6.3.dist-info"
	touch "$ROOT$sp/flash_attn/__init__.py"
	ENVS=(PYTHONPATH=$sp)
	run cdm /m --json
	[ "$status" -eq 0 ]
	[ "$(jqr .model.transformers.prefix)" = /venv ]
	[ "$(jqr .model.transformers.site_packages)" = $sp ]
	[ "$(jqr .model.transformers.version)" = 4.57.1 ]
	[ "$(jqr .model.transformers.flash_attn)" = true ]
	[ "$(jqr .model.transformers.flash_attn_version)" = 2.6.3 ]
}

@test "the live GPUs: the driver's children run beside the file reads, the plan places on them" {
	tiny_model "$ROOT/models/tiny"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	ENVS=(CD_FAKE_MODE=h200)
	run cdm /models/tiny --nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" \
		--timeout 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"cuda:0 NVIDIA H200: free 139.9 GiB x 0.85 = 118.9 GiB usable"* ]]
	ENVS=(CD_FAKE_MODE=nogpu)
	run cdm /models/tiny --nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" \
		--timeout 2 --json
	[ "$(jqr '.model.memory.devices[0].name')" = cpu ]
	[ "$(jqr '.model.memory.devices[0].gpu')" = null ]
}

@test "the live GPUs for a plan: name, capability and memory, not the health queries check makes" {
	tiny_model "$ROOT/models/tiny"
	FAKES="${CD_FAKES:?set CD_FAKES}"
	ENVS=(CD_FAKE_MODE=ecc CD_FAKE_TRACE="$BATS_TEST_TMPDIR/trace")
	run cdm /models/tiny --nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1" \
		--timeout 2 --json
	[ "$(jqr '.model.memory.devices[0].gpu')" = "Tesla V100-SXM2-32GB" ]
	grep -qx nvmlDeviceGetMemoryInfo_v2 "$BATS_TEST_TMPDIR/trace"
	grep -qx nvmlDeviceGetCudaComputeCapability "$BATS_TEST_TMPDIR/trace"
	[ "$(grep -cE '^nvmlDeviceGet(EccMode|TotalEccErrors|RetiredPagesPendingStatus|RemappedRows)$' \
		"$BATS_TEST_TMPDIR/trace")" -eq 0 ]
	# check, for the same machine, asks them (its gpu-ecc-* findings)
	rm "$BATS_TEST_TMPDIR/trace"
	run env -i CD_FAKE_MODE=ecc CD_FAKE_TRACE="$BATS_TEST_TMPDIR/trace" "$CD" --root "$ROOT" check --json \
		--nvml-lib "$FAKES/libnvidia-ml.so.1" --cuda-lib "$FAKES/libcuda.so.1"
	grep -qx nvmlDeviceGetEccMode "$BATS_TEST_TMPDIR/trace"
	grep -qx nvmlDeviceGetRemappedRows "$BATS_TEST_TMPDIR/trace"
}
