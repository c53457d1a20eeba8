/* plan: the ordered remediation plan of `cuda-doctor fix`, whose first step
 * `check` and `jit` print under their findings. check/fix/plan.h builds it
 * from the findings; every string it points to lives in the arena of those
 * findings (the facts' arena) or in the findings themselves, so a plan lives
 * as long as they do. No I/O, nothing that can fail here. */
#ifndef CD_FACTS_PLAN_H
#define CD_FACTS_PLAN_H

#include <stddef.h>

#include "facts/finding.h"

#define PLAN_STEPS_MAX 32
#define PLAN_IDS_MAX   8
#define PLAN_MOVES_MAX 32
#define PLAN_ENV_MAX   4

/* What `fix --apply` may do for a step on its own: move cache folders and
 * stale locks aside (never delete them), write the step's variables into
 * cuda-doctor.env. Everything else is pasted by the person. */
struct plan_move {
	const char *path; /* the folder or lock to move aside */
	const char *why;  /* what the probe found ("half-built", "stale lock, 3 h old") */
};

struct plan_step {
	size_t n_ids;
	const char *ids[PLAN_IDS_MAX]; /* the findings it resolves, the first one it came from */
	enum cd_severity severity;     /* the worst of them */
	const char *section;
	const char *title;  /* why: the first finding's title */
	const char *detail; /* its detail */
	size_t n_cmds;
	const char *cmds[CD_FINDING_LINES_MAX]; /* to paste, in order */
	const char *verify[2];			/* how to see it worked: its own, then check */
	size_t n_moves;
	struct plan_move moves[PLAN_MOVES_MAX];
	size_t n_env;
	const char *env[PLAN_ENV_MAX]; /* "export CUDA_HOME=/usr/local/cuda-13.0" */
};

struct cd_plan {
	size_t n;
	struct plan_step steps[PLAN_STEPS_MAX];
	size_t dropped; /* steps past PLAN_STEPS_MAX, not listed */
};

#endif
