/* check/fix/plan: findings -> one ordered plan (facts/plan.h): a step per
 * problem at warning or error severity, causes before effects (data/
 * fix_causes.tsv), errors before warnings, a shared command once, and what
 * `fix --apply` may do for each step (cache items to move aside, lines for
 * cuda-doctor.env). A pure function of its inputs; strings from the arena. */
#ifndef CD_CHECK_FIX_PLAN_H
#define CD_CHECK_FIX_PLAN_H

#include "check/install.h"
#include "facts/facts.h"
#include "facts/jit.h"
#include "facts/plan.h"

struct plan_input {
	const struct cd_findings *fs;	      /* sorted, as check_all leaves them */
	const struct cd_jit_facts *jf;	      /* the extensions cache; NULL when not probed */
	const struct install_choice *install; /* with install_step: a last step installing it */
	int install_step;
};

void plan_build(const struct cd_facts *f, const struct plan_input *in, struct cd_arena *a,
		struct cd_plan *out);
/* The plan of a findings list alone (what check and jit print the first
 * step of). */
void plan_of_findings(const struct cd_facts *f, const struct cd_findings *fs, struct cd_arena *a,
		      struct cd_plan *out);

#endif
