/* xcheck: cross-check log diagnoses with the environment described by the
 * facts (probe_all, under --root when given): which toolkits have or lack a
 * missing header, where copies of a missing library are, what the driver and
 * the GPUs really are. Adds at most XS_ENV_MAX lines to each diagnosis (in
 * the result's arena); toolkits only from the toolkit probe's facts, never
 * loads or runs anything. Cannot fail: what it cannot learn it does not say. */
#ifndef CD_XCHECK_H
#define CD_XCHECK_H

#include "explain/scan.h"
#include "facts/facts.h"

#define XC_HEADERS_MAX 8

/* The headers the diagnoses name that xc_check will look up (at most cap,
 * pointers into r): ask the toolkit probe for them (toolkit_probe_headers)
 * before xc_check. */
size_t xc_headers(const struct xs_result *r, const char **names, size_t cap);
void xc_check(struct xs_result *r, const struct cd_facts *f);

#endif
