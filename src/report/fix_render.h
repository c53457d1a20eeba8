/* fix_render: the text, Markdown and JSON forms of `cuda-doctor fix`: the
 * ordered plan (each step: why, the commands to paste, how to check it,
 * what --apply does for it) and the torch install line with every variant
 * judged. They only read and print to the given stream; the JSON is the
 * standard report (cuda-doctor.report/1) with "plan" and "install" added
 * (docs/fix.md lists the keys). Also the one line check and jit print under
 * their findings: the plan's first step. */
#ifndef CD_REPORT_FIX_RENDER_H
#define CD_REPORT_FIX_RENDER_H

#include <jansson.h>

#include "check/install.h"
#include "core/err.h"
#include "facts/plan.h"
#include "report/render.h"

struct fix_report {
	const struct cd_facts *f;
	const struct cd_findings *fs;
	const struct cd_plan *plan;
	const struct install_choice *install; /* NULL: no release known */
	const struct cd_torch_wheel *wheel;   /* --wheel, or NULL */
	const char *jax_line;		      /* --for jax: JAX's line, or NULL */
};

CD_WUR json_t *fix_json(const struct fix_report *r);
void fix_text(const struct cd_render *out, const struct fix_report *r);
void fix_markdown(const struct cd_render *out, const struct fix_report *r);
/* "First step (1 of 3, `cuda-doctor fix` for the plan): TITLE" and the
 * step's command; nothing when the plan is empty. */
void fix_first_step(const struct cd_render *out, const struct cd_plan *plan);

#endif
