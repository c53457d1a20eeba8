/* xcheck: cross-check log diagnoses with the environment described by the
 * facts (probe_all, under --root when given): which toolkits have or lack a
 * missing header, where copies of a missing library are, what the driver and
 * the GPUs really are. Adds at most XS_ENV_MAX lines to each diagnosis (in
 * the result's arena); reads files only through core/file.h under the facts'
 * root and never loads or runs anything it finds. Cannot fail: what it cannot
 * learn it does not say. */
#ifndef CD_XCHECK_H
#define CD_XCHECK_H

#include "explain/scan.h"
#include "facts/facts.h"

void xc_check(struct xs_result *r, const struct cd_facts *f);

#endif
