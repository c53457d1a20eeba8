/* errcodes: what a CUDA driver result (CUresult), a runtime error or an NCCL
 * result means and the usual fix, from data/cuda_results.tsv and
 * data/nccl_results.tsv (each row with its source). The tables are parsed on
 * first use into static storage; returned rows are static and never freed.
 * A code the tables lack gives NULL, never a guess. */
#ifndef CD_ERRCODES_H
#define CD_ERRCODES_H

#include <stddef.h>
#include <stdint.h>

enum errcodes_api { ERRCODES_DRIVER = 0, ERRCODES_RUNTIME, ERRCODES_NCCL };

#define ERRCODES_FIX_MAX 6

struct errcodes_row {
	enum errcodes_api api;
	int64_t code;
	const char *name;    /* "CUDA_ERROR_NO_DEVICE" */
	const char *text;    /* what cuGetErrorString says */
	const char *meaning; /* what it means here; "" when the table has nothing more */
	size_t n_fix;
	const char *fix[ERRCODES_FIX_MAX]; /* lines to paste */
	const char *source;
};

const struct errcodes_row *errcodes_find(enum errcodes_api api, int64_t code);
/* The name alone, NULL when unknown. */
const char *errcodes_name(enum errcodes_api api, int64_t code);

#endif
