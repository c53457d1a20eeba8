# The repositories behind tests/e2e/hubserver.py (hub.bats), built with the
# writers of model_helpers.bash: real safetensors and GGUF headers, the tensor
# data a sparse hole, so a 7 GB checkpoint costs a few KB of disk. The
# recorded API answers in hub/api/*.json list these files with these sizes.

# hub_repos DIR: DIR/repos/ORG/NAME/...
hub_repos() {
	local r=$1/repos i s1=() s2=()
	# org/big: 8 layers of hidden size 8192, two shards and their index.
	config_write "$r/org/big" llama LlamaForCausalLM
	sed -i 's/"hidden_size": 64/"hidden_size": 8192/; s/"num_hidden_layers": 2/"num_hidden_layers": 8/' \
		"$r/org/big/config.json"
	echo '{"tokenizer_class": "LlamaTokenizer"}' >"$r/org/big/tokenizer_config.json"
	echo '{}' >"$r/org/big/tokenizer.json"
	for i in 0 1 2 3; do s1+=("model.layers.$i.self_attn.q_proj.weight:BF16:8192x8192"
		"model.layers.$i.mlp.up_proj.weight:BF16:28672x8192"); done
	for i in 4 5 6 7; do s2+=("model.layers.$i.self_attn.q_proj.weight:BF16:8192x8192"
		"model.layers.$i.mlp.up_proj.weight:BF16:28672x8192"); done
	st_write "$r/org/big/model-00001-of-00002.safetensors" \
		model.embed_tokens.weight:BF16:32000x8192 "${s1[@]}"
	st_write "$r/org/big/model-00002-of-00002.safetensors" "${s2[@]}" \
		model.norm.weight:BF16:8192 lm_head.weight:BF16:32000x8192
	{
		printf '{"metadata": {"total_size": 0}, "weight_map": {'
		printf '"model.embed_tokens.weight": "model-00001-of-00002.safetensors"'
		for i in 0 1 2 3 4 5 6 7; do
			local s=model-00001-of-00002.safetensors
			[ "$i" -ge 4 ] && s=model-00002-of-00002.safetensors
			printf ', "model.layers.%s.self_attn.q_proj.weight": "%s"' "$i" "$s"
			printf ', "model.layers.%s.mlp.up_proj.weight": "%s"' "$i" "$s"
		done
		printf ', "model.norm.weight": "model-00002-of-00002.safetensors"'
		printf ', "lm_head.weight": "model-00002-of-00002.safetensors"}}\n'
	} >"$r/org/big/model.safetensors.index.json"
	# org/gated: the same files; the recorded routes answer 401/403 for them.
	mkdir -p "$r/org/gated"
	cp "$r/org/big/config.json" "$r/org/gated/"
	# org/quant: two GGUF files; the first by name is planned.
	mkdir -p "$r/org/quant"
	gguf_write "$r/org/quant/tiny-Q4_K_M.gguf" llama 2 4 2 256
	gguf_write "$r/org/quant/tiny-Q8_0.gguf" llama 2 4 2 256
	# org/hostile: a header length of 2^40 bytes, which must not be fetched.
	config_write "$r/org/hostile" llama LlamaForCausalLM
	{ le $((1 << 40)) 8; printf '{"a":1}'; } >"$r/org/hostile/model.safetensors"
	truncate -s 1000000 "$r/org/hostile/model.safetensors"
}
