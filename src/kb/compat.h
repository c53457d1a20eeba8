/* compat: which NVIDIA Linux driver a CUDA version needs, from
 * data/driver_cuda.tsv (NVIDIA's CUDA Toolkit release notes, Tables 2 and 3;
 * each row carries its source). The table is parsed from the embedded file on
 * first use into static storage (no allocation; not thread-safe, like the rest
 * of a run). CUDA versions are cudaDriverGetVersion-style integers (12.4 ->
 * 12040); driver versions are dotted strings ("550.54.14"). Lookups return 0,
 * or CD_ENOENT when the table has no answer. */
#ifndef CD_COMPAT_H
#define CD_COMPAT_H

#include <stddef.h>

#include "core/err.h"

#define COMPAT_DRIVER_MAX 24

/* Minimum Linux driver of the CUDA X.Y toolkit (its GA release, the lowest
 * of its rows): 12040 -> "550.54.14". */
CD_WUR int compat_toolkit_min_driver(int cuda, char *out, size_t cap, const char **source);
/* Minimum Linux driver with which any X.* runtime runs through minor-version
 * compatibility: 12 -> "525.60.13". CUDA 10 and older have none. */
CD_WUR int compat_minor_min_driver(int major, char *out, size_t cap, const char **source);
/* Highest CUDA X.Y whose toolkit minimum the driver meets, -1 if none:
 * "535.104.05" -> 12020. */
int compat_max_cuda(const char *driver_version);

enum compat_verdict {
	COMPAT_UNKNOWN = 0, /* runtime or driver CUDA version unknown */
	COMPAT_OK,	    /* runtime X.Y <= the driver's CUDA version */
	COMPAT_MINOR,	    /* newer minor of the same major: runs through minor-version
			     * compatibility, with its limits (PTX JIT, newer APIs) */
	COMPAT_TOO_OLD	    /* the runtime cannot initialise on this driver */
};

struct compat_result {
	enum compat_verdict verdict;
	int driver_version_checked;	     /* the minor-compat floor was compared */
	char toolkit_min[COMPAT_DRIVER_MAX]; /* runtime X.Y's minimum, "" if unknown */
	char minor_min[COMPAT_DRIVER_MAX];   /* its major's minor-compat floor, "" if none */
	const char *toolkit_source, *minor_source;
};

/* runtime_cuda and driver_cuda as integers (<= 0: unknown); driver_version
 * may be NULL. */
enum compat_verdict compat_check(int runtime_cuda, int driver_cuda, const char *driver_version,
				 struct compat_result *out);
const char *compat_verdict_name(enum compat_verdict v);

#endif
