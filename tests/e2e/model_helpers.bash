# Fixture builders for tests/e2e/model.bats: real safetensors and GGUF headers
# written byte by byte (the data is a sparse hole made by truncate), a hub
# cache with refs/snapshots/blobs, and a fake transformers install tree.
# Nothing here needs Python.

# le N BYTES: N as a little-endian integer of BYTES bytes.
le() {
	local n=$1 k=$2 i
	for ((i = 0; i < k; i++)); do
		# shellcheck disable=SC2059
		printf "\\x$(printf %02x $(((n >> (8 * i)) & 255)))"
	done
}

# st_write FILE ENTRY...: a safetensors file. ENTRY is NAME:DTYPE:D0xD1...,
# data offsets follow in order. Extra env: ST_META='"format":"pt"',
# ST_TRUNCATE=N (cut the file N bytes short), ST_RAW_JSON (use verbatim).
st_write() {
	local file=$1 json off=0 sep="" e name dt shape dims n bytes x
	local -a d
	shift
	json="{"
	[ -n "${ST_META:-}" ] && json+="\"__metadata__\":{${ST_META}}" && sep=","
	for e in "$@"; do
		IFS=: read -r name dt shape <<<"$e"
		n=1
		dims=""
		if [ -n "$shape" ]; then
			IFS=x read -ra d <<<"$shape"
			for x in "${d[@]}"; do n=$((n * x)); done
			dims=$(IFS=,; echo "${d[*]}")
		fi
		case $dt in
		F32 | I32 | U32) bytes=$((n * 4)) ;;
		F16 | BF16 | I16 | U16) bytes=$((n * 2)) ;;
		F64 | I64 | U64 | C64) bytes=$((n * 8)) ;;
		F4) bytes=$((n / 2)) ;;
		*) bytes=$n ;;
		esac
		json+="$sep\"$name\":{\"dtype\":\"$dt\",\"shape\":[$dims],\"data_offsets\":[$off,$((off + bytes))]}"
		sep=","
		off=$((off + bytes))
	done
	json+="}"
	[ -n "${ST_RAW_JSON:-}" ] && json=$ST_RAW_JSON
	while [ $((${#json} % 8)) -ne 0 ]; do json+=" "; done
	mkdir -p "$(dirname "$file")"
	{ le ${#json} 8; printf '%s' "$json"; } >"$file"
	truncate -s $((8 + ${#json} + off - ${ST_TRUNCATE:-0})) "$file"
}

# gg_str S: a GGUF string (u64 length, bytes).
gg_str() { le ${#1} 8; printf '%s' "$1"; }

# gguf_write FILE ARCH LAYERS HEADS KV_HEADS EMBD: a GGUF v3 file with 3 KVs and,
# per layer, one Q4_K attention weight [EMBD, EMBD], plus an F16 embedding.
gguf_write() {
	local file=$1 arch=$2 layers=$3 heads=$4 kvh=$5 embd=$6 i off=0 q
	q=$((embd * embd / 256 * 144))
	{
		printf 'GGUF'
		le 3 4
		le $((layers + 1)) 8
		le 5 8
		gg_str general.architecture; le 8 4; gg_str "$arch"
		gg_str "$arch.block_count"; le 4 4; le "$layers" 4
		gg_str "$arch.attention.head_count"; le 4 4; le "$heads" 4
		gg_str "$arch.attention.head_count_kv"; le 4 4; le "$kvh" 4
		gg_str "$arch.embedding_length"; le 4 4; le "$embd" 4
		gg_str token_embd.weight; le 2 4; le "$embd" 8; le 32 8; le 1 4; le 0 8
		off=$((embd * 32 * 2))
		for ((i = 0; i < layers; i++)); do
			gg_str "blk.$i.attn_q.weight"; le 2 4; le "$embd" 8; le "$embd" 8; le 12 4
			le "$off" 8
			off=$((off + q))
		done
	} >"$file"
	local size
	size=$(stat -c %s "$file")
	truncate -s $(((size + 31) / 32 * 32 + off - ${GG_TRUNCATE:-0})) "$file"
}

# mk_tf PREFIX VERSION TYPE...: a transformers install that knows TYPEs.
mk_tf() {
	local prefix=$1 version=$2 sp t
	shift 2
	sp="$prefix/lib/python3.11/site-packages"
	mkdir -p "$sp/transformers/models/auto" "$sp/transformers-$version.dist-info"
	printf '__version__ = "%s"\n' "$version" >"$sp/transformers/__init__.py"
	{
		echo "CONFIG_MAPPING_NAMES = OrderedDict("
		echo "    ["
		for t in "$@"; do
			echo "        (\"$t\", \"${t}Config\"),"
			mkdir -p "$sp/transformers/models/${t//-/_}"
		done
		echo "    ]"
		echo ")"
		echo 'MODEL_NAMES_MAPPING = OrderedDict([("gpt_oss", "GPT OSS")])'
	} >"$sp/transformers/models/auto/configuration_auto.py"
	touch "$prefix/pyvenv.cfg"
}

# config_write DIR MODEL_TYPE ARCH [EXTRA_JSON]: a llama-like config.json.
config_write() {
	mkdir -p "$1"
	cat >"$1/config.json" <<EOF
{"model_type": "$2", "architectures": ["$3"], "torch_dtype": "bfloat16",
 "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "hidden_size": 64, "transformers_version": "4.40.0"${4:+, $4}}
EOF
}

# tiny_model DIR: config, tokenizer and one safetensors file of a 2-layer llama.
tiny_model() {
	config_write "$1" llama LlamaForCausalLM
	echo '{"tokenizer_class": "LlamaTokenizer"}' >"$1/tokenizer_config.json"
	echo '{}' >"$1/tokenizer.json"
	ST_META='"format":"pt"' st_write "$1/model.safetensors" \
		model.embed_tokens.weight:BF16:128x64 \
		model.layers.0.self_attn.q_proj.weight:BF16:64x64 \
		model.layers.0.mlp.up_proj.weight:BF16:128x64 \
		model.layers.1.self_attn.q_proj.weight:BF16:64x64 \
		model.layers.1.mlp.up_proj.weight:BF16:128x64 \
		model.norm.weight:BF16:64 lm_head.weight:BF16:128x64
}

# cache_model CACHE ORG/NAME: the tiny model as huggingface_hub stores it:
# blobs named by content, snapshot entries as relative symlinks into blobs/.
cache_model() {
	local cache=$1 id=$2 repo commit=0123456789abcdef0123456789abcdef01234567 f b
	repo="$cache/models--${id/\//--}"
	mkdir -p "$repo/refs" "$repo/blobs" "$repo/snapshots/$commit"
	printf '%s' "$commit" >"$repo/refs/main"
	tiny_model "$repo/stage"
	for f in "$repo/stage"/*; do
		b=$(sha256sum "$f" | cut -c1-40)
		mv "$f" "$repo/blobs/$b"
		ln -s "../../blobs/$b" "$repo/snapshots/$commit/$(basename "$f")"
	done
	rmdir "$repo/stage"
	echo "$repo"
}
