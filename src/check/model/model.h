/* model checks: from the model facts (probe/model.h), the GPUs and the
 * request (device, dtype, task, sequence length), a memory plan -- the bytes a
 * load would need at the requested dtype, the KV cache, the per-process CUDA
 * overhead, and how device_map="auto" would split the layers over the GPUs --
 * and the model-* findings. Pure functions: no I/O; everything allocated comes
 * from the findings' arena. Sizes are documented in docs/model.md. */
#ifndef CD_CHECK_MODEL_H
#define CD_CHECK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "probe/model/model.h"
#include "core/err.h"
#include "facts/facts.h"
#include "facts/finding.h"
#include "kb/gpuarch.h"

#define MP_GPUS_MAX 64

/* Per-process CUDA overhead reserved on every GPU the model uses: a CUDA
 * context with lazy module loading measures 287 MiB to 426 MiB (pytorch PR
 * #86509, unsloth-zoo PR #1053, torch 2.10 / CUDA 13.0 on an RTX 6000 Ada);
 * rounded up to 512 MiB to cover cuBLAS/cuDNN workspaces. */
#define MP_CUDA_OVERHEAD ((uint64_t)512 << 20)

struct mp_request {
	const char *device;	/* "cuda", "cuda:N", "cpu"; NULL: cuda when GPUs are known */
	const char *dtype;	/* "auto" (NULL), "bf16", "fp16", "fp32", "int8", "int4" */
	const char *task;	/* --task */
	const char *attn;	/* --attn (overrides config.json's attn_implementation) */
	double headroom;	/* fraction of free memory a plan may use (0.85) */
	int64_t seq_len, batch; /* CD_UNK when not given */
	int trust_remote_code;
	size_t n_gpu_mem;
	int64_t gpu_mem[MP_GPUS_MAX]; /* --gpu-memory: free bytes per GPU */
	const char *gpu_cc;	      /* --gpu-cc X.Y for every GPU */
	int64_t mem_available;	      /* host MemAvailable (for --device cpu), CD_UNK */
	const char *visible_devices;  /* CUDA_VISIBLE_DEVICES, NULL when unset */
};

/* One device of the plan. */
struct mp_device {
	const char *name;  /* "cuda:0" or "cpu" */
	const char *model; /* GPU name, NULL when unknown */
	const char *cc;	   /* compute capability, NULL when unknown */
	int64_t free;	   /* bytes free (or total when free is unknown), CD_UNK */
	int free_is_total; /* free was unknown: the plan used the total */
	int64_t usable;	   /* free x headroom, CD_UNK */
	int64_t budget;	   /* usable minus overhead, capped by device_map balancing */
	uint64_t assigned; /* weights and KV cache placed here */
	size_t n_units;
	const char *first_unit, *last_unit;
};

/* A cheaper way to load, priced the same way. */
struct mp_alt {
	const char *what; /* "bf16", "int8", "int4", "gpus", "offload" */
	uint64_t required;
	enum cd_tri fits;
	int64_t count; /* "gpus": how many GPUs of this size */
};

struct cd_model_plan {
	const char *device; /* "cuda:0", "cuda" (device_map="auto"), "cpu"; NULL unknown */
	const char *device_error;
	const char *dtype;	  /* "bfloat16", "float16", "float32", "int8", "int4", "stored" */
	const char *dtype_reason; /* why, for auto */
	const char *task;	  /* the task a pipeline would run */
	const char *task_source;  /* "--task", the architecture class, NULL */
	int estimated;		  /* sizes estimated from file sizes (pickle weights) */
	int partial;		  /* some weights could not be read: sizes are a lower bound */
	uint64_t weights_bytes;
	int kv_known;
	uint64_t kv_bytes;
	const char *kv_note;
	uint64_t overhead; /* per GPU used */
	uint64_t required; /* everything on every device */
	int64_t usable;	   /* sum of usable memory, CD_UNK */
	enum cd_tri fits;
	uint64_t offload_bytes; /* left for the CPU by the device_map split */
	size_t n_devices;
	struct mp_device *devices;
	size_t n_alts;
	struct mp_alt alts[6];
};

/* Build the plan; gpus are the probed GPUs (may be overridden by req). */
void model_plan(const struct cd_facts *f, const struct cd_model_facts *m,
		const struct mp_request *req, struct cd_arena *a, struct cd_model_plan *p);

/* The model-* findings. */
void check_model(const struct cd_facts *f, const struct cd_model_facts *m,
		 const struct mp_request *req, const struct cd_model_plan *p,
		 struct cd_findings *out);

/* The pipeline task of an architecture class name (data/model_tasks.tsv), in
 * a, or NULL; config decides ForConditionalGeneration (vision, audio, text). */
const char *model_task_of(const char *arch, const struct md_config *c, struct cd_arena *a);
/* First transformers release with a model_type (data/model_types.tsv), in a
 * (as *source); NULL when not known. *native is 0 when no release ships it
 * natively. */
const char *model_type_first(const char *type, int *native, const char **source,
			     struct cd_arena *a);
/* The first transformers release with a behaviour change of from_pretrained
 * (data/transformers_api.tsv: "dtype_keyword", "dtype_auto_default") into
 * out; CD_ENOENT when the table has none, CD_ERANGE when it does not fit. */
CD_WUR int model_tf_since(const char *change, char *out, size_t cap);
/* from_pretrained's dtype keyword for that transformers version: "dtype", or
 * "torch_dtype" before the rename (also when the version is unknown: "dtype"). */
const char *model_dtype_kw(const char *tf_version);

/* Bytes of n elements of a torch dtype name ("bfloat16"), 0 when unknown. */
unsigned mp_dtype_size(const char *dtype);
/* Does the device's hardware have f (kb/gpuarch.h)? Unknown without a
 * compute capability. */
enum gpuarch_answer mp_device_has(const struct mp_device *d, enum gpuarch_feature f);

/* Internal to check/model*.c: the finding families of model_mem.c. */
void mc_transformers(const struct cd_model_facts *m, struct cd_findings *out);
void mc_weights(const struct cd_model_facts *m, struct cd_findings *out);
void mc_device(const struct cd_model_plan *p, struct cd_findings *out);
void mc_memory(const struct cd_model_facts *m, const struct mp_request *r,
	       const struct cd_model_plan *p, struct cd_findings *out);
void mc_dtype(const struct cd_model_facts *m, const struct mp_request *r,
	      const struct cd_model_plan *p, struct cd_findings *out);
void mc_attention(const struct cd_model_facts *m, const struct mp_request *r,
		  const struct cd_model_plan *p, struct cd_findings *out);

struct mp_eval {
	uint64_t weights, required, offload;
	int64_t usable;
	enum cd_tri fits;
	int estimated;
};
uint64_t mp_tensor_bytes(const struct md_tensor *t, const char *dtype);
uint64_t mp_weights_at(const struct cd_model_facts *m, const char *dtype, int *estimated);
/* Place the model at dtype (plus kv bytes) on devs[0..n) as device_map="auto"
 * would (n == 1: the whole model on that GPU); fills devs and out. */
void mp_evaluate(const struct cd_model_facts *m, const struct mp_request *r, const char *dtype,
		 uint64_t kv, struct mp_device *devs, size_t n, struct cd_arena *a,
		 struct mp_eval *out);

#endif
