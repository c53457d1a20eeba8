/* model_plan: the memory a load needs and where device_map="auto" would put
 * it (see model.h). Sizes at a dtype: floating tensors are cast, integer ones
 * (packed quantized weights, buffers) keep their stored size. int8 and int4
 * follow bitsandbytes as transformers uses it: the 2-D weights of Linear layers
 * are quantized, embeddings and the output head (lm_head, skipped by
 * get_keys_to_not_convert) stay in float16 with everything else.
 *   int8 (LLM.int8, Int8Params): 1 byte per weight + one float32 scale per
 *        output row (SCB).
 *   int4 (NF4/FP4, Params4bit, blocksize 64, no double quantization, the
 *        BitsAndBytesConfig defaults): half a byte per weight + one float32
 *        absmax per 64 weights.
 * The split follows transformers' get_balanced_memory (integrations/
 * accelerate.py): every GPU but the last is capped at total / n_gpus plus a
 * buffer of 1.25 x the largest layer; layers then fill the GPUs in order and
 * what does not fit is offloaded to the CPU. */
#include <stdlib.h>
#include <string.h>

#include "check/model/model.h"
#include "core/str.h"

static const struct {
	const char *name, *torch;
	unsigned size;
} dtypes[] = {
	{"bf16", "bfloat16", 2}, {"fp16", "float16", 2}, {"fp32", "float32", 4},
	{"int8", "int8", 1},	 {"int4", "int4", 1},
};

unsigned mp_dtype_size(const char *d)
{
	if (!d)
		return 0;
	if (!strcmp(d, "bfloat16") || !strcmp(d, "float16") || !strcmp(d, "half") ||
	    !strcmp(d, "bf16") || !strcmp(d, "fp16"))
		return 2;
	if (!strcmp(d, "float32") || !strcmp(d, "float") || !strcmp(d, "fp32"))
		return 4;
	if (!strcmp(d, "float64"))
		return 8;
	return 0;
}

static int is_embedding(const char *n)
{
	return strstr(n, "embed") || strstr(n, "wte.") || strstr(n, "wpe.") ||
	       strstr(n, "token_embd") || !strcmp(n, "shared.weight");
}

static int is_head(const char *n)
{
	return str_has_prefix(n, "lm_head.") || strstr(n, ".lm_head.") ||
	       str_has_prefix(n, "embed_out.") || !strcmp(n, "output.weight");
}

/* A weight bitsandbytes would quantize: 2-D, floating, of a Linear layer. */
static int is_linear(const struct md_tensor *t)
{
	return t->ndim == 2 && t->is_float && str_has_suffix(t->name, ".weight") &&
	       !is_embedding(t->name) && !is_head(t->name);
}

/* Bytes of one tensor when loaded at dtype d ("stored" keeps them). */
uint64_t mp_tensor_bytes(const struct md_tensor *t, const char *d)
{
	unsigned size = mp_dtype_size(d);

	if (!strcmp(d, "stored") || !t->is_float)
		return t->bytes;
	if (!strcmp(d, "int8"))
		return is_linear(t) ? t->nelem + 4 * t->rows : t->nelem * 2;
	if (!strcmp(d, "int4"))
		return is_linear(t) ? (t->nelem + 1) / 2 + (t->nelem + 63) / 64 * 4 : t->nelem * 2;
	return t->nelem * (size ? size : 4);
}

/* Pickle checkpoints: no headers, so scale the file sizes. */
static uint64_t estimate_bytes(const struct cd_model_facts *m, const char *d)
{
	unsigned stored = mp_dtype_size(m->config.dtype) ? mp_dtype_size(m->config.dtype) : 4;
	uint64_t params = m->w.disk_bytes / stored;

	if (!strcmp(d, "stored"))
		return m->w.disk_bytes;
	if (!strcmp(d, "int8"))
		return params + params / 64; /* scales and unquantized layers, approx. */
	if (!strcmp(d, "int4"))
		return params / 2 + params / 8;
	return params * (mp_dtype_size(d) ? mp_dtype_size(d) : 4);
}

uint64_t mp_weights_at(const struct cd_model_facts *m, const char *d, int *estimated)
{
	uint64_t sum = 0;
	size_t i;

	*estimated = 0;
	if (!m->w.n_tensors && m->w.disk_bytes && m->w.has_pickle) {
		*estimated = 1;
		return estimate_bytes(m, d);
	}
	for (i = 0; i < m->w.n_tensors; i++)
		sum += mp_tensor_bytes(&m->w.tensors[i], d);
	return sum;
}

/* The floating dtype holding most parameters, as a torch name. */
static const char *dominant(const struct cd_model_facts *m)
{
	const struct md_dtype_stat *best = NULL;
	size_t i;

	for (i = 0; i < m->w.n_dtypes; i++) {
		const char *d = m->w.dtypes[i].dtype;
		if (strcmp(d, "F16") && strcmp(d, "BF16") && strcmp(d, "F32") &&
		    !str_has_prefix(d, "F8"))
			continue;
		if (!best || m->w.dtypes[i].params > best->params)
			best = &m->w.dtypes[i];
	}
	if (!best)
		return NULL;
	return !strcmp(best->dtype, "F16")    ? "float16"
	       : !strcmp(best->dtype, "BF16") ? "bfloat16"
	       : !strcmp(best->dtype, "F32")  ? "float32"
					      : "stored";
}

static void resolve_dtype(const struct cd_model_facts *m, const struct mp_request *r,
			  struct cd_arena *a, struct cd_model_plan *p)
{
	const char *d;
	char auto_since[32];
	size_t i;

	for (i = 0; r->dtype && i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(r->dtype, dtypes[i].name)) {
			p->dtype = dtypes[i].torch;
			p->dtype_reason = "given with --dtype";
			return;
		}
	if (m->w.format && !strcmp(m->w.format, "gguf")) {
		p->dtype = "stored";
		p->dtype_reason = "GGUF tensors as stored (llama.cpp); transformers' gguf_file= "
				  "dequantizes, plan that with --dtype";
	} else if (m->config.quant_method) {
		p->dtype = "stored";
		p->dtype_reason = arena_printf(a, "pre-quantized checkpoint (quant_method %s)",
					       m->config.quant_method);
	} else if (m->tf.version &&
		   model_tf_since("dtype_auto_default", auto_since, sizeof(auto_since)) == 0 &&
		   ver_cmp(m->tf.version, auto_since) < 0) {
		p->dtype = "float32";
		p->dtype_reason = arena_printf(a,
					       "transformers %s loads float32 unless %s=\"auto\" "
					       "is passed",
					       m->tf.version, model_dtype_kw(m->tf.version));
	} else if (mp_dtype_size(m->config.dtype)) {
		p->dtype = m->config.dtype;
		p->dtype_reason = "config.json dtype (transformers 5 loads dtype=\"auto\")";
	} else if ((d = dominant(m))) {
		p->dtype = d;
		p->dtype_reason = "the checkpoint's dtype";
	} else {
		p->dtype = "float32";
		p->dtype_reason = "no dtype in config.json or weights";
	}
}

static unsigned kv_elem(const struct cd_model_plan *p, const struct cd_model_facts *m)
{
	if (!strcmp(p->dtype, "float32"))
		return 4;
	if (!strcmp(p->dtype, "stored") && mp_dtype_size(m->config.dtype) == 4)
		return 4;
	return 2;
}

/* K and V for every layer: 2 x layers x kv_heads x head_dim x tokens x bytes. */
static void kv_cache(const struct cd_model_facts *m, const struct mp_request *r,
		     struct cd_model_plan *p)
{
	const struct md_config *c = &m->config;
	int64_t layers = c->num_hidden_layers, heads = c->num_attention_heads,
		kv = c->num_key_value_heads, hd = c->head_dim, hidden = c->hidden_size;
	uint64_t v;

	if (r->seq_len == CD_UNK)
		return;
	if (m->w.format && !strcmp(m->w.format, "gguf")) {
		layers = m->w.gguf.block_count, heads = m->w.gguf.head_count;
		kv = m->w.gguf.head_count_kv, hd = m->w.gguf.key_length;
		hidden = m->w.gguf.embedding_length;
	}
	if (kv == CD_UNK)
		kv = heads;
	if (hd == CD_UNK && hidden != CD_UNK && heads != CD_UNK && heads > 0)
		hd = hidden / heads;
	if (layers == CD_UNK || kv == CD_UNK || hd == CD_UNK) {
		p->kv_note = "config.json lacks the layer count, KV heads or head size";
		return;
	}
	/* config.json is untrusted: every product is checked. */
	if (__builtin_mul_overflow((uint64_t)layers, (uint64_t)kv, &v) ||
	    __builtin_mul_overflow(v, (uint64_t)hd, &v) ||
	    __builtin_mul_overflow(v, (uint64_t)r->seq_len, &v) ||
	    __builtin_mul_overflow(v, (uint64_t)r->batch, &v) ||
	    __builtin_mul_overflow(v, 2ULL * kv_elem(p, m), &v) || v > (uint64_t)INT64_MAX) {
		p->kv_note = "the KV cache size overflows 64 bits (config.json geometry)";
		return;
	}
	p->kv_bytes = v;
	p->kv_known = 1;
}

/* CUDA_VISIBLE_DEVICES: indices or GPU-UUID prefixes, comma-separated; CUDA
 * stops enumerating at the first entry it cannot match. NULL: all visible. */
static int visible(const struct cd_facts *f, const char *cvd, size_t *sel, size_t *n)
{
	const char *p = cvd;
	size_t i;

	*n = 0;
	if (!cvd) {
		for (i = 0; i < f->n_gpus && i < MP_GPUS_MAX; i++)
			sel[(*n)++] = i;
		return 0;
	}
	while (*p && *n < MP_GPUS_MAX) {
		size_t len = strcspn(p, ","), k, hit = (size_t)-1;
		char tok[96];
		str_ncopy(tok, sizeof(tok), p, len);
		str_trim(tok);
		if (str_has_prefix(tok, "MIG-"))
			return -1; /* MIG instances: not mapped here */
		for (k = 0; k < f->n_gpus; k++) {
			const struct cd_gpu *g = &f->gpus[k];
			uint64_t idx;
			if ((!str_to_u64(tok, &idx) && g->index == (int64_t)idx) ||
			    (str_has_prefix(tok, "GPU-") && g->uuid &&
			     str_has_prefix(g->uuid, tok)))
				hit = k;
		}
		if (hit == (size_t)-1)
			break;
		sel[(*n)++] = hit;
		p += len + (p[len] == ',');
	}
	return 0;
}

static size_t gpu_devices(const struct cd_facts *f, const struct mp_request *r, struct cd_arena *a,
			  struct mp_device *d, int *known)
{
	size_t sel[MP_GPUS_MAX], n = 0, i;

	*known = 1;
	if (r->n_gpu_mem) {
		for (i = 0; i < r->n_gpu_mem && i < MP_GPUS_MAX; i++) {
			d[i].name = arena_printf(a, "cuda:%zu", i);
			d[i].model = "(--gpu-memory)";
			d[i].cc = r->gpu_cc;
			d[i].free = r->gpu_mem[i];
		}
		return i;
	}
	if (!f->gpus_known || visible(f, r->visible_devices, sel, &n)) {
		*known = 0;
		if (!r->gpu_cc)
			return 0;
		d[0].name = "cuda:0"; /* --gpu-cc alone: one GPU of unknown size */
		d[0].cc = r->gpu_cc;
		d[0].free = CD_UNK;
		return 1;
	}
	for (i = 0; i < n; i++) {
		const struct cd_gpu *g = &f->gpus[sel[i]];
		d[i].name = arena_printf(a, "cuda:%zu", i);
		d[i].model = g->name;
		d[i].cc = r->gpu_cc ? r->gpu_cc : g->compute_capability;
		d[i].free = g->memory_free_bytes != CD_UNK ? g->memory_free_bytes
							   : g->memory_total_bytes;
		d[i].free_is_total = g->memory_free_bytes == CD_UNK && d[i].free != CD_UNK;
	}
	return n;
}

/* The plan loads on the CPU: one device, the memory available to it. */
static void use_cpu(const struct mp_request *r, struct mp_device *g, struct cd_model_plan *p)
{
	g[0].name = "cpu";
	g[0].free = r->mem_available;
	p->device = "cpu";
	p->devices = g;
	p->n_devices = 1;
}

static void pick_devices(const struct cd_facts *f, const struct mp_request *r, struct cd_arena *a,
			 struct cd_model_plan *p)
{
	struct mp_device *g = arena_calloc(a, MP_GPUS_MAX, sizeof(*g));
	int known;
	size_t n;
	uint64_t idx;

	if (!g)
		return;
	if (r->device && !strcmp(r->device, "cpu")) {
		use_cpu(r, g, p);
		return;
	}
	n = gpu_devices(f, r, a, g, &known);
	if (r->device && str_has_prefix(r->device, "cuda:") && !str_to_u64(r->device + 5, &idx)) {
		p->device = r->device;
		if (idx < n) {
			g[0] = g[idx];
			p->devices = g;
			p->n_devices = 1;
		} else if (known) {
			p->device_error = arena_printf(a, "%s does not exist: %zu GPU%s visible",
						       r->device, n, n == 1 ? "" : "s");
		}
		return;
	}
	if (!n) {
		if (known || (f->gpus_known && !f->n_gpus))
			p->device_error = r->device ? "--device cuda, but no GPU is visible" : NULL;
		if (!r->device && f->gpus_known)
			use_cpu(r, g, p);
		return;
	}
	p->device = n == 1 ? "cuda:0" : "cuda";
	p->devices = g;
	p->n_devices = n;
}

enum gpuarch_answer mp_device_has(const struct mp_device *d, enum gpuarch_feature f)
{
	int v = d->cc ? ver_cuda_int(d->cc) : -1;

	return v < 0 ? GPUARCH_UNKNOWN : gpuarch_has(v / 1000, (v % 1000) / 10, f);
}

/* No device lacks f (devices of unknown hardware do not count against it). */
static int none_without(const struct cd_model_plan *p, enum gpuarch_feature f)
{
	size_t i;

	for (i = 0; i < p->n_devices; i++)
		if (mp_device_has(&p->devices[i], f) == GPUARCH_NO)
			return 0;
	return 1;
}

static void add_alt(struct cd_model_plan *p, const char *what, uint64_t req, enum cd_tri fits,
		    int64_t count)
{
	if (p->n_alts < sizeof(p->alts) / sizeof(p->alts[0]))
		p->alts[p->n_alts++] = (struct mp_alt){what, req, fits, count};
}

/* Cheaper ways to load, each priced with the same placement rules. */
static void alternatives(const struct cd_model_facts *m, const struct mp_request *r,
			 struct cd_arena *a, struct cd_model_plan *p)
{
	static const char *const order[] = {"half", "int8", "int4"};
	struct mp_device scratch[MP_GPUS_MAX];
	struct mp_eval e;
	size_t i, n = p->n_devices < MP_GPUS_MAX ? p->n_devices : MP_GPUS_MAX;
	int64_t cap = INT64_MAX;
	uint64_t need;

	if (!strcmp(p->dtype, "stored"))
		goto gpus;
	for (i = 0; i < 3; i++) {
		const char *d = order[i];
		if (!strcmp(d, "half")) {
			if (strcmp(p->dtype, "float32"))
				continue;
			d = none_without(p, GPUARCH_BF16) ? "bfloat16" : "float16";
		} else if (!strcmp(p->dtype, "int4") ||
			   (!strcmp(d, "int8") && !strcmp(p->dtype, "int8"))) {
			continue;
		}
		memcpy(scratch, p->devices, n * sizeof(*scratch));
		mp_evaluate(m, r, d, p->kv_bytes, scratch, n, a, &e);
		add_alt(p, d, e.required, e.fits, 0);
	}
gpus:
	if (!strcmp(p->devices[0].name, "cpu"))
		return;
	for (i = 0; i < n; i++)
		if (p->devices[i].budget < cap)
			cap = p->devices[i].budget;
	need = p->weights_bytes + p->kv_bytes;
	if (cap > 0)
		add_alt(p, "gpus",
			need + MP_CUDA_OVERHEAD * ((need + (uint64_t)cap - 1) / (uint64_t)cap),
			CD_TRI_YES, (int64_t)((need + (uint64_t)cap - 1) / (uint64_t)cap));
	/* "offload": what device_map="auto" would leave for the CPU. */
	for (i = 0, cap = 0; i < n; i++)
		cap += p->devices[i].budget > 0 ? p->devices[i].budget : 0;
	need = need > (uint64_t)cap ? need - (uint64_t)cap : 0;
	add_alt(p, "offload", need,
		r->mem_available == CD_UNK				 ? CD_TRI_UNKNOWN
		: (double)need <= (double)r->mem_available * r->headroom ? CD_TRI_YES
									 : CD_TRI_NO,
		0);
}

void model_plan(const struct cd_facts *f, const struct cd_model_facts *m,
		const struct mp_request *r, struct cd_arena *a, struct cd_model_plan *p)
{
	struct mp_eval e;

	memset(p, 0, sizeof(*p));
	p->fits = CD_TRI_UNKNOWN;
	p->usable = CD_UNK;
	p->overhead = MP_CUDA_OVERHEAD;
	if (r->task) {
		p->task = r->task;
		p->task_source = "--task";
	} else if (m->config.n_arch) {
		p->task = model_task_of(m->config.architectures[0], &m->config, a);
		p->task_source = m->config.architectures[0];
	}
	resolve_dtype(m, r, a, p);
	kv_cache(m, r, p);
	pick_devices(f, r, a, p);
	mp_evaluate(m, r, p->dtype, p->kv_bytes, p->devices, p->n_devices, a, &e);
	p->weights_bytes = e.weights;
	p->estimated = e.estimated;
	p->required = e.required;
	p->usable = e.usable;
	p->fits = e.fits;
	p->offload_bytes = e.offload;
	/* Missing or unreadable weights: a "fits" would be about part of the model. */
	if (p->fits == CD_TRI_YES && !p->estimated && !m->w.params_exact) {
		p->fits = CD_TRI_UNKNOWN;
		p->partial = 1;
	}
	p->overhead = p->n_devices && strcmp(p->devices[0].name, "cpu") ? MP_CUDA_OVERHEAD : 0;
	if (p->fits == CD_TRI_NO)
		alternatives(m, r, a, p);
}
