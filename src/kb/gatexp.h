/* gatexp: the findings that explain a violated gate requirement, by subject
 * (data/gate_explain.tsv): ids most specific first. Read on first use into
 * static storage (not thread-safe); returned ids live there. A subject
 * without a row, or a missing table, has none. */
#ifndef CD_GATEXP_H
#define CD_GATEXP_H

#include <stddef.h>

#define GATEXP_IDS_MAX 16

/* The ids for subject ("driver", "gpu.count"); their count, at most max. */
size_t gatexp_ids(const char *subject, const char **ids, size_t max);

#endif
