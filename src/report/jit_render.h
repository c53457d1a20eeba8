/* jit_render: the text, Markdown and JSON forms of a `cuda-doctor jit`
 * report. They only read the facts, the op table, the smoke build (NULL
 * without --compile) and the findings, and print to the given stream. The
 * JSON is the standard report (schema cuda-doctor.report/1) with a "jit"
 * object added; docs/jit.md lists its keys. */
#ifndef CD_CLI_JIT_RENDER_H
#define CD_CLI_JIT_RENDER_H

#include <jansson.h>
#include <stdio.h>

#include "check/jit/jit.h"
#include "core/err.h"
#include "report/render.h"

struct jit_report {
	const struct cd_facts *f;
	const struct cd_jit_facts *jf;
	const struct jit_ops *ops;
	const struct jit_smoke *smoke;
	const struct cd_findings *fs;
};

CD_WUR json_t *jit_json(const struct jit_report *r);
void jit_text(const struct cd_render *out, const struct jit_report *r);
void jit_markdown(const struct cd_render *out, const struct jit_report *r);

#endif
