/* Unit tests for src/check/model*: the memory plan and the findings on
 * synthetic facts -- probed GPUs filtered by CUDA_VISIBLE_DEVICES, free memory
 * unknown, the device_map="auto" split, quantized sizes, cheaper alternatives,
 * the task and model_type tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "check/model/model.h"
#include "core/opts.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)

struct fx {
	struct cd_opts opts;
	struct cd_facts f;
	struct cd_model_facts m;
	struct mp_request r;
	struct md_tensor t[16];
	char names[16][48];
};

/* A llama-like model: embedding, n_layers blocks of one 2-D weight each of
 * layer_mib MiB (bf16), final norm, lm_head. */
static void setup_model(struct fx *x, size_t n_layers, uint64_t layer_mib)
{
	size_t i, k = 0;

	memset(x, 0, sizeof(*x));
	facts_init(&x->f, &x->opts);
	x->m.spec = "org/m";
	x->m.revision = "main";
	x->m.config.num_hidden_layers = (int64_t)n_layers;
	x->m.config.num_attention_heads = 8;
	x->m.config.num_key_value_heads = 2;
	x->m.config.hidden_size = 1024;
	x->m.config.head_dim = CD_UNK;
	x->m.config.dtype = "bfloat16";
	x->m.tf.knows_type = CD_TRI_YES;
	x->m.tf.version = "5.1.0";
	x->m.tf.bitsandbytes = CD_TRI_YES;
	x->m.tf.flash_attn = CD_TRI_UNKNOWN;
#define T(NM, R, C)                                                                                \
	do {                                                                                       \
		x->t[k].name = NM;                                                                 \
		x->t[k].rows = (R);                                                                \
		x->t[k].nelem = (uint64_t)(R) * (C);                                               \
		x->t[k].bytes = x->t[k].nelem * 2;                                                 \
		x->t[k].bits = 16;                                                                 \
		x->t[k].ndim = (C) > 1 ? 2 : 1;                                                    \
		x->t[k].is_float = 1;                                                              \
		k++;                                                                               \
	} while (0)
	T("model.embed_tokens.weight", 512, 1024);
	for (i = 0; i < n_layers; i++) {
		snprintf(x->names[i], sizeof(x->names[i]), "model.layers.%zu.mlp.up_proj.weight",
			 i);
		T(x->names[i], layer_mib * MIB / 2048, 1024);
	}
	T("model.norm.weight", 1024, 1);
	T("lm_head.weight", 512, 1024);
#undef T
	x->m.w.tensors = x->t;
	x->m.w.n_tensors = k;
	x->m.w.format = "safetensors";
	x->m.w.params_exact = 1;
	x->r.headroom = 0.85;
	x->r.seq_len = x->r.batch = CD_UNK;
	x->r.mem_available = CD_UNK;
}

static void add_gpu(struct fx *x, const char *name, const char *cc, int64_t total, int64_t free)
{
	struct cd_gpu *g;

	if (!x->f.gpus)
		x->f.gpus = arena_calloc(&x->f.arena, 8, sizeof(*g));
	g = &x->f.gpus[x->f.n_gpus];
	g->index = (int64_t)x->f.n_gpus;
	g->name = name;
	g->compute_capability = cc;
	g->memory_total_bytes = total;
	g->memory_free_bytes = free;
	g->uuid = x->f.n_gpus ? "GPU-bbbb" : "GPU-aaaa";
	x->f.n_gpus++;
	x->f.gpus_known = 1;
}

static void probed_gpus_and_visible_devices(void **state)
{
	struct fx x;
	struct cd_model_plan p;

	(void)state;
	setup_model(&x, 4, 100);
	add_gpu(&x, "A", "8.0", 40 * GIB, 30 * GIB);
	add_gpu(&x, "B", "9.0", 80 * GIB, CD_UNK);
	x.r.visible_devices = "1";
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_string_equal(p.device, "cuda:0");
	assert_int_equal(p.n_devices, 1);
	assert_string_equal(p.devices[0].model, "B");
	assert_true(p.devices[0].free_is_total); /* free unknown: the total */
	assert_int_equal(p.devices[0].free, 80 * GIB);
	assert_int_equal(p.fits, CD_TRI_YES);
	/* By UUID prefix; an unknown entry ends the list, as CUDA does. */
	x.r.visible_devices = "GPU-aa,7,1";
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_int_equal(p.n_devices, 1);
	assert_string_equal(p.devices[0].model, "A");
	/* Weights partly unreadable: "fits" would be about part of the model. */
	x.r.visible_devices = NULL;
	x.m.w.params_exact = 0;
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_int_equal(p.fits, CD_TRI_UNKNOWN);
	assert_true(p.partial);
	x.m.w.params_exact = 1;
	/* Nothing visible: --device cuda is unavailable. */
	x.r.visible_devices = "";
	x.r.device = "cuda";
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_non_null(p.device_error);
	facts_free(&x.f);
}

static void split_across_gpus(void **state)
{
	struct fx x;
	struct cd_model_plan p;
	uint64_t weights;

	(void)state;
	setup_model(&x, 8, 1024); /* 8 GiB of blocks, 2 MiB of embeddings and head */
	x.r.n_gpu_mem = 2;
	x.r.gpu_mem[0] = x.r.gpu_mem[1] = (int64_t)(20 * GIB);
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	weights = 8 * GIB + 2 * MIB + 2048;
	assert_int_equal(p.weights_bytes, weights);
	assert_string_equal(p.device, "cuda");
	assert_int_equal(p.fits, CD_TRI_YES);
	/* GPU 0 is capped at total/2 + 1.25 x the largest layer (get_balanced_memory). */
	assert_true(p.devices[0].assigned <= weights / 2 + GIB + GIB / 4);
	assert_int_equal(p.devices[0].assigned + p.devices[1].assigned, weights);
	assert_string_equal(p.devices[0].first_unit, "model.embed_tokens");
	assert_string_equal(p.devices[1].last_unit, "lm_head");
	assert_int_equal(p.required, weights + 2 * MP_CUDA_OVERHEAD);
	/* Too small: the rest is offloaded, model-too-large with alternatives. */
	x.r.gpu_mem[0] = x.r.gpu_mem[1] = (int64_t)(3 * GIB);
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_int_equal(p.fits, CD_TRI_NO);
	assert_true(p.offload_bytes > 0);
	assert_true(p.n_alts >= 3);
	assert_string_equal(p.alts[0].what, "int8");
	facts_free(&x.f);
}

static void dtypes_and_alternatives(void **state)
{
	struct fx x;
	struct cd_model_plan p;
	struct cd_findings fs;

	(void)state;
	setup_model(&x, 2, 512);
	x.m.tf.version = "4.44.2"; /* loads float32 by default */
	x.r.n_gpu_mem = 1;
	x.r.gpu_mem[0] = (int64_t)(2 * GIB);
	x.r.gpu_cc = "7.5";
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_string_equal(p.dtype, "float32");
	assert_non_null(strstr(p.dtype_reason, "unless torch_dtype=\"auto\""));
	assert_int_equal(p.fits, CD_TRI_NO);
	assert_string_equal(p.alts[0].what, "float16"); /* bf16 is not for 7.5 */
	assert_int_equal(p.alts[0].fits, CD_TRI_YES);
	findings_init(&fs, &x.f.arena);
	check_model(&x.f, &x.m, &x.r, &p, &fs);
	assert_non_null(findings_find(&fs, "model-too-large"));
	assert_non_null(strstr(findings_find(&fs, "model-too-large")->fix[0], "torch.float16"));
	/* transformers 5: config dtype; bf16 on 7.5 is unsupported. */
	x.m.tf.version = "5.0.0";
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_string_equal(p.dtype, "bfloat16");
	findings_init(&fs, &x.f.arena);
	check_model(&x.f, &x.m, &x.r, &p, &fs);
	assert_non_null(findings_find(&fs, "model-dtype-unsupported"));
	/* int4 of a 2-D Linear weight: n/2 + n/64 x 4 bytes. */
	assert_int_equal(mp_tensor_bytes(&x.t[1], "int4"), x.t[1].nelem / 2 + x.t[1].nelem / 16);
	assert_int_equal(mp_tensor_bytes(&x.t[1], "int8"), x.t[1].nelem + 4 * x.t[1].rows);
	/* Embeddings and the head stay 16-bit. */
	assert_int_equal(mp_tensor_bytes(&x.t[0], "int4"), x.t[0].nelem * 2);
	facts_free(&x.f);
}

/* data/transformers_api.tsv: the dtype keyword (4.56) and dtype="auto" by default (5). */
static void transformers_versions(void **state)
{
	struct fx x;
	struct cd_model_plan p;
	char v[32];

	(void)state;
	assert_int_equal(model_tf_since("dtype_keyword", v, sizeof(v)), 0);
	assert_string_equal(v, "4.56.0");
	assert_int_equal(model_tf_since("dtype_auto_default", v, sizeof(v)), 0);
	assert_string_equal(v, "5.0.0");
	assert_int_equal(model_tf_since("no_such_change", v, sizeof(v)), CD_ENOENT);
	assert_string_equal(v, "");
	assert_int_equal(model_tf_since(NULL, v, sizeof(v)), CD_ENOENT);
	assert_int_equal(model_tf_since("dtype_keyword", v, 4), CD_ERANGE);
	assert_string_equal(model_dtype_kw("4.55.2"), "torch_dtype");
	assert_string_equal(model_dtype_kw("4.56.0"), "dtype");
	assert_string_equal(model_dtype_kw("4.56.0.dev0"), "dtype");
	assert_string_equal(model_dtype_kw("5.17.0"), "dtype");
	assert_string_equal(model_dtype_kw(NULL), "dtype");
	setup_model(&x, 2, 512);
	x.m.tf.version = "4.57.1"; /* renamed keyword, float32 still the default */
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_string_equal(p.dtype, "float32");
	assert_non_null(strstr(p.dtype_reason, "transformers 4.57.1 loads float32 unless dtype="));
	x.m.tf.version = "5.0.0rc1";
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_string_not_equal(p.dtype, "float32");
	facts_free(&x.f);
}

static void kv_cache_geometry(void **state)
{
	struct fx x;
	struct cd_model_plan p;

	(void)state;
	setup_model(&x, 4, 1);
	x.r.seq_len = 4096;
	x.r.batch = 2;
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	/* head_dim = 1024 / 8 = 128; 2 x 4 layers x 2 kv heads x 128 x 8192 tokens x 2 B */
	assert_true(p.kv_known);
	assert_int_equal(p.kv_bytes, 2ULL * 4 * 2 * 128 * 4096 * 2 * 2);
	x.m.config.num_hidden_layers = CD_UNK;
	model_plan(&x.f, &x.m, &x.r, &x.f.arena, &p);
	assert_false(p.kv_known);
	assert_non_null(p.kv_note);
	facts_free(&x.f);
}

static void tables(void **state)
{
	struct md_config c;
	struct cd_arena a;
	const char *src, *first;
	int native;

	(void)state;
	arena_init(&a);
	memset(&c, 0, sizeof(c));
	assert_string_equal(model_task_of("LlamaForCausalLM", &c, &a), "text-generation");
	assert_string_equal(model_task_of("GPT2LMHeadModel", &c, &a), "text-generation");
	assert_string_equal(model_task_of("XLMWithLMHeadModel", &c, &a), "fill-mask");
	assert_string_equal(model_task_of("BertModel", &c, &a), "feature-extraction");
	assert_null(model_task_of("BertForPreTraining", &c, &a));
	assert_string_equal(model_task_of("T5ForConditionalGeneration", &c, &a),
			    "text2text-generation");
	c.has_vision = 1;
	assert_string_equal(model_task_of("LlavaForConditionalGeneration", &c, &a),
			    "image-text-to-text");
	assert_string_equal(model_type_first("qwen3", &native, &src, &a), "4.51.0");
	assert_true(native);
	assert_non_null(strstr(src, "Qwen3"));
	/* The answers are the caller's: a second lookup leaves the first alone. */
	first = model_task_of("GPT2LMHeadModel", &c, &a);
	assert_non_null(model_task_of("BertModel", &c, &a));
	assert_string_equal(first, "text-generation");
	assert_non_null(model_type_first("minicpmv", &native, &src, &a));
	assert_false(native);
	assert_null(model_type_first("no-such-type", &native, &src, &a));
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(probed_gpus_and_visible_devices),
		cmocka_unit_test(split_across_gpus),
		cmocka_unit_test(dtypes_and_alternatives),
		cmocka_unit_test(transformers_versions),
		cmocka_unit_test(kv_cache_geometry),
		cmocka_unit_test(tables),
	};
	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
