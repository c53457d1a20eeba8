/* buildinfo: TensorFlow's tensorflow/python/platform/build_info.py read as
 * text, never imported. TF 2.x writes one dict literal,
 *   build_info = {'cuda_version': '12.5.1', 'cudnn_version': '9',
 *                 'is_cuda_build': True, 'cuda_compute_capabilities': [...]}
 * and TF 1.x / early 2.x module-level assignments (cuda_version_number =
 * '10.1'). Every `'key': value` or `key = value` pair whose value is a
 * string, True/False or a list of strings is seen; the keys below are kept.
 * Strings are copied into the caller's arena; counts and lengths are capped. */
#ifndef CD_BUILDINFO_H
#define CD_BUILDINFO_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define BUILDINFO_INPUT_MAX ((size_t)1 << 20)
#define BUILDINFO_CAPS_MAX  32
#define BUILDINFO_VALUE_MAX 256

struct buildinfo {
	const char *cuda_version;  /* 'cuda_version', else 'cuda_version_number' */
	const char *cudnn_version; /* 'cudnn_version', else 'cudnn_version_number' */
	int is_cuda_build;	   /* 1, 0, or -1 when absent */
	int is_rocm_build;	   /* likewise */
	size_t n_caps;
	const char *caps[BUILDINFO_CAPS_MAX]; /* 'cuda_compute_capabilities' */
	int found;			      /* at least one key was recognised */
};

/* 0, CD_EFORMAT when nothing recognisable is there, CD_ENOMEM. */
CD_WUR int buildinfo_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct buildinfo *out);

#endif
