/* torchwheel: which CUDA builds of each torch release exist and which one
 * PyPI installs, from data/torch_cuda.tsv (one row per torch minor release
 * and CUDA variant). Results are copied into caller storage; the table is
 * scanned per call. Lookups return 0 or CD_ENOENT. */
#ifndef CD_KB_TORCHWHEEL_H
#define CD_KB_TORCHWHEEL_H

#include "core/err.h"

#include <stddef.h>

#define TORCHWHEEL_MAX 8 /* variants of one release */

struct torchwheel {
	char torch[16];	  /* "2.5" */
	char variant[16]; /* "cu124" */
	char cuda[16];	  /* "12.4" (X.Y of the row's cuda_version) */
	int pypi_default; /* what `pip install torch==2.5.*` gets from PyPI on Linux x86_64 */
	const char *source;
};

/* The rows of a release ("2.5.1", "2.5" or "2.5.1+cu121": the minor counts). */
CD_WUR int torchwheel_release(const char *torch_version, struct torchwheel *out, size_t cap,
			      size_t *n);
CD_WUR int torchwheel_default(const char *torch_version, struct torchwheel *out);
/* The newest release the table has ("2.14"). */
CD_WUR int torchwheel_newest(char *out, size_t cap);
/* "cu121" -> "12.1", "cu118" -> "11.8", "cu130" -> "13.0"; -1 unless cuNNN. */
CD_WUR int torchwheel_variant_cuda(const char *variant, char *out, size_t cap);

#endif
