/* arch_list: torch-arch-list-invalid, the one rule for TORCH_CUDA_ARCH_LIST.
 * `check` (check/toolkit.c) and `jit` (check/jit/) call it with the facts each
 * has, so one input gives one finding: the list as the installed torch's
 * cpp_extension parses it (format/archlist, kb/torcharch), what nvcc can build
 * (kb/archcov) and which visible GPU it covers. Pure functions of the input;
 * strings come from the findings' arena; nothing fails (no memory: no finding). */
#ifndef CD_CHECK_ARCH_LIST_H
#define CD_CHECK_ARCH_LIST_H

#include <stddef.h>

#include "core/err.h"
#include "facts/finding.h"

struct arch_list_gpu {
	int major, minor;
};

struct arch_list_input {
	const char *value;	    /* TORCH_CUDA_ARCH_LIST; NULL when unset */
	int truncated;		    /* only the start of the value was recorded */
	const char *torch_version;  /* the installed torch ("2.11.0+cu130"); NULL unknown */
	const char *nvcc_version;   /* of the toolkit a build would use; NULL: none known */
	int nvcc_major, nvcc_minor; /* -1 unknown */
	const struct arch_list_gpu *gpus;
	size_t n_gpus;	     /* the visible GPUs (complete when gpus_known) */
	int gpus_known;	     /* the driver or --gpu-cc listed them */
	int no_gpu;	     /* known: no GPU is visible */
	int judge_unset;     /* judge an unset list too (jit: a build is asked about) */
	const char *section; /* of the finding: "toolkit", "jit" */
};

/* Raise torch-arch-list-invalid (at most one) when the input calls for it. */
void arch_list_check(const struct arch_list_input *in, struct cd_findings *out);
/* What stops every extension build, as that finding's title; NULL when
 * nothing does. */
const char *arch_list_blocker(const struct arch_list_input *in, struct cd_arena *a);
/* A build said nvcc cannot build an architecture (line: what it printed): the
 * line is added to the finding arch_list_check raised, else it is raised from
 * the line alone. */
CD_WUR struct cd_finding *arch_list_build_failed(const struct arch_list_input *in, const char *line,
						 struct cd_findings *out);
/* A test kernel built with flags ("" or NULL: nvcc's default) had no code for
 * the GPU; detail is what the run said. */
CD_WUR struct cd_finding *arch_list_no_kernel(const struct arch_list_input *in, const char *detail,
					      const char *flags, struct cd_findings *out);

#endif
