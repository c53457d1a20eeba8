/* jit_int: predicates shared by the op table (jit_eval.c) and the findings
 * (jit.c), so that both judge a condition the same way. Internal to
 * src/check/jit*.c. */
#ifndef CD_CHECK_JIT_INT_H
#define CD_CHECK_JIT_INT_H

#include "check/arch_list.h"
#include "check/jit/jit.h"
#include "core/err.h"

/* torch.version.cuda as major/minor; 0, or -1 when unknown / CPU-only. */
CD_WUR int jit_torch_cuda(const struct cd_jit_facts *jf, int *major, int *minor);
/* Does DeepSpeed accept a minor mismatch within this major? */
int jit_ds_minor_ok(const struct cd_jit_facts *jf, int major);
/* Is DS_SKIP_CUDA_CHECK=1 set? */
int jit_ds_skip(const struct cd_jit_facts *jf);

/* The host compiler's newest supported major for this nvcc, or -1. */
int jit_host_max(const struct cd_jit_facts *jf);
/* 1 when nvcc's host compiler is known to be newer than nvcc accepts. */
int jit_host_too_new(const struct cd_jit_facts *jf);

/* 1 when a file of the comma list (headers, or lib<name>.so for libraries)
 * is missing; *first gets its name. */
int jit_missing_in(const struct cd_jit_facts *jf, const char *list, int libs, const char **first);
const struct jit_file *jit_file_get(const struct cd_jit_facts *jf, const char *name);

/* The input of the TORCH_CUDA_ARCH_LIST rule (check/arch_list.h) from the
 * jit facts; gpus (JIT_GPUS_MAX of them) is the caller's storage. */
void jit_arch_input(const struct cd_jit_facts *jf, struct arch_list_input *in,
		    struct arch_list_gpu *gpus);

/* 1 when ninja is usable by torch (on PATH); *only_env when only in env/bin. */
int jit_ninja_ok(const struct cd_jit_facts *jf, int *only_env);

/* Findings of jit_more.c: the extensions cache, per-op gates, prebuilt ops. */
void jit_check_cache(const struct cd_jit_facts *jf, struct cd_findings *out);
void jit_check_ops(const struct cd_jit_facts *jf, const struct jit_ops *ops,
		   struct cd_findings *out);

/* A failed test build's line (jit --compile) as a finding, raised by the
 * file that owns the id (jit.c): the line confirms the finding the facts
 * raised, else the finding is raised from the line alone, titled
 * JIT_SMOKE_TITLE. host-compiler-unsupported from "unsupported GNU version",
 * python-headers-missing from a missing Python.h. */
void jit_host_compiler_from_build(const struct jp_diag *d, struct cd_findings *out);
void jit_python_h_from_build(const struct jp_diag *d, struct cd_findings *out);
/* What those builders share (jit_smoke_check.c): the line added as evidence
 * to the first finding with this id (1, or 0 when there is none); the title
 * and detail of a finding raised from the line alone. */
#define JIT_SMOKE_TITLE "The test build failed: %s"
int jit_smoke_confirm(struct cd_findings *out, const char *id, const struct jp_diag *d);
void jit_smoke_detail(struct cd_finding *x, struct cd_arena *a);

/* Shell-quote a path for a fix line when it needs it. */
const char *jit_sq(struct cd_arena *a, const char *path);

#endif
