/* model_render: the report of `cuda-doctor model` in text, JSON (keys in
 * docs/model.md) and Markdown. Renderers only read the facts, the plan and the
 * findings; they return 0 or CD_ENOMEM when the JSON tree cannot be built. */
#ifndef CD_MODEL_RENDER_H
#define CD_MODEL_RENDER_H

#include <jansson.h>

#include "check/model/model.h"
#include "core/err.h"
#include "probe/model/model.h"
#include "report/render.h"

CD_WUR json_t *model_json(const struct cd_facts *f, const struct cd_model_facts *m,
			  const struct mp_request *r, const struct cd_model_plan *p,
			  const struct cd_findings *fs);
CD_WUR int model_render(const struct cd_render *rd, const struct cd_facts *f,
			const struct cd_model_facts *m, const struct mp_request *r,
			const struct cd_model_plan *p, const struct cd_findings *fs);

#endif
