/* dockerfile_out: the views of `cuda-doctor dockerfile`: text (the stages,
 * the driver judged against, the findings), JSON (schema
 * cuda-doctor.dockerfile/1, docs/dockerfile.md), Markdown and SARIF.
 * Prints to r->out; 0 or CD_ENOMEM. */
#ifndef CD_DOCKERFILE_OUT_H
#define CD_DOCKERFILE_OUT_H

#include "core/err.h"

#include "check/dockerfile/dockerfile.h"
#include "report/render.h"

#define CD_DOCKERFILE_SCHEMA "cuda-doctor.dockerfile/1"

CD_WUR int dockerfile_render(const struct cd_render *r, const struct dfc_report *rep,
			     const struct cd_findings *fs);

#endif
