/* live: see live.h. The order, each phase bounded by what is left of
 * --timeout: the driver probe's NVML and cuDriverGetVersion children (at most
 * NVML_SHARE of it), beside them the NVML child for MIG instances and the
 * recovery state; the plan (which devices CUDA_VISIBLE_DEVICES and --devices
 * leave); the device children in parallel, ISO_JOBS_MAX at a time; with two
 * or more devices and --full the peer child; with --nccl the NCCL child; the
 * Xid lines of the kernel log last, so those the probe caused are seen. */
#include "probe/live/live.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "core/opts.h"
#include "core/str.h"
#include "facts/live.h"
#include "probe/driver/driver.h"
#include "probe/live/live_int.h"
#include "probe/system/system.h"

#define NVML_SHARE_PCT 30   /* of --timeout for the NVML queries ... */
#define NVML_MAX_MS    5000 /* ... and never more than this */
#define PEERS_SHARE    20   /* % of --timeout kept for the peer child */
#define NCCL_SHARE     25   /* % kept for the NCCL child */

const char *live_ptx_text(void)
{
	return live_ptx;
}

static int left_ms(int64_t end_us)
{
	int64_t left = end_us - iso_now_us();

	return left > 1000 ? (int)(left / 1000) : left > 0 ? 1 : 0;
}

/* The driver probe under the NVML share of the timeout, beside the NVML
 * child of this probe (MIG instances, recovery state). */
static void nvml_phase(struct cd_facts *f, struct cd_live_facts *lf, int total_ms)
{
	struct cd_opts nv = f->opts ? *f->opts : (struct cd_opts){0};
	const struct cd_opts *saved = f->opts;
	struct driver_pending *p;
	struct live_nvml_pending *q;
	int ms = total_ms * NVML_SHARE_PCT / 100;

	nv.timeout_ms = ms > NVML_MAX_MS ? NVML_MAX_MS : ms < 100 ? 100 : ms;
	f->opts = &nv;
	p = driver_probe_start(f);
	q = live_nvml_start(f, lf, nv.timeout_ms);
	env_probe(f);
	host_probe(f);
	container_probe(f); /* the driver findings' fixes differ in a container */
	driver_probe_finish(f, p);
	live_nvml_finish(f, lf, q);
	f->opts = saved;
}

/* Run the planned devices' children, ISO_JOBS_MAX at a time, until end_us;
 * devices skipped by the plan get none. */
static void run_devices(struct cd_facts *f, struct cd_live_facts *lf, struct live_dev_arg *args,
			int64_t end_us, struct live_xid_pending *kmsg)
{
	struct iso_job jobs[ISO_JOBS_MAX];
	struct iso_batch batch;
	size_t idx[ISO_JOBS_MAX], next = 0, i, m;
	int verbose = f->opts ? f->opts->verbose : 0;

	for (;;) {
		int ms = left_ms(end_us);
		for (m = 0; next < lf->n_devices && m < ISO_JOBS_MAX; next++)
			if (lf->devices[next].result != CD_LIVE_SKIPPED)
				idx[m++] = next;
		if (!m)
			return;
		if (ms <= 0) {
			for (i = 0; i < m; i++)
				lf->devices[idx[i]].steps[CD_LSTEP_LOAD].error =
					"not started: the probe's --timeout ran out first";
			lf->timed_out = 1;
			continue;
		}
		memset(jobs, 0, sizeof(jobs));
		for (i = 0; i < m; i++)
			jobs[i] = (struct iso_job){.fn = live_dev_child,
						   .arg = &args[idx[i]],
						   .keep_stderr = verbose >= 2,
						   .step_deadlines = 1};
		/* a failed start leaves every job ISO_NOT_RUN, which apply reports; the
		 * kernel log so far is read while the children run */
		if (isolate_start(&batch, jobs, m, ms, 0, NULL) == 0) {
			live_xid_drain(kmsg);
			isolate_wait(&batch);
		}
		for (i = 0; i < m; i++) {
			live_apply_device(f, &lf->devices[idx[i]], &jobs[i]);
			lf->timed_out |= lf->devices[idx[i]].killed_at_timeout;
			iso_job_free(&jobs[i]);
		}
	}
}

static int64_t peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? CD_UNK : (int64_t)ru.ru_maxrss;
}

int live_probe(struct cd_facts *f, const struct live_opts *o, struct cd_err *err)
{
	struct cd_live_facts *lf = live_facts_new(&f->arena);
	int64_t t0 = iso_now_us(), end_us, keep = 0;
	struct live_dev_arg *args = NULL;
	struct live_xid_pending *kmsg;
	int rc;

	if (!lf)
		return err_set(err, CD_ENOMEM, "out of memory");
	f->live = lf;
	lf->full = o->full;
	lf->timeout_ms = o->timeout_ms;
	lf->devices_opt = o->devices;
	lf->nccl.requested = o->nccl;
	end_us = t0 + (int64_t)o->timeout_ms * 1000;
	nvml_phase(f, lf, o->timeout_ms);
	keep += o->full ? (int64_t)o->timeout_ms * PEERS_SHARE * 10 : 0;
	keep += o->nccl ? (int64_t)o->timeout_ms * NCCL_SHARE * 10 : 0;
	rc = live_plan(f, lf, o, end_us - keep, &args, err);
	if (rc)
		return rc;
	kmsg = live_xid_open(f, lf);
	run_devices(f, lf, args, end_us - keep, kmsg);
	live_peers(f, lf, end_us - (o->nccl ? (int64_t)o->timeout_ms * NCCL_SHARE * 10 : 0));
	live_nccl(f, lf, o, end_us);
	live_xid_close(f, lf, kmsg, t0); /* what the probe itself made the driver log, too */
	lf->wall_us = iso_now_us() - t0;
	lf->peak_rss_kb = peak_rss_kb();
	return 0;
}
