/* live_int: what the files of probe/live/ share and nothing outside uses:
 * the children's arguments and entry points, the run state of one device's
 * child, the host mirrors of the kernels, the record appliers. Children write
 * kv records (isolate.h); appliers read them into facts/live.h structs in
 * f->arena. Nothing here prints. */
#ifndef CD_LIVE_INT_H
#define CD_LIVE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "facts/facts.h"
#include "facts/live.h"
#include "probe/isolate.h"
#include "probe/live/live_cu.h"

extern const char live_ptx[];

/* What one device's child is told. */
struct live_dev_arg {
	const char *lib; /* libcuda to load */
	const char *cvd; /* CUDA_VISIBLE_DEVICES to set, NULL to inherit */
	int ordinal;	 /* cuDeviceGet(ordinal) after that */
	int full;	 /* --full steps */
	int enumerate;	 /* the enumeration child: cuInit, count, UUIDs only */
};

/* One device's child while it runs (live_dev.c, live_full.c). */
struct live_run {
	struct iso_out *o;
	struct live_cu cu;
	CUdevice dev;
	CUcontext ctx;
	CUstream s;
	CUevent e0, e1, e2;
	CUdeviceptr d;	   /* the quick test's device buffer */
	uint32_t *ha, *hb; /* two pinned host buffers of the same size */
	size_t bytes;
	CUfunction fill, check, spin;
	int64_t sm_count, threads_per_sm;
};

/* Step budgets in ms (0: only the probe's own deadline), live_dev.c. */
int live_dev_budget(enum cd_live_step_id s);
void live_dev_child(struct iso_out *o, void *arg);
/* The pattern the kernels write (cd_hash in live_ptx.c) and the loop of
 * cd_spin, on the host. */
uint32_t live_dev_hash(uint64_t i, uint32_t seed);
uint32_t live_dev_lcg(uint32_t x, uint32_t iters);
/* Launch kernel f on the run's stream, record e1 after it, wait for it:
 * 0, or the CUresult (recorded as the step's failure). */
CUresult live_dev_launch(struct live_run *r, const char *step, CUfunction f, unsigned grid,
			 unsigned block, void **params);
/* The --full steps, live_full.c: 0 to go on, -1 when the step failed. */
CD_WUR int live_full_memtest(struct live_run *r);
CD_WUR int live_full_compute(struct live_run *r);

struct live_opts;

/* The plan, live_plan.c: which devices to probe (NVML's GPUs and MIG
 * instances through CUDA_VISIBLE_DEVICES, else what an enumeration child
 * sees), narrowed by --devices; the children's arguments in *args (arena).
 * 0, or CD_EUSAGE when --devices names no device. */
CD_WUR int live_plan(struct cd_facts *f, struct cd_live_facts *lf, const struct live_opts *o,
		     int64_t end_us, struct live_dev_arg **args, struct cd_err *err);

/* The NVML child for MIG instances and the recovery state, live_nvml.c:
 * started beside the driver probe, collected after it. */
struct live_nvml_pending;
CD_WUR struct live_nvml_pending *live_nvml_start(struct cd_facts *f, struct cd_live_facts *lf,
						 int timeout_ms);
void live_nvml_finish(struct cd_facts *f, struct cd_live_facts *lf, struct live_nvml_pending *p);

/* The peer child, live_peer.c (skipped unless --full and two devices). */
void live_peers(struct cd_facts *f, struct cd_live_facts *lf, int64_t end_us);
/* The NCCL child, live_nccl.c (only with --nccl). */
void live_nccl(struct cd_facts *f, struct cd_live_facts *lf, const struct live_opts *o,
	       int64_t end_us);
/* The Xid lines of the kernel log, live_xid.c: opened (and read so far) before
 * the devices run, drained while they run, the rest read and parsed once
 * they are done; t0_us: when the probe began. NULL when it cannot be read
 * (the reason is in lf->xids). */
struct live_xid_pending;
CD_WUR struct live_xid_pending *live_xid_open(struct cd_facts *f, struct cd_live_facts *lf);
void live_xid_drain(struct live_xid_pending *p);
void live_xid_close(struct cd_facts *f, struct cd_live_facts *lf, struct live_xid_pending *p,
		    int64_t t0_us);

/* The appliers, live_apply.c: one child's records into its device. */
void live_apply_device(struct cd_facts *f, struct cd_live_device *d, const struct iso_job *j);
/* A job's end as a step (the NVML, enumeration, peer and NCCL children). */
void live_apply_end(struct cd_facts *f, struct cd_live_step *s, const struct iso_job *j,
		    const char *stage);

#endif
