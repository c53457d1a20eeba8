/* model_mem: the model findings about files, memory, dtypes and kernels (see
 * model.h): model-weights-*, model-device-unavailable, model-too-large,
 * model-dtype-unsupported, model-attn-unsupported, model-transformers-missing.
 * Compute-capability rules come from the knowledge base (kb/gpuarch.h): bf16
 * and FP8 in hardware from data/gpu_arch.tsv, FlashAttention-2's floor from
 * data/kernel_arch.tsv. */
#include <string.h>

#include "check/model/model.h"
#include "core/str.h"
#include "kb/gpuarch.h"

#define SECTION	 "model"
#define LIST_MAX 12

/* A byte count in the findings' arena, as str_bytes writes it. */
static const char *gib(struct cd_arena *a, uint64_t b)
{
	char buf[32];

	return arena_strdup(a, str_bytes(buf, sizeof(buf), (int64_t)b));
}

static const char *pip(const struct cd_model_facts *m, struct cd_arena *a)
{
	return m->tf.prefix ? arena_printf(a, "%s/bin/python -m pip", m->tf.prefix) : "pip";
}

void mc_transformers(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_finding *x;

	if (m->tf.path || (m->w.format && !strcmp(m->w.format, "gguf")) ||
	    m->config.present != CD_TRI_YES)
		return;
	x = findings_add(out, "model-transformers-missing", CD_SEV_WARNING, SECTION,
			 "transformers was not found, so model_type was not checked");
	finding_evidence(x, out->arena, "%s", m->tf.error ? m->tf.error : "not found");
	if (m->tf.prefix) {
		finding_evidence(x, out->arena, "Python environment: %s (from %s)", m->tf.prefix,
				 m->tf.found_via);
		finding_fix(x, out->arena, "%s install transformers", pip(m, out->arena));
	} else {
		finding_fix(x, out->arena, "cuda-doctor model %s --env /path/to/venv", m->spec);
	}
}

static int is_bad(const struct md_file *f, int corrupt)
{
	return corrupt ? f->state == MD_F_CORRUPT : f->state != MD_F_OK && f->state != MD_F_CORRUPT;
}

static void list_files(const struct cd_model_facts *m, struct cd_finding *x, struct cd_arena *a,
		       int corrupt)
{
	size_t i, shown = 0, n = 0;

	for (i = 0; i < m->w.n_files; i++) {
		const struct md_file *f = &m->w.files[i];
		if (!is_bad(f, corrupt))
			continue;
		if (shown++ < LIST_MAX - 2)
			finding_evidence(x, a, "%s: %s%s%s%s%s", f->name, md_fstate_name(f->state),
					 f->problem ? " (" : "", f->problem ? f->problem : "",
					 f->problem ? ")" : "",
					 f->blob ? arena_printf(a, " -> %s", f->blob) : "");
		n++;
	}
	if (n > LIST_MAX - 2)
		finding_evidence(x, a, "... and %zu more", n - (LIST_MAX - 2));
}

static void refetch(const struct cd_model_facts *m, struct cd_finding *x, struct cd_arena *a,
		    int force)
{
	if (m->source == MD_SRC_HUB)
		finding_fix(x, a,
			    "# these are the files on the Hub (%s): pin another --revision, or "
			    "tell the repository's owners",
			    m->hub.url);
	else if (m->source == MD_SRC_CACHE)
		finding_fix(x, a, "hf download %s%s%s%s", m->spec,
			    strcmp(m->revision, "main") ? " --revision " : "",
			    strcmp(m->revision, "main") ? m->revision : "",
			    force ? " --force-download" : "");
	else
		finding_fix(x, a, "# copy the missing or damaged files again from the source of %s",
			    m->dir);
}

static void incomplete(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	const struct md_weights *w = &m->w;
	struct cd_finding *x;
	size_t i, bad = 0;

	for (i = 0; i < w->n_files; i++)
		if (is_bad(&w->files[i], 0))
			bad++;
	if (!bad && !m->n_incomplete && !w->n_index_missing &&
	    (w->format || m->config.present != CD_TRI_YES))
		return;
	x = findings_add(out, "model-weights-incomplete", CD_SEV_ERROR, SECTION,
			 "the checkpoint is incomplete%s",
			 m->n_incomplete ? ": a download did not finish" : "");
	if (!w->format)
		finding_detail(x, a,
			       "transformers raises OSError: Error no file named "
			       "model.safetensors, or pytorch_model.bin, found in directory %s.",
			       m->dir);
	list_files(m, x, a, 0);
	for (i = 0; i < m->n_incomplete; i++)
		finding_evidence(x, a, "%s", m->incomplete[i]);
	if (w->n_index_missing)
		finding_evidence(x, a, "%zu tensor%s listed in %s missing from %s shard, e.g. %s",
				 w->n_index_missing, w->n_index_missing == 1 ? " is" : "s are",
				 w->index, w->n_index_missing == 1 ? "its" : "their",
				 w->index_missing_example ? w->index_missing_example : "?");
	refetch(m, x, a, 0);
}

static void corrupt(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x;
	size_t i, bad = 0;

	for (i = 0; i < m->w.n_files; i++)
		if (is_bad(&m->w.files[i], 1))
			bad++;
	if (!bad)
		return;
	x = findings_add(out, "model-weights-corrupt", CD_SEV_ERROR, SECTION,
			 "%zu weight file%s cannot be loaded: the header is invalid", bad,
			 bad == 1 ? "" : "s");
	finding_detail(x, a, "safetensors raises SafetensorError while deserializing the header.");
	list_files(m, x, a, 1);
	refetch(m, x, a, 1);
}

void mc_weights(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_finding *x;

	incomplete(m, out);
	corrupt(m, out);
	if (!m->w.has_pickle)
		return;
	x = findings_add(out, "model-weights-pickle", CD_SEV_WARNING, SECTION,
			 "the weights are Python pickles: loading them can run code");
	finding_detail(x, out->arena,
		       "pytorch_model*.bin is read with torch.load, which executes the pickle "
		       "unless weights_only=True (its default since PyTorch 2.6). Parameter "
		       "counts below are estimated from file sizes.");
	finding_evidence(x, out->arena, "%s in %s", m->w.format, m->dir);
	finding_fix(x, out->arena,
		    "# prefer a revision with model.safetensors; or convert once, "
		    "in a sandbox: from_pretrained(dir).save_pretrained(out, "
		    "safe_serialization=True)");
}

void mc_device(const struct cd_model_plan *p, struct cd_findings *out)
{
	struct cd_finding *x;

	if (!p->device_error)
		return;
	x = findings_add(out, "model-device-unavailable", CD_SEV_ERROR, SECTION, "%s",
			 p->device_error);
	finding_detail(x, out->arena,
		       "torch raises RuntimeError: CUDA error: invalid device "
		       "ordinal (or: Torch not compiled with CUDA enabled / no CUDA "
		       "GPUs are available).");
	finding_fix(x, out->arena, "nvidia-smi -L   # the GPUs this process can see");
	finding_fix(x, out->arena, "echo \"$CUDA_VISIBLE_DEVICES\"");
}

static const char *dtype_kw(const struct cd_model_facts *m)
{
	return model_dtype_kw(m->tf.version);
}

static void alt_fix(const struct cd_model_facts *m, const struct cd_model_plan *p,
		    const struct mp_alt *alt, struct cd_finding *x, struct cd_arena *a)
{
	const char *need = gib(a, alt->required);

	if (!strcmp(alt->what, "bfloat16") || !strcmp(alt->what, "float16"))
		finding_fix(x, a, "from_pretrained(\"%s\", %s=torch.%s)   # needs %s", m->spec,
			    dtype_kw(m), alt->what, need);
	else if (!strcmp(alt->what, "int8") || !strcmp(alt->what, "int4"))
		finding_fix(x, a,
			    "from_pretrained(\"%s\", quantization_config=BitsAndBytesConfig("
			    "load_in_%sbit=True))   # needs %s, bitsandbytes",
			    m->spec, alt->what + 3, need);
	else if (!strcmp(alt->what, "gpus") && alt->count > (int64_t)p->n_devices)
		finding_fix(x, a,
			    "# %lld GPUs like these: from_pretrained(\"%s\", device_map=\"auto\")"
			    "   # needs %s in all",
			    (long long)alt->count, m->spec, need);
	else if (!strcmp(alt->what, "offload"))
		finding_fix(x, a,
			    "from_pretrained(\"%s\", device_map=\"auto\")   # offloads %s to "
			    "the CPU%s; slow",
			    m->spec, gib(a, alt->required),
			    alt->fits == CD_TRI_NO ? ", more than the RAM available" : "");
}

static void memory_evidence(const struct cd_model_facts *m, const struct mp_request *r,
			    const struct cd_model_plan *p, struct cd_finding *x, struct cd_arena *a)
{
	size_t i;

	finding_evidence(x, a, "weights at %s: %s%s (%s)", p->dtype, gib(a, p->weights_bytes),
			 p->estimated ? ", estimated from file sizes" : "", p->dtype_reason);
	if (p->kv_known)
		finding_evidence(x, a, "KV cache: %s (%lld tokens x batch %lld)",
				 gib(a, p->kv_bytes), (long long)r->seq_len, (long long)r->batch);
	if (p->overhead)
		finding_evidence(x, a, "CUDA context and workspaces: %s per GPU",
				 gib(a, p->overhead));
	for (i = 0; i < p->n_devices && i < 8; i++) {
		const struct mp_device *d = &p->devices[i];
		finding_evidence(x, a, "%s%s%s: %s %s x %.2f = %s usable, %s placed", d->name,
				 d->model ? " " : "", d->model ? d->model : "",
				 d->free_is_total ? "total" : "free",
				 d->free == CD_UNK ? "unknown" : gib(a, (uint64_t)d->free),
				 r->headroom,
				 d->usable == CD_UNK ? "unknown" : gib(a, (uint64_t)d->usable),
				 gib(a, d->assigned));
	}
	if (p->offload_bytes)
		finding_evidence(x, a, "device_map=\"auto\" would leave %s for the CPU",
				 gib(a, p->offload_bytes));
	(void)m;
}

void mc_memory(const struct cd_model_facts *m, const struct mp_request *r,
	       const struct cd_model_plan *p, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x;
	int gpu = p->n_devices && strcmp(p->devices[0].name, "cpu");
	uint64_t short_by;
	size_t i;

	if (p->fits != CD_TRI_NO)
		return;
	short_by = p->usable > 0 && p->required > (uint64_t)p->usable
			   ? p->required - (uint64_t)p->usable
			   : p->required;
	if (p->offload_bytes > short_by)
		short_by = p->offload_bytes;
	x = findings_add(out, "model-too-large", CD_SEV_ERROR, SECTION,
			 "%s needs %s on %s; %s usable: short by %s", m->spec, gib(a, p->required),
			 p->device, gib(a, (uint64_t)p->usable), gib(a, short_by));
	finding_detail(x, a, "%s",
		       gpu ? "The load would stop with torch.OutOfMemoryError: CUDA out "
			     "of memory, after reading the weights that fit."
			   : "The process would be killed by the kernel's OOM killer.");
	memory_evidence(m, r, p, x, a);
	/* Cheapest first: dtypes that fit, then more GPUs, then CPU offload. */
	for (i = 0; i < p->n_alts; i++) {
		const struct mp_alt *alt = &p->alts[i];
		int dtype = strcmp(alt->what, "gpus") && strcmp(alt->what, "offload");
		if (dtype && alt->fits == CD_TRI_YES)
			alt_fix(m, p, alt, x, a);
		else if (dtype)
			finding_evidence(x, a, "at %s it would still need %s", alt->what,
					 gib(a, alt->required));
	}
	for (i = 0; i < p->n_alts; i++)
		if (!strcmp(p->alts[i].what, "gpus") || !strcmp(p->alts[i].what, "offload"))
			alt_fix(m, p, &p->alts[i], x, a);
}

static const struct mp_device *first_below(const struct cd_model_plan *p, int cc)
{
	size_t i;

	for (i = 0; i < p->n_devices; i++) {
		int v = p->devices[i].cc ? ver_cuda_int(p->devices[i].cc) : -1;
		if (v >= 0 && v < cc)
			return &p->devices[i];
	}
	return NULL;
}

/* The first device whose hardware lacks f (unknown is not lacking). */
static const struct mp_device *first_without(const struct cd_model_plan *p, enum gpuarch_feature f)
{
	size_t i;

	for (i = 0; i < p->n_devices; i++)
		if (mp_device_has(&p->devices[i], f) == GPUARCH_NO)
			return &p->devices[i];
	return NULL;
}

static int stored_fp8(const struct cd_model_facts *m)
{
	size_t i;

	if (m->config.quant_method && !strcmp(m->config.quant_method, "fp8"))
		return 1;
	for (i = 0; i < m->w.n_dtypes; i++)
		if (str_has_prefix(m->w.dtypes[i].dtype, "F8_") &&
		    strcmp(m->w.dtypes[i].dtype, "F8_E8M0"))
			return 1;
	return 0;
}

static void dtype_gpu(const struct cd_model_facts *m, const struct cd_model_plan *p,
		      struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	const struct mp_device *d;
	struct cd_finding *x;

	if (!strcmp(p->dtype, "bfloat16") && (d = first_without(p, GPUARCH_BF16))) {
		x = findings_add(out, "model-dtype-unsupported", CD_SEV_ERROR, SECTION,
				 "bfloat16 needs compute capability %s; %s is %s",
				 gpuarch_first(GPUARCH_BF16), d->name, d->cc);
		finding_detail(x, a,
			       "GPUs before Ampere have no bfloat16 tensor cores; bf16 kernels "
			       "are missing or emulated.");
		finding_evidence(x, a, "dtype bfloat16 (%s)", p->dtype_reason);
		finding_evidence(x, a, "%s%s%s: compute capability %s", d->name,
				 d->model ? " " : "", d->model ? d->model : "", d->cc);
		finding_fix(x, a,
			    "from_pretrained(\"%s\", %s=torch.float16)   # watch for overflow "
			    "in bf16-trained models",
			    m->spec, dtype_kw(m));
		finding_fix(x, a, "from_pretrained(\"%s\", %s=torch.float32)", m->spec,
			    dtype_kw(m));
	}
	if (!strcmp(p->dtype, "stored") && stored_fp8(m) && (d = first_without(p, GPUARCH_FP8))) {
		x = findings_add(out, "model-dtype-unsupported", CD_SEV_ERROR, SECTION,
				 "FP8 weights need compute capability %s; %s is %s",
				 gpuarch_first(GPUARCH_FP8), d->name, d->cc);
		finding_detail(x, a,
			       "transformers' FP8 quantizer refuses: FP8 quantized models is "
			       "only supported on GPUs with compute capability >= 8.9.");
		finding_evidence(x, a, "float8 tensors in the checkpoint%s%s",
				 m->config.quant_method ? ", quant_method " : "",
				 m->config.quant_method ? m->config.quant_method : "");
		finding_fix(x, a,
			    "# use the bf16 release of the model, or an Ada/Hopper/Blackwell "
			    "GPU (compute capability %s+)",
			    gpuarch_first(GPUARCH_FP8));
	}
}

void mc_dtype(const struct cd_model_facts *m, const struct mp_request *r,
	      const struct cd_model_plan *p, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x;
	int cpu = p->device && !strcmp(p->device, "cpu");

	if (!p->dtype)
		return;
	dtype_gpu(m, p, out);
	if (cpu && !strcmp(p->dtype, "float16")) {
		x = findings_add(out, "model-dtype-unsupported", CD_SEV_WARNING, SECTION,
				 "float16 on the CPU: many CPU kernels have no Half version");
		finding_detail(x, a,
			       "Expect RuntimeError: \"addmm_impl_cpu_\" not implemented for "
			       "'Half' (or a very slow fallback).");
		finding_fix(x, a, "from_pretrained(\"%s\", %s=torch.bfloat16)   # or torch.float32",
			    m->spec, dtype_kw(m));
	}
	if ((!strcmp(p->dtype, "int8") || !strcmp(p->dtype, "int4")) &&
	    m->tf.bitsandbytes == CD_TRI_NO) {
		x = findings_add(out, "model-dtype-unsupported", CD_SEV_ERROR, SECTION,
				 "%s loading needs bitsandbytes, which is not installed", p->dtype);
		finding_detail(x, a,
			       "from_pretrained raises ImportError: Using `bitsandbytes` "
			       "quantization requires the latest version of bitsandbytes.");
		finding_evidence(x, a, "no bitsandbytes package in %s",
				 m->tf.prefix ? m->tf.prefix : "the environment");
		finding_fix(x, a, "%s install -U bitsandbytes", pip(m, a));
	}
	(void)r;
}

void mc_attention(const struct cd_model_facts *m, const struct mp_request *r,
		  const struct cd_model_plan *p, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	const char *attn = r->attn ? r->attn : m->config.attn_implementation, *refusal = NULL;
	const struct mp_device *d = NULL;
	int fmaj, fmin, no_pkg = m->tf.flash_attn == CD_TRI_NO,
			cpu = p->device && !strcmp(p->device, "cpu");
	struct cd_finding *x;

	if (!attn || strcmp(attn, "flash_attention_2"))
		return;
	if (gpuarch_kernel_floor(attn, &fmaj, &fmin, &refusal) == 0)
		d = first_below(p, fmaj * 1000 + fmin * 10);
	if (!no_pkg && !d && !cpu && !p->offload_bytes &&
	    !(p->dtype && !strcmp(p->dtype, "float32")))
		return;
	x = findings_add(out, "model-attn-unsupported",
			 no_pkg || d || cpu || p->offload_bytes ? CD_SEV_ERROR : CD_SEV_WARNING,
			 SECTION, "attn_implementation=\"flash_attention_2\" cannot run here");
	finding_evidence(x, a, "attn_implementation from %s", r->attn ? "--attn" : "config.json");
	if (no_pkg)
		finding_evidence(x, a,
				 "ImportError: FlashAttention2 has been toggled on, but it "
				 "cannot be used due to the following error: the package "
				 "flash_attn seems to be not installed (%s)",
				 m->tf.prefix ? m->tf.prefix : "?");
	if (d)
		finding_evidence(x, a, "%s has compute capability %s: \"%s\"", d->name, d->cc,
				 refusal ? refusal : "below the kernel's floor");
	if (cpu)
		finding_evidence(x, a,
				 "the model would run on the CPU; FlashAttention 2 is GPU-only");
	if (p->offload_bytes)
		finding_evidence(x, a,
				 "device_map=\"auto\" offloads layers to the CPU: \"You are "
				 "attempting to use Flash Attention 2.0 with a model dispatched "
				 "on CPU or disk. This is not supported.\"");
	if (p->dtype && !strcmp(p->dtype, "float32"))
		finding_evidence(x, a,
				 "dtype float32: Flash Attention 2.0 only supports "
				 "torch.float16 and torch.bfloat16");
	if (no_pkg && !d && !cpu)
		finding_fix(x, a, "%s install flash-attn --no-build-isolation", pip(m, a));
	finding_fix(x, a, "from_pretrained(\"%s\", attn_implementation=\"sdpa\")", m->spec);
}
