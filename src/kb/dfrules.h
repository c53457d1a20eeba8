/* dfrules: the rules of `cuda-doctor dockerfile` and the image checks, from
 * data/dockerfile_rules.tsv (and compose_rules.tsv): default severity, a
 * summary, the documented behaviour each relies on and its source. The rows
 * are read once into static storage that lives for the process; lookups
 * return 0 or CD_ENOENT. */
#ifndef CD_KB_DFRULES_H
#define CD_KB_DFRULES_H

#include "core/err.h"

#include <stddef.h>

struct dfrule {
	const char *id;
	const char *severity; /* "error", "warning", "info" */
	const char *summary;
	const char *documented;
	const char *source;
};

CD_WUR int dfrules_find(const char *id, struct dfrule *out);
/* The rules in table order; n is the count. */
const struct dfrule *dfrules_all(size_t *n);
/* The first URL of a rule's source (for SARIF helpUri), into out. */
CD_WUR int dfrules_first_url(const struct dfrule *r, char *out, size_t cap);

#endif
