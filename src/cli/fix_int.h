/* fix_int: `cuda-doctor fix --apply` (fix_apply.c), private to cli/fix.c.
 * Only local, reversible steps: cache folders and stale locks of the torch
 * extensions cache are moved into a dated backup folder beside the cache
 * (never deleted), and the plan's LD_LIBRARY_PATH / CUDA_HOME /
 * TORCH_CUDA_ARCH_LIST lines are written to cuda-doctor.env for `source`.
 * Everything is checked before anything moves; a move that fails puts back
 * the ones done. Prints what it did and the command that undoes it. */
#ifndef CD_CLI_FIX_INT_H
#define CD_CLI_FIX_INT_H

#include <stdio.h>
#include <time.h>

#include "core/err.h"
#include "facts/facts.h"
#include "facts/jit.h"
#include "facts/plan.h"

struct fix_apply_opts {
	int yes;	      /* --yes: no questions */
	FILE *in;	      /* the answers (stdin) */
	FILE *ask;	      /* the questions and errors (stderr) */
	FILE *out;	      /* what was done, and the undo command */
	const char *env_file; /* "cuda-doctor.env" (in the current directory) */
	time_t now;
};

/* 0: done (or nothing to do, or every step declined); 1: nothing was done
 * because a check or a move failed (said on o->ask). */
CD_WUR int fix_apply(const struct cd_facts *f, const struct cd_jit_facts *jf,
		     const struct cd_plan *p, const struct fix_apply_opts *o);

#endif
