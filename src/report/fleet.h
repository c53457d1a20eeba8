/* fleet: what makes the check reports of many nodes comparable: the report
 * normalised (the keys of data/fleet_keys.tsv removed), its fingerprint (the
 * SHA-256 of that, compact with sorted keys), and a walk over its leaves under
 * stable names for `diff`. Trees are jansson's and only read; a returned tree
 * is a new reference the caller decrefs. Failures are CD_ENOMEM. */
#ifndef CD_FLEET_H
#define CD_FLEET_H

#include <jansson.h>

#include "core/err.h"

#define FLEET_FP_PREFIX "sha256:"
#define FLEET_FP_MAX	72 /* "sha256:" + 64 hex digits + NUL */
#define FLEET_KEY_MAX	512

/* A copy of report without the fleet object, identity and volatile keys;
 * NULL when memory runs out. */
CD_WUR json_t *fleet_normalised(const json_t *report);
/* "sha256:<hex>" of the normalised report into out. */
CD_WUR int fleet_fingerprint(const json_t *report, char out[FLEET_FP_MAX]);

/* check's report as printed: each volatile key set to null unless
 * keep_volatile (check --volatile), then a "fleet" object after "tool":
 * {hostname, fingerprint, volatile}. Takes report's reference; returns the
 * new object, NULL when memory runs out. */
CD_WUR json_t *fleet_stamp(json_t *report, int keep_volatile);

/* Called for each leaf of the normalised report, findings apart: key is the
 * dotted path ("driver.version"), an array of objects indexed by each
 * element's first identifying member ("gpus[0].name",
 * "libraries.items[libcudart.so.13].version"), with "KEY.count" for its
 * length; arrays of scalars are one leaf; an empty object has none. A non-zero return stops the
 * walk and is returned. */
struct fleet_walk {
	int (*leaf)(void *ctx, const char *key, const json_t *value);
	void *ctx;
};
CD_WUR int fleet_leaves(const json_t *report, const struct fleet_walk *w);

#endif
