/* live: see live.h. */
#include "facts/live.h"

#include <string.h>

/* Step names (record keys, JSON) and the driver call each is about. */
static const struct {
	const char *name, *call;
} steps[CD_LSTEP_N] = {
	[CD_LSTEP_LOAD] = {"load", "dlopen(libcuda.so.1)"},
	[CD_LSTEP_INIT] = {"init", "cuInit"},
	[CD_LSTEP_DEVICE] = {"device", "cuDeviceGet"},
	[CD_LSTEP_CONTEXT] = {"context", "cuDevicePrimaryCtxRetain"},
	[CD_LSTEP_MEMINFO] = {"meminfo", "cuMemGetInfo_v2"},
	[CD_LSTEP_ALLOC] = {"alloc", "cuMemAlloc_v2"},
	[CD_LSTEP_COPY] = {"copy", "cuMemcpyHtoDAsync_v2"},
	[CD_LSTEP_MODULE] = {"module", "cuModuleLoadDataEx"},
	[CD_LSTEP_LAUNCH] = {"launch", "cuLaunchKernel"},
	[CD_LSTEP_BANDWIDTH] = {"bandwidth", "cuMemcpyHtoDAsync_v2"},
	[CD_LSTEP_MEMTEST] = {"memtest", "cuLaunchKernel"},
	[CD_LSTEP_COMPUTE] = {"compute", "cuLaunchKernel"},
};

const char *live_result_name(enum cd_live_result r)
{
	switch (r) {
	case CD_LIVE_PASSED: return "passed";
	case CD_LIVE_FAILED: return "failed";
	case CD_LIVE_HUNG: return "hung";
	case CD_LIVE_SKIPPED: return "skipped";
	case CD_LIVE_CRASHED: return "crashed";
	default: return "not-run";
	}
}

int live_result_rank(enum cd_live_result r)
{
	switch (r) {
	case CD_LIVE_NOT_RUN: return 1;
	case CD_LIVE_FAILED: return 2;
	case CD_LIVE_HUNG: return 3;
	case CD_LIVE_CRASHED: return 4;
	default: return 0;
	}
}

const char *live_step_name(enum cd_live_step_id s)
{
	return (unsigned)s < CD_LSTEP_N ? steps[s].name : "?";
}

const char *live_step_call(enum cd_live_step_id s)
{
	return (unsigned)s < CD_LSTEP_N ? steps[s].call : "?";
}

int live_step_id(const char *name)
{
	int i;

	for (i = 0; i < CD_LSTEP_N; i++)
		if (!strcmp(steps[i].name, name))
			return i;
	return -1;
}

void live_step_init(struct cd_live_step *s)
{
	memset(s, 0, sizeof(*s));
	s->rc = s->us = s->signal = CD_UNK;
}

struct cd_live_facts *live_facts_new(struct cd_arena *a)
{
	struct cd_live_facts *lf = arena_alloc(a, sizeof(*lf));

	if (!lf)
		return NULL;
	lf->timeout_ms = lf->cuda_count = lf->wall_us = lf->peak_rss_kb = CD_UNK;
	live_step_init(&lf->nvml);
	live_step_init(&lf->enumerate);
	live_step_init(&lf->peers.step);
	live_step_init(&lf->nccl.load);
	live_step_init(&lf->nccl.init);
	live_step_init(&lf->nccl.allreduce);
	lf->nccl.version_code = lf->nccl.ranks = lf->nccl.count = CD_UNK;
	lf->nccl.allreduce_us = lf->nccl.bus_bps = CD_UNK;
	return lf;
}

static void device_init(struct cd_live_device *d, size_t i)
{
	size_t k;

	memset(d, 0, sizeof(*d));
	d->ordinal = (int64_t)i;
	d->nvml_index = d->gi = d->ci = CD_UNK;
	d->cc_major = d->cc_minor = d->sm_count = d->clock_khz = CD_UNK;
	d->mem_clock_khz = d->bus_width_bits = d->compute_mode = d->ecc_enabled = CD_UNK;
	d->total_bytes = d->free_bytes = d->wall_us = d->alloc_bytes = CD_UNK;
	d->jit_wall_us = d->kernel_rtt_us = d->launch_us = d->h2d_bps = d->d2h_bps = CD_UNK;
	d->memtest_bytes = d->memtest_bps = d->memtest_errors = CD_UNK;
	d->compute_iters = d->compute_threads = d->compute_us = CD_UNK;
	for (k = 0; k < CD_LSTEP_N; k++)
		live_step_init(&d->steps[k]);
}

int live_devices_alloc(struct cd_live_facts *lf, struct cd_arena *a, size_t n)
{
	size_t i;

	lf->n_devices = 0;
	lf->devices = n ? arena_calloc(a, n, sizeof(*lf->devices)) : NULL;
	if (n && !lf->devices)
		return -1;
	for (i = 0; i < n; i++)
		device_init(&lf->devices[i], i);
	lf->n_devices = n;
	return 0;
}

enum cd_live_result live_device_worst(const struct cd_live_device *d)
{
	enum cd_live_result w = CD_LIVE_PASSED;
	size_t k;

	for (k = 0; k < CD_LSTEP_N; k++)
		if (live_result_rank(d->steps[k].result) > live_result_rank(w))
			w = d->steps[k].result;
	return w;
}
