/* live_plan: which devices `probe` runs on (live_int.h). With NVML's GPU
 * list (and its MIG instances, live_nvml.c) CUDA_VISIBLE_DEVICES is read the
 * way the runtime reads it (format/cvd.h) and each visible device gets a
 * child whose CUDA_VISIBLE_DEVICES names it alone by UUID; a MIG-enabled GPU
 * is its MIG instances. Without NVML, or with entries NVML cannot place, an
 * enumeration child asks CUDA itself under the inherited variable, and each
 * device's child keeps it and picks its ordinal. */
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "format/cvd.h"
#include "format/kv.h"
#include "probe/live/live.h"
#include "probe/live/live_int.h"

#define DEVICES_MAX   64
#define ENUM_MAX_MS   30000 /* the enumeration child: cuInit and a count */
#define SKIP_MIG_NONE "MIG is enabled on this GPU and no MIG instance exists"

struct cand {
	const char *label, *uuid, *skip;
	int64_t nvml_index, gi, ci;
	int is_mig;
};

static const struct cd_live_gpu *live_gpu(const struct cd_live_facts *lf, int64_t index)
{
	size_t i;

	for (i = 0; i < lf->n_gpus; i++)
		if (lf->gpus[i].index == index)
			return &lf->gpus[i];
	return NULL;
}

/* GPU k (NVML's index) as candidates: itself, or its MIG instances. */
static size_t add_gpu(struct cd_facts *f, const struct cd_live_facts *lf, size_t k, struct cand *c,
		      size_t n)
{
	const struct cd_live_gpu *g = live_gpu(lf, (int64_t)k);
	size_t i;

	if (n >= DEVICES_MAX)
		return n;
	if (g && g->mig_enabled == CD_TRI_YES && !g->n_mig) {
		c[n] = (struct cand){arena_printf(&f->arena, "GPU %zu", k),
				     f->gpus[k].uuid,
				     SKIP_MIG_NONE,
				     (int64_t)k,
				     CD_UNK,
				     CD_UNK,
				     0};
		return n + 1;
	}
	if (!g || g->mig_enabled != CD_TRI_YES) {
		c[n] = (struct cand){arena_printf(&f->arena, "GPU %zu", k),
				     f->gpus[k].uuid,
				     NULL,
				     (int64_t)k,
				     CD_UNK,
				     CD_UNK,
				     0};
		return n + 1;
	}
	for (i = 0; i < g->n_mig && n < DEVICES_MAX; i++, n++)
		c[n] = (struct cand){arena_printf(&f->arena, "GPU %zu MIG %zu", k, i),
				     g->migs[i].uuid,
				     NULL,
				     (int64_t)k,
				     g->migs[i].gi,
				     g->migs[i].ci,
				     1};
	return n;
}

/* A MIG- entry of CUDA_VISIBLE_DEVICES: the MIG instance whose UUID it starts. */
static int add_mig_entry(struct cd_facts *f, const struct cd_live_facts *lf, const char *e,
			 size_t len, struct cand *c, size_t *n)
{
	size_t g, i;

	for (g = 0; g < lf->n_gpus; g++)
		for (i = 0; i < lf->gpus[g].n_mig; i++) {
			const struct cd_live_mig *m = &lf->gpus[g].migs[i];
			if (!m->uuid || strncmp(m->uuid, e, len) || *n >= DEVICES_MAX)
				continue;
			c[(*n)++] = (struct cand){arena_printf(&f->arena, "GPU %lld MIG %zu",
							       (long long)lf->gpus[g].index, i),
						  m->uuid,
						  NULL,
						  lf->gpus[g].index,
						  m->gi,
						  m->ci,
						  1};
			return 0;
		}
	return -1;
}

static const char *cvd_note(struct cd_facts *f, const struct cvd_list *l,
			    const struct cvd_result *r, const char *v)
{
	if (r->problem == CVD_OK || r->problem == CVD_P_MIG_UNVERIFIED)
		return NULL;
	if (r->problem == CVD_P_STOPPED && l->stop != CVD_STOP_NONE)
		return arena_printf(&f->arena,
				    "CUDA reads CUDA_VISIBLE_DEVICES=\"%s\" up to \"%.*s\"; the "
				    "rest is ignored",
				    v, (int)l->stop_len, v + l->stop_off);
	return arena_printf(&f->arena,
			    "CUDA_VISIBLE_DEVICES=\"%s\": entry \"%.*s\" names no GPU, so it and "
			    "the entries after it are ignored",
			    v, (int)l->e[r->at].len, v + l->e[r->at].off);
}

/* Candidates from NVML; -1 when NVML cannot place them (enumerate instead). */
static int from_nvml(struct cd_facts *f, struct cd_live_facts *lf, struct cand *c, size_t *n)
{
	const char *v = lf->cvd, *uuids[CVD_ENTRIES_MAX] = {0};
	size_t i, ng = f->n_gpus < CVD_ENTRIES_MAX ? f->n_gpus : CVD_ENTRIES_MAX;
	struct cvd_list l;
	struct cvd_result r;

	if (f->driver.nvml.status != CD_PROBE_OK || !f->gpus_known || !ng)
		return -1;
	for (i = 0; i < ng; i++)
		if (!(uuids[i] = f->gpus[i].uuid))
			return -1;
	*n = 0;
	if (!v) {
		for (i = 0; i < ng; i++)
			*n = add_gpu(f, lf, i, c, *n);
		return 0;
	}
	cvd_parse((const uint8_t *)v, strlen(v), &l);
	cvd_resolve(&l, (const uint8_t *)v, strlen(v), uuids, ng, &r);
	lf->cvd_note = cvd_note(f, &l, &r, v);
	if (l.n && l.mode == CVD_MIG) {
		for (i = 0; i < l.n; i++)
			if (add_mig_entry(f, lf, v + l.e[i].off, l.e[i].len, c, n))
				return -1; /* not a MIG instance NVML lists: ask CUDA */
		return 0;
	}
	for (i = 0; i < r.visible && i < CVD_ENTRIES_MAX; i++) {
		if (r.gpu[i] < 0)
			return -1;
		*n = add_gpu(f, lf, (size_t)r.gpu[i], c, *n);
	}
	return 0;
}

struct enum_ctx {
	struct cd_facts *f;
	struct cd_live_facts *lf;
	const char *uuid[DEVICES_MAX];
};

static void enum_record(void *p, const char *k, const char *v)
{
	struct enum_ctx *e = p;
	int i;

	if (!strcmp(k, "enum.count")) {
		if (!str_to_int(v, 0, 1 << 20, &i))
			e->lf->cuda_count = i;
	} else if (str_has_prefix(k, "enum.") && str_has_suffix(k, ".uuid")) {
		char num[8];
		str_ncopy(num, sizeof(num), k + 5, strlen(k) - 10);
		if (!str_to_int(num, 0, DEVICES_MAX - 1, &i))
			e->uuid[i] = arena_strdup(&e->f->arena, v);
	}
}

static void enum_records(const struct iso_job *j, struct enum_ctx *e)
{
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	struct kv_reader r;
	int rc;

	kv_reader_init(&r, (const uint8_t *)j->out.p, j->out.p ? j->out.len : 0);
	while ((rc = kv_next(&r, k, v)) != 0)
		if (rc == 1)
			enum_record(e, k, v);
}

/* Ask CUDA itself: cuInit and cuDeviceGetCount under the inherited
 * CUDA_VISIBLE_DEVICES. Its init result is lf->enumerate. */
static size_t from_cuda(struct cd_facts *f, struct cd_live_facts *lf, const char *lib,
			int64_t end_us, struct cand *c)
{
	struct live_dev_arg a = {lib, NULL, 0, 0, 1};
	struct iso_job j = {.fn = live_dev_child, .arg = &a, .step_deadlines = 1};
	struct cd_live_device tmp;
	struct cd_live_facts one;
	struct enum_ctx e;
	int64_t left = (end_us - iso_now_us()) / 1000;
	size_t i, n = 0;

	memset(&e, 0, sizeof(e));
	e.f = f;
	e.lf = lf;
	lf->enumerated_by = "cuda";
	/* a child that did not start is ISO_NOT_RUN with its error: the step says so */
	(void)!isolate_run(&j, 1, left > ENUM_MAX_MS ? ENUM_MAX_MS : (int)(left > 0 ? left : 1), 0,
			   NULL);
	memset(&one, 0, sizeof(one));
	if (live_devices_alloc(&one, &f->arena, 1) == 0) {
		tmp = one.devices[0];
		live_apply_device(f, &tmp, &j);
		lf->enumerate = tmp.steps[CD_LSTEP_LOAD].result != CD_LIVE_PASSED
					? tmp.steps[CD_LSTEP_LOAD]
					: tmp.steps[CD_LSTEP_INIT];
	}
	enum_records(&j, &e);
	iso_job_free(&j);
	for (i = 0; lf->cuda_count != CD_UNK && i < (size_t)lf->cuda_count && i < DEVICES_MAX; i++)
		c[n++] = (struct cand){arena_printf(&f->arena, "CUDA %zu", i),
				       e.uuid[i],
				       NULL,
				       CD_UNK,
				       CD_UNK,
				       CD_UNK,
				       0};
	return n;
}

/* --devices: ordinals of the visible list, or UUID prefixes. */
static int filter(struct cd_facts *f, const char *list, struct cand *c, size_t *n,
		  struct cd_err *err)
{
	struct cand keep[DEVICES_MAX];
	int want[DEVICES_MAX] = {0};
	size_t i, m = 0;

	while (*list) {
		size_t len = strcspn(list, ",");
		char tok[96];
		int ord, hit = 0;
		str_ncopy(tok, sizeof(tok), list, len);
		str_trim(tok);
		if (tok[0] && !str_to_int(tok, 0, DEVICES_MAX - 1, &ord) && (size_t)ord < *n)
			want[ord] = hit = 1;
		for (i = 0; tok[0] && !hit && i < *n; i++)
			if (c[i].uuid && str_has_prefix(c[i].uuid, tok))
				want[i] = hit = 1;
		if (tok[0] && !hit && !*n)
			return err_set(err, CD_EUSAGE, "--devices: '%s': no device is visible",
				       tok);
		if (tok[0] && !hit)
			return err_set(err, CD_EUSAGE,
				       "--devices: '%s' is not a visible device (%zu visible: "
				       "0-%zu or a GPU-/MIG- UUID)",
				       tok, *n, *n - 1);
		list += len + (list[len] == ',');
	}
	for (i = 0; i < *n; i++)
		if (want[i])
			keep[m++] = c[i];
	memcpy(c, keep, m * sizeof(*c));
	*n = m;
	(void)f;
	return 0;
}

static int fill(struct cd_facts *f, struct cd_live_facts *lf, const struct live_opts *o,
		const struct cand *c, size_t n, const char *lib, struct live_dev_arg **args)
{
	size_t i, k;

	if (live_devices_alloc(lf, &f->arena, n) ||
	    (n && !(*args = arena_calloc(&f->arena, n, sizeof(**args)))))
		return err_set(NULL, CD_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		struct cd_live_device *d = &lf->devices[i];
		int by_uuid = lf->enumerated_by && !strcmp(lf->enumerated_by, "nvml");
		d->label = c[i].label;
		d->uuid = c[i].uuid;
		if (c[i].nvml_index != CD_UNK && !c[i].is_mig &&
		    (size_t)c[i].nvml_index < f->n_gpus)
			d->name = f->gpus[c[i].nvml_index].name; /* until CUDA names it */
		d->nvml_index = c[i].nvml_index;
		d->is_mig = c[i].is_mig;
		d->gi = c[i].gi;
		d->ci = c[i].ci;
		d->cvd = by_uuid ? c[i].uuid : NULL;
		(*args)[i] = (struct live_dev_arg){lib, d->cvd, by_uuid ? 0 : (int)d->ordinal,
						   o->full, 0};
		for (k = CD_LSTEP_MEMTEST; !o->full && k <= CD_LSTEP_COMPUTE; k++) {
			d->steps[k].result = CD_LIVE_SKIPPED;
			d->steps[k].error = "not asked for (--full)";
		}
		for (k = 0; c[i].skip && k < CD_LSTEP_N; k++) {
			d->steps[k].result = CD_LIVE_SKIPPED;
			d->steps[k].error = c[i].skip;
		}
	}
	return 0;
}

int live_plan(struct cd_facts *f, struct cd_live_facts *lf, const struct live_opts *o,
	      int64_t end_us, struct live_dev_arg **args, struct cd_err *err)
{
	const char *lib = f->driver.cuda.requested, *v = facts_getenv(f, "CUDA_VISIBLE_DEVICES");
	struct cand c[DEVICES_MAX];
	size_t n = 0, i;
	int rc;

	*args = NULL;
	lf->cvd = v ? arena_strdup(&f->arena, v) : NULL;
	if (!lib) {
		lf->enumerate.result = CD_LIVE_SKIPPED;
		lf->enumerate.error = "under --root the live driver is loaded only with --cuda-lib";
		return 0;
	}
	lf->enumerated_by = "nvml";
	if (from_nvml(f, lf, c, &n) || !n)
		n = from_cuda(f, lf, lib, end_us, c);
	if (o->devices && (rc = filter(f, o->devices, c, &n, err)) != 0)
		return rc;
	if ((rc = fill(f, lf, o, c, n, lib, args)) != 0)
		return err_set(err, rc, "out of memory");
	for (i = 0; i < n; i++)
		if (c[i].skip)
			lf->devices[i].result = CD_LIVE_SKIPPED;
	return 0;
}
