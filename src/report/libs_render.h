/* libs_render: the library probe's parts of the reports (libs_report.c):
 * the top-level "libraries" and "frameworks" JSON sections, the keys it adds
 * to "torch" (cudnn_version, nccl_version, cuda_runtime_version,
 * arch_variants), and its lines in the text report. Read only; JSON values
 * are new references (json_null() when not probed). */
#ifndef CD_LIBS_RENDER_H
#define CD_LIBS_RENDER_H

#include <jansson.h>

#include "core/err.h"
#include "facts/facts.h"
#include "report/render.h"

CD_WUR json_t *libs_json(const struct cd_facts *f);
CD_WUR json_t *frameworks_json(const struct cd_facts *f);
/* Add the library probe's keys to the "torch" object o. */
void libs_torch_json(const struct cd_facts *f, json_t *o);
void libs_text(const struct cd_render *r, const struct cd_facts *f);

#endif
