/* record: the RECORD file of an installed wheel (PEP 376, PEP 627): one CSV
 * row per installed file, "path,hash,size", paths relative to the site
 * directory, '"' quoting with "" for a quote, as Python's csv module writes
 * it. Only the path column is read. record_each hands each path to a
 * callback in a caller buffer; nothing is allocated. Rows longer than
 * RECORD_PATH_MAX are skipped (counted), never truncated into a wrong path. */
#ifndef CD_RECORD_H
#define CD_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define RECORD_PATH_MAX 4096
#define RECORD_ROWS_MAX (1u << 20)

/* fn returns non-zero to stop; record_each then returns that value.
 * *skipped (optional) counts rows that could not be read. */
typedef int (*record_fn)(const char *path, size_t len, void *ctx);
CD_WUR int record_each(const uint8_t *p, size_t n, record_fn fn, void *ctx, size_t *skipped);

#endif
