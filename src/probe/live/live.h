/* live: `cuda-doctor probe`, the live GPU health test. The driver probe and
 * NVML say which GPUs and MIG instances there are; then one isolated child
 * per device runs the real CUDA path (cuInit, a context, memory, the PTX JIT,
 * kernels, copies) under per-step deadlines and the whole --timeout. Fills
 * f->live (facts/live.h) and f->driver / f->gpus; never prints. A hung,
 * failing or crashing device is a fact; only bad --devices input fails. */
#ifndef CD_PROBE_LIVE_H
#define CD_PROBE_LIVE_H

#include "core/err.h"
#include "facts/facts.h"

struct live_opts {
	int full;	      /* --full: larger memory test, compute loop, peers */
	int nccl;	      /* --nccl */
	const char *devices;  /* --devices LIST, NULL for every visible device */
	const char *nccl_lib; /* --nccl-lib PATH */
	int timeout_ms;	      /* the bound on the whole probe */
};

/* 0, or CD_EUSAGE (err says why) when --devices names no visible device. */
CD_WUR int live_probe(struct cd_facts *f, const struct live_opts *o, struct cd_err *err);
/* The PTX the probe JIT-compiles on each device (live_ptx.c). */
const char *live_ptx_text(void);

#endif
