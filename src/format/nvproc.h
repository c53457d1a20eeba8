/* nvproc: the kernel module's banner in /proc/driver/nvidia/version, e.g.
 *   NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu ...
 *   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.124.06  Release Build ...
 * The caller reads the file; the parser borrows the bytes, fills a fixed-size
 * result and returns 0, or CD_EFORMAT when no version is found. */
#ifndef CD_NVPROC_H
#define CD_NVPROC_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct nvproc_version {
	char version[32]; /* "580.159.04" */
	int open;	  /* 1: open kernel module, 0: proprietary */
};

CD_WUR int nvproc_parse(const uint8_t *p, size_t n, struct nvproc_version *out);

#endif
