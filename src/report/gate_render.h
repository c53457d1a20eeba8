/* gate_render: the views of `cuda-doctor gate`: a text table of every
 * requirement (required, found, the finding that explains a violation; -q:
 * violations only) and a JSON object (schema cuda-doctor.gate/1, docs/gate.md).
 * Renderers only read; gate_json returns a new reference, NULL without memory. */
#ifndef CD_GATE_RENDER_H
#define CD_GATE_RENDER_H

#include <jansson.h>

#include "check/gate.h"
#include "core/err.h"
#include "report/render.h"

#define GATE_SCHEMA "cuda-doctor.gate/1"

void gate_text(const struct cd_render *r, const struct gate_result *res, size_t n);
CD_WUR json_t *gate_json(const struct cd_facts *f, const struct gate_result *res, size_t n,
			 const char *const *allow, size_t n_allow);

#endif
