/* nvreq: NVIDIA_REQUIRE_* expressions (NVIDIA_REQUIRE_CUDA="cuda>=12.4
 * brand=tesla,driver>=535,driver<536 ...") judged as libnvidia-container's
 * src/cli/dsl.c and src/cli/configure.c judge them when a container starts:
 * blank-separated alternatives, any of which may hold; comma-separated
 * conditions, all of which must; cuda compares the driver's CUDA version,
 * driver the driver version, arch the GPU's compute capability, brand the
 * GPU's brand (caseless, = and != only); an unknown fact holds. Nothing is
 * allocated; a malformed condition is NVREQ_INVALID, as it is for the toolkit. */
#ifndef CD_NVREQ_H
#define CD_NVREQ_H

#include "core/err.h"

#include <stddef.h>

#define NVREQ_INPUT_MAX (64u << 10)
#define NVREQ_TEXT_MAX	160

enum nvreq_result { NVREQ_INVALID = -1, NVREQ_REFUSED = 0, NVREQ_OK = 1 };

struct nvreq_host {
	const char *driver; /* "535.104.05"; NULL: unknown */
	const char *cuda;   /* the CUDA version the driver supports, "12.2"; NULL: unknown */
	const char *brand;  /* "tesla", "nvidia", "geforce", ...; NULL: unknown */
	const char *arch;   /* "9.0"; NULL: unknown */
};

struct nvreq_eval {
	enum nvreq_result result;
	int alternative;	    /* the one that held, 0-based; -1 if none */
	char held[NVREQ_TEXT_MAX];  /* its text */
	char first[NVREQ_TEXT_MAX]; /* the first alternative (the toolkit's error names it) */
	char bad[NVREQ_TEXT_MAX];   /* the condition that made it invalid */
	int n_alternatives;
};

enum nvreq_result nvreq_eval(const char *expr, size_t n, const struct nvreq_host *h,
			     struct nvreq_eval *out);
/* The X.Y of the first "cuda>=X.Y" condition; 0, or -1 when there is none. */
CD_WUR int nvreq_cuda_min(const char *expr, size_t n, char *out, size_t cap);
/* libnvidia-container's dsl_compare_version: 1 true, 0 false, -1 when a
 * version is not made of digits and dots. op is one of = != < <= > >=. */
int nvreq_compare_version(const char *v1, const char *op, const char *v2);

#endif
