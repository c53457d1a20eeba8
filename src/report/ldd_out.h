/* ldd_out: the text, Markdown and JSON output of `cuda-doctor ldd`
 * (schema cuda-doctor.ldd/1, documented in docs/ldd.md). It only reads the
 * resolver session and the arch summary, and prints to stdout. */
#ifndef CD_LDD_OUT_H
#define CD_LDD_OUT_H

#include "core/err.h"
#include "core/opts.h"
#include "probe/loader/cudaarch.h"
#include "probe/loader/ldresolve.h"

#define LDD_SCHEMA "cuda-doctor.ldd/1"

struct ldd_out {
	struct ldr_session s;
	const struct cd_root *root;
	const struct cd_opts *opts;
	struct cudaarch arch;
	const char *arch_error; /* the file's sections could not be read */
	int arch_skipped;	/* --no-archs */
};

/* Needs (DT_NEEDED and dlopen, not preloads) that were not found. */
size_t ldd_missing(const struct ldd_out *lo);
/* Print in the format opts asks for; CD_ENOMEM if JSON cannot be built. */
CD_WUR int ldd_render(const struct ldd_out *lo);

#endif
