/* nvlibs: the NVIDIA libraries cuda-doctor follows, from data/nvidia_libs.tsv:
 * file-name stems ("libcudnn") and, per CUDA major, the pip wheel that ships
 * each ("nvidia-cudnn-cu13"; CUDA 13's toolkit wheels have no suffix:
 * "nvidia-cublas"). Parsed on first use into static storage (returned strings
 * live there; not thread-safe). Without the table nothing is an NVIDIA
 * library and no wheel is named. */
#ifndef CD_NVLIBS_H
#define CD_NVLIBS_H

#include <stddef.h>

#define NVLIBS_WHEELS_MAX 8 /* rows of one stem: one per CUDA major */

struct nvlibs_wheel {
	int cuda_major;	  /* 13 */
	const char *name; /* "nvidia-cudnn-cu13" */
};

/* base (a SONAME or file name, "libcudnn_graph.so.9") starts with a stem of
 * the table: an NVIDIA library whose copies matter. */
int nvlibs_is_nvidia(const char *base);
/* The wheels that ship lib (its stem followed by '.', '_' or '-'), one per
 * CUDA major, in table order; returns how many were written to out (at most
 * cap), 0 when no row names one. */
size_t nvlibs_wheels(const char *lib, struct nvlibs_wheel *out, size_t cap);

#endif
