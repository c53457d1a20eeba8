/* check/jit: facts -> findings for `cuda-doctor jit`, and the per-op table
 * (DeepSpeed's CUDA ops and a generic torch CUDA extension: ready or not and
 * the first reason). Pure functions of the facts: no I/O; the knowledge base
 * (data/deepspeed_ops.tsv, host_compiler.tsv, gpu_arch.tsv,
 * cuda_dev_files.tsv) is read from the embedded copy. Strings are allocated
 * from the findings' arena. */
#ifndef CD_CHECK_JIT_H
#define CD_CHECK_JIT_H

#include "core/err.h"
#include "probe/jit/jit.h"
#include "probe/jit/jit_smoke.h"
#include "facts/finding.h"

enum jit_op_state { JIT_OP_READY, JIT_OP_PREBUILT, JIT_OP_NOT_READY, JIT_OP_UNKNOWN };

struct jit_op_row {
	const char *name;
	const char *builder; /* op_builder/<op>.py, "-" for the generic extension */
	const char *headers; /* comma-separated, from the table */
	const char *libraries;
	int cuda_sources;
	int cpu_capable;      /* TorchCPUOpBuilder: built for the CPU when no GPU is visible */
	int min_cc10;	      /* minimum compute capability * 10, 0 for none */
	int min_cuda_major;   /* 0 for none */
	const char *requires; /* "CUTLASS_PATH" or "" */
	int selected;	      /* named with --op */
	enum jit_op_state state;
	const char *reason_id; /* finding id of the first reason; NULL when ready */
	const char *reason;
};

#define JIT_OPS_MAX 16

struct jit_ops {
	size_t n;
	int any_selected;
	struct jit_op_row rows[JIT_OPS_MAX];
};

const char *jit_op_state_name(enum jit_op_state s);

/* Load the table; sel are --op names (comma lists allowed). CD_EUSAGE with
 * *bad set when a name is not in the table. */
CD_WUR int jit_ops_load(struct cd_arena *a, struct jit_ops *ops, const char *const *sel,
			size_t nsel, const char **bad);
/* Judge every op from the facts. */
void jit_ops_eval(const struct cd_facts *f, const struct cd_jit_facts *jf, struct jit_ops *ops,
		  struct cd_arena *a);
/* Findings for the facts, the ops in scope (selected ones, else all) and the
 * smoke build (NULL when --compile was not given). */
void check_jit(const struct cd_facts *f, const struct cd_jit_facts *jf, const struct jit_ops *ops,
	       const struct jit_smoke *smoke, struct cd_findings *out);

/* Internal: the findings of the smoke build (jit_smoke_check.c). */
void check_jit_smoke(const struct cd_facts *f, const struct cd_jit_facts *jf,
		     const struct jit_smoke *s, struct cd_findings *out);
/* Internal: fix lines for missing toolkit files (jit_fix.c). */
void jit_fix_files(const struct cd_jit_facts *jf, struct cd_finding *x, struct cd_arena *a,
		   const char *const *files, size_t n);

#endif
