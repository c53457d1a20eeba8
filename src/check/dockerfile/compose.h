/* compose: the findings of `cuda-doctor dockerfile` for a Compose file. */
#ifndef CD_CHECK_COMPOSE_H
#define CD_CHECK_COMPOSE_H

#include "core/err.h"

#include <stddef.h>
#include <stdint.h>

#include "check/dockerfile/dockerfile.h"

CD_WUR int check_compose_file(const char *path, const uint8_t *p, size_t n,
			      const struct dfc_opts *o, struct cd_findings *out,
			      struct dfc_report *rep, struct cd_err *err);

#endif
