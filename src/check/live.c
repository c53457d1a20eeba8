/* live: see live.h. Devices that end a step the same way (the same step and
 * CUresult, or the same hang or signal) become one finding with each device
 * in its evidence, so eight GPUs that fail cuInit with 999 read as one
 * problem. What a CUresult means and how it is fixed comes from
 * data/cuda_results.tsv (kb/errcodes.h). */
#include "check/live.h"

#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "facts/live.h"
#include "kb/errcodes.h"
#include "kb/xid.h"

#define SEC		  "probe"
#define GROUPS_MAX	  32
#define SHOWN_MAX	  8
#define LIVE_NO_DEVICE_RC 100 /* CUDA_ERROR_NO_DEVICE (cuda.h) */
#define LIVE_OOM_RC	  2   /* CUDA_ERROR_OUT_OF_MEMORY */

/* Devices that ended one step the same way. */
struct group {
	const char *id;
	enum cd_live_step_id step;
	enum cd_live_result result;
	int64_t rc, signal;
	size_t n;
	const struct cd_live_device *dev[SHOWN_MAX];
	size_t total;
};

static const char *u(const char *s)
{
	return s ? s : "?";
}

static const char *rc_name(const struct cd_live_step *s)
{
	const char *n = s->rc_name ? s->rc_name : errcodes_name(ERRCODES_DRIVER, s->rc);

	return n ? n : "an unknown CUresult";
}

/* Which finding a step's end belongs to. */
static const char *id_of(enum cd_live_step_id step, const struct cd_live_step *s)
{
	switch (s->result) {
	case CD_LIVE_HUNG: return "probe-hung";
	case CD_LIVE_CRASHED: return "probe-crashed";
	case CD_LIVE_FAILED: break;
	default: return NULL;
	}
	if (step == CD_LSTEP_INIT && s->rc == LIVE_NO_DEVICE_RC)
		return "probe-no-device";
	if (step == CD_LSTEP_INIT)
		return "probe-init-failed";
	if (step == CD_LSTEP_MODULE)
		return "probe-jit-failed";
	if ((s->rc == CD_UNK || s->rc == 0) &&
	    (step == CD_LSTEP_COPY || step == CD_LSTEP_LAUNCH || step == CD_LSTEP_MEMTEST ||
	     step == CD_LSTEP_COMPUTE))
		return "probe-data-mismatch"; /* no error code: the data came back wrong */
	return "probe-step-failed";
}

static void add_to_group(struct group *g, size_t *ng, const char *id, enum cd_live_step_id step,
			 const struct cd_live_step *s, const struct cd_live_device *d)
{
	size_t i;

	for (i = 0; i < *ng; i++)
		if (!strcmp(g[i].id, id) && g[i].step == step && g[i].result == s->result &&
		    g[i].rc == s->rc && g[i].signal == s->signal)
			break;
	if (i == *ng) {
		if (*ng == GROUPS_MAX)
			return;
		g[i] = (struct group){id, step, s->result, s->rc, s->signal, 0, {0}, 0};
		++*ng;
	}
	if (g[i].n < SHOWN_MAX)
		g[i].dev[g[i].n++] = d;
	g[i].total++;
}

static const char *who(struct cd_arena *a, const struct cd_live_device *d)
{
	const char *id = d->uuid ? d->uuid : d->cuda_uuid;

	return arena_printf(a, "%s (%s%s%s)", u(d->label), d->name ? d->name : "a CUDA device",
			    id ? ", " : "", id ? id : "");
}

static const char *devices_title(struct cd_arena *a, const struct group *g)
{
	if (g->total == 1)
		return u(g->dev[0]->label);
	return arena_printf(a, "%zu devices", g->total);
}

static void table_fix(struct cd_finding *x, struct cd_arena *a, int64_t rc)
{
	const struct errcodes_row *r = rc == CD_UNK ? NULL : errcodes_find(ERRCODES_DRIVER, rc);
	size_t i;

	for (i = 0; r && i < r->n_fix; i++)
		finding_fix(x, a, "%s", r->fix[i]);
}

static void table_detail(struct cd_finding *x, struct cd_arena *a, int64_t rc, const char *lead)
{
	const struct errcodes_row *r = rc == CD_UNK ? NULL : errcodes_find(ERRCODES_DRIVER, rc);

	if (r && r->meaning[0])
		finding_detail(x, a, "%s%s: %s.", lead, r->name, r->meaning);
	else if (r)
		finding_detail(x, a, "%s%s: \"%s\".", lead, r->name, r->text);
	else
		finding_detail(x, a, "%sa CUresult (%lld) this cuda-doctor does not know.", lead,
			       (long long)rc);
}

static void evidence(struct cd_finding *x, struct cd_arena *a, const struct group *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct cd_live_device *d = g->dev[i];
		const struct cd_live_step *s = &d->steps[g->step];
		if (s->result == CD_LIVE_FAILED && s->rc != CD_UNK && s->rc != 0)
			finding_evidence(x, a, "%s: %s returned %s (%lld)%s%s", who(a, d),
					 u(s->call), rc_name(s), (long long)s->rc,
					 s->error ? ": " : "", s->error ? s->error : "");
		else if (s->result == CD_LIVE_FAILED)
			finding_evidence(x, a, "%s, %s step: %s", who(a, d),
					 live_step_name(g->step), u(s->error));
		else
			finding_evidence(x, a, "%s: %s%s%s", who(a, d),
					 s->call ? s->call : live_step_call(g->step),
					 s->error ? ": " : "", s->error ? s->error : "");
		if (d->cvd)
			finding_evidence(x, a, "its child ran with CUDA_VISIBLE_DEVICES=%s",
					 d->cvd);
	}
	if (g->total > g->n)
		finding_evidence(x, a, "and %zu more", g->total - g->n);
}

static void hung(struct cd_findings *out, const struct group *g)
{
	const char *id = g->id; /* one of id_of()'s */
	struct cd_arena *a = out->arena;
	const struct cd_live_step *s = &g->dev[0]->steps[g->step];
	struct cd_finding *x = findings_add(
		out, id, CD_SEV_ERROR, SEC, "%s hung in %s: the step did not finish and was killed",
		devices_title(a, g), s->call ? s->call : live_step_call(g->step));

	if (!x)
		return;
	finding_detail(x, a,
		       "The %s step did not return within its deadline. A CUDA program doing the "
		       "same would hang here too; hung and failed are different problems: a hang "
		       "is usually the driver or the GPU, not the program.",
		       live_step_name(g->step));
	evidence(x, a, g);
	finding_fix(x, a, "sudo dmesg -T | grep -iE 'NVRM|Xid'   # an Xid names the fault");
	finding_fix(x, a, "nvidia-smi   # does it answer? processes stuck in state D:");
	finding_fix(x, a, "ps -eo pid,stat,cmd | awk '$2 ~ /D/'");
	finding_fix(x, a,
		    "sudo nvidia-smi -r -i N   # reset the GPU with nothing on it, or reboot");
}

static void crashed(struct cd_findings *out, const struct group *g)
{
	const char *id = g->id; /* one of id_of()'s */
	struct cd_arena *a = out->arena;
	const struct cd_live_step *s = &g->dev[0]->steps[g->step];
	struct cd_finding *x = findings_add(
		out, id, CD_SEV_ERROR, SEC, "%s crashed in %s (signal %lld)", devices_title(a, g),
		s->call ? s->call : live_step_call(g->step), (long long)g->signal);

	if (!x)
		return;
	finding_detail(x, a,
		       "The probe's child for this device was killed by a signal during the %s "
		       "step, inside the driver library; a CUDA program would crash the same "
		       "way.",
		       live_step_name(g->step));
	evidence(x, a, g);
	finding_fix(x, a, "sudo dmesg -T | grep -iE 'NVRM|Xid|segfault'");
	finding_fix(x, a,
		    "dpkg -S \"$(readlink -f /usr/lib/x86_64-linux-gnu/libcuda.so.1)\"   # "
		    "the package to reinstall (rpm -qf on RPM systems)");
}

static void failed(struct cd_findings *out, const struct group *g)
{
	const char *id = g->id; /* one of id_of()'s */
	struct cd_arena *a = out->arena;
	const struct cd_live_step *s = &g->dev[0]->steps[g->step];
	const char *step = live_step_call(g->step), *call = s->call ? s->call : step;
	struct cd_finding *x;

	if (!strcmp(g->id, "probe-data-mismatch"))
		x = findings_add(out, id, CD_SEV_ERROR, SEC,
				 "%s read back wrong data in the %s step", devices_title(a, g),
				 live_step_name(g->step));
	else if (s->rc == CD_UNK || s->rc == 0)
		x = findings_add(out, id, CD_SEV_ERROR, SEC, "%s: the %s step failed: %s",
				 devices_title(a, g), live_step_name(g->step), u(s->error));
	else
		x = findings_add(out, id, CD_SEV_ERROR, SEC, "%s: %s failed with %s (%lld)",
				 devices_title(a, g), call, rc_name(s), (long long)s->rc);
	if (!x)
		return;
	if (!strcmp(g->id, "probe-data-mismatch")) {
		finding_detail(
			x, a,
			"The bytes read back from the GPU are not the bytes written (or the "
			"kernel's results are wrong): device memory, the copy engines or the "
			"link corrupt data. A training job here computes on garbage without "
			"an error.");
		evidence(x, a, g);
		finding_fix(x, a, "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER");
		finding_fix(x, a, "sudo dmesg -T | grep -iE 'NVRM|Xid'");
		finding_fix(x, a, "cuda-doctor probe --full   # the larger memory test");
		finding_fix(x, a,
			    "drain the node; reset the GPU (sudo nvidia-smi -r -i N); replace "
			    "it if this recurs");
		return;
	}
	if (s->rc != CD_UNK && s->rc != 0)
		table_detail(x, a, s->rc, "");
	else
		finding_detail(x, a, "The %s step could not go on; no CUDA call failed.",
			       live_step_name(g->step));
	evidence(x, a, g);
	/* too little free memory to test: what holds it, as for CUDA_ERROR_OUT_OF_MEMORY */
	table_fix(x, a, s->rc == CD_UNK && g->step == CD_LSTEP_ALLOC ? LIVE_OOM_RC : s->rc);
}

static void jit(struct cd_findings *out, const struct group *g)
{
	const char *id = g->id; /* one of id_of()'s */
	struct cd_arena *a = out->arena;
	const struct cd_live_device *d = g->dev[0];
	const struct cd_live_step *s = &d->steps[g->step];
	struct cd_finding *x = findings_add(out, id, CD_SEV_ERROR, SEC,
					    "%s: the driver could not JIT-compile PTX: %s (%lld)",
					    devices_title(a, g), rc_name(s), (long long)s->rc);
	size_t i;

	if (!x)
		return;
	table_detail(x, a, s->rc,
		     "The probe's embedded kernels are PTX ISA 6.0 for sm_50, which every driver "
		     "since R384 compiles, so the JIT compiler itself is the problem. ");
	evidence(x, a, g);
	for (i = 0; i < d->n_jit_log && i < 6; i++)
		finding_evidence(x, a, "JIT log: %s", d->jit_log[i]);
	table_fix(x, a, s->rc);
}

static void init_failed(struct cd_findings *out, const struct group *g, const struct cd_facts *f)
{
	const char *id = g->id; /* one of id_of()'s */
	struct cd_arena *a = out->arena;
	const struct cd_live_step *s = &g->dev[0]->steps[g->step];
	struct cd_finding *x;

	if (!strcmp(g->id, "probe-no-device"))
		x = findings_add(out, id, CD_SEV_ERROR, SEC,
				 "CUDA sees no device: cuInit returned %s (%lld)", rc_name(s),
				 (long long)s->rc);
	else
		x = findings_add(out, id, CD_SEV_ERROR, SEC, "%s: cuInit failed with %s (%lld)",
				 devices_title(a, g), rc_name(s), (long long)s->rc);
	if (!x)
		return;
	table_detail(x, a, s->rc, "");
	evidence(x, a, g);
	if (f->live->cvd)
		finding_evidence(x, a, "CUDA_VISIBLE_DEVICES=%s", f->live->cvd);
	if (f->gpus_known)
		finding_evidence(x, a, "NVML lists %zu GPU%s", f->n_gpus,
				 f->n_gpus == 1 ? "" : "s");
	table_fix(x, a, s->rc);
}

static void emit_group(const struct cd_facts *f, struct cd_findings *out, const struct group *g)
{
	if (g->result == CD_LIVE_HUNG)
		hung(out, g);
	else if (g->result == CD_LIVE_CRASHED)
		crashed(out, g);
	else if (!strcmp(g->id, "probe-jit-failed"))
		jit(out, g);
	else if (!strcmp(g->id, "probe-init-failed") || !strcmp(g->id, "probe-no-device"))
		init_failed(out, g, f);
	else
		failed(out, g);
}

/* The library could not be loaded: check_driver's driver-missing says so
 * already when the driver probe could not load it either. */
static int load_reported(const struct cd_facts *f, enum cd_live_step_id step,
			 const struct cd_live_step *s)
{
	return step == CD_LSTEP_LOAD && s->result == CD_LIVE_FAILED &&
	       f->driver.cuda.status == CD_PROBE_LIB_MISSING;
}

static void steps(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_live_facts *lf = f->live;
	struct group g[GROUPS_MAX];
	size_t ng = 0, i;
	enum cd_live_step_id k;

	for (i = 0; i < lf->n_devices; i++)
		for (k = 0; k < CD_LSTEP_N; k++) {
			const struct cd_live_step *s = &lf->devices[i].steps[k];
			const char *id = id_of(k, s);
			if (id && !load_reported(f, k, s))
				add_to_group(g, &ng, id, k, s, &lf->devices[i]);
		}
	for (i = 0; i < ng; i++)
		emit_group(f, out, &g[i]);
}

/* No device at all: what the enumeration child's cuInit said. */
static void no_device(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_live_facts *lf = f->live;
	struct cd_live_device d;
	struct group g;
	const char *id;

	if (lf->n_devices || lf->enumerate.result == CD_LIVE_SKIPPED ||
	    (f->gpus_known && f->n_gpus == 0 && !lf->cvd))
		return; /* gpu-none-visible (check_gpus) says it for NVML */
	memset(&d, 0, sizeof(d));
	d.label = "CUDA";
	d.steps[CD_LSTEP_INIT] = lf->enumerate;
	if (lf->enumerate.result == CD_LIVE_PASSED) {
		d.steps[CD_LSTEP_INIT].result = CD_LIVE_FAILED;
		d.steps[CD_LSTEP_INIT].rc = LIVE_NO_DEVICE_RC;
		d.steps[CD_LSTEP_INIT].call = "cuDeviceGetCount";
		d.steps[CD_LSTEP_INIT].error = "0 devices";
	}
	if (!(id = id_of(CD_LSTEP_INIT, &d.steps[CD_LSTEP_INIT])) ||
	    load_reported(f, CD_LSTEP_LOAD, &d.steps[CD_LSTEP_INIT]))
		return;
	memset(&g, 0, sizeof(g));
	g = (struct group){id,
			   CD_LSTEP_INIT,
			   d.steps[CD_LSTEP_INIT].result,
			   d.steps[CD_LSTEP_INIT].rc,
			   d.steps[CD_LSTEP_INIT].signal,
			   1,
			   {&d},
			   1};
	emit_group(f, out, &g);
}

static void timed_out(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_live_facts *lf = f->live;
	struct cd_finding *x;
	size_t i, n = 0;

	for (i = 0; i < lf->n_devices; i++)
		n += lf->devices[i].steps[CD_LSTEP_LOAD].result == CD_LIVE_NOT_RUN &&
		     lf->devices[i].result != CD_LIVE_SKIPPED;
	if (!n)
		return;
	x = findings_add(out, "probe-timeout", CD_SEV_ERROR, SEC,
			 "%zu device%s not probed: the probe's --timeout (%lld ms) ran out first",
			 n, n == 1 ? " was" : "s were", (long long)lf->timeout_ms);
	if (!x)
		return;
	finding_detail(x, out->arena,
		       "Devices are probed %d at a time; earlier ones used the whole bound, "
		       "usually because they hung (see probe-hung).",
		       8);
	for (i = 0; i < lf->n_devices && x->n_evidence < SHOWN_MAX; i++)
		if (lf->devices[i].steps[CD_LSTEP_LOAD].result == CD_LIVE_NOT_RUN &&
		    lf->devices[i].result != CD_LIVE_SKIPPED)
			finding_evidence(x, out->arena, "%s: not started", u(lf->devices[i].label));
	finding_fix(x, out->arena, "cuda-doctor probe --timeout %lld   # a longer bound",
		    (long long)(lf->timeout_ms / 1000 * 2 + 1));
}

void check_live(const struct cd_facts *f, struct cd_findings *out)
{
	if (!f->live)
		return;
	steps(f, out);
	no_device(f, out);
	timed_out(f, out);
	check_live_health(f, out);
}
