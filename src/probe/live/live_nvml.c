/* live_nvml: the NVML child of `probe` (live_int.h), beside the driver
 * probe's own: for each GPU its MIG instances (UUID, name, GPU and compute
 * instance, memory), the recovery action NVML recommends, retired pages by
 * cause and the row remapper's counts. Only what the driver probe does not
 * already ask; identity (UUID, name, PCI address) comes from f->gpus. The
 * layouts are those of nvml.h; absent or unsupported queries stay unknown. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "format/kv.h"
#include "probe/dlib.h"
#include "probe/live/live_int.h"

#define GPUS_MAX	  64
#define MIGS_MAX	  8   /* 7 on A100 / H100 / H200; B200 has 7 too */
#define FI_RECOVERY	  230 /* NVML_FI_DEV_GET_GPU_RECOVERY_ACTION */
#define NVML_BUFFER	  96
#define NVML_NOT_FOUND	  6
#define NVML_INSUFFICIENT 7

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlReturn_t;

struct nvml_memory { /* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct nvml_field { /* nvmlFieldValue_t */
	unsigned int field_id, scope_id;
	long long timestamp, latency_usec;
	int value_type;
	nvmlReturn_t nvml_return;
	union {
		double d;
		unsigned int ui;
		unsigned long long ull;
		long long sll;
	} value;
};

enum {
	N_INIT,
	N_COUNT,
	N_HANDLE,
	N_MIG_MODE,
	N_MIG_MAX,
	N_MIG_HANDLE,
	N_GI,
	N_CI,
	N_UUID,
	N_NAME,
	N_MEM,
	N_FIELDS,
	N_RETIRED,
	N_RETIRED_PENDING,
	N_REMAP,
	N_N
};

static const struct dlib_sym syms[N_N] = {
	[N_INIT] = {"nvmlInit_v2", "nvmlInit", 1},
	[N_COUNT] = {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", 1},
	[N_HANDLE] = {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", 1},
	/* (nvmlDevice_t, unsigned *current, unsigned *pending) */
	[N_MIG_MODE] = {"nvmlDeviceGetMigMode", NULL, 0},
	/* (nvmlDevice_t, unsigned *count) */
	[N_MIG_MAX] = {"nvmlDeviceGetMaxMigDeviceCount", NULL, 0},
	/* (nvmlDevice_t, unsigned index, nvmlDevice_t *mig) */
	[N_MIG_HANDLE] = {"nvmlDeviceGetMigDeviceHandleByIndex", NULL, 0},
	/* (nvmlDevice_t, unsigned *id) */
	[N_GI] = {"nvmlDeviceGetGpuInstanceId", NULL, 0},
	[N_CI] = {"nvmlDeviceGetComputeInstanceId", NULL, 0},
	/* (nvmlDevice_t, char *, unsigned length) */
	[N_UUID] = {"nvmlDeviceGetUUID", NULL, 0},
	[N_NAME] = {"nvmlDeviceGetName", NULL, 0},
	/* (nvmlDevice_t, nvmlMemory_t *) */
	[N_MEM] = {"nvmlDeviceGetMemoryInfo", NULL, 0},
	/* (nvmlDevice_t, int count, nvmlFieldValue_t *) */
	[N_FIELDS] = {"nvmlDeviceGetFieldValues", NULL, 0},
	/* (nvmlDevice_t, nvmlPageRetirementCause_t, unsigned *count, unsigned long long *) */
	[N_RETIRED] = {"nvmlDeviceGetRetiredPages", NULL, 0},
	/* (nvmlDevice_t, nvmlEnableState_t *isPending) */
	[N_RETIRED_PENDING] = {"nvmlDeviceGetRetiredPagesPendingStatus", NULL, 0},
	/* (nvmlDevice_t, unsigned *corr, unsigned *unc, unsigned *pending, unsigned *failed) */
	[N_REMAP] = {"nvmlDeviceGetRemappedRows", NULL, 0},
};

typedef nvmlReturn_t (*fn_void)(void);
typedef nvmlReturn_t (*fn_uint)(unsigned int *);
typedef nvmlReturn_t (*fn_handle)(unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_dev_uint)(nvmlDevice_t, unsigned int *);
typedef nvmlReturn_t (*fn_dev_2uint)(nvmlDevice_t, unsigned int *, unsigned int *);
typedef nvmlReturn_t (*fn_mig_handle)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
typedef nvmlReturn_t (*fn_dev_str)(nvmlDevice_t, char *, unsigned int);
typedef nvmlReturn_t (*fn_dev_mem)(nvmlDevice_t, struct nvml_memory *);
typedef nvmlReturn_t (*fn_fields)(nvmlDevice_t, int, struct nvml_field *);
typedef nvmlReturn_t (*fn_retired)(nvmlDevice_t, int, unsigned int *, unsigned long long *);
typedef nvmlReturn_t (*fn_remap)(nvmlDevice_t, unsigned int *, unsigned int *, unsigned int *,
				 unsigned int *);

/* ---- child side ---------------------------------------------------------- */

static void emit(struct iso_out *o, const char *prefix, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void emit(struct iso_out *o, const char *prefix, const char *field, const char *fmt, ...)
{
	char key[64], v[256];
	va_list ap;

	snprintf(key, sizeof(key), "%s.%s", prefix, field);
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	iso_emit(o, key, v);
}

static void one_mig(struct iso_out *o, void **fn, nvmlDevice_t m, const char *p)
{
	char s[NVML_BUFFER + 8];
	struct nvml_memory mem;
	unsigned int id;

	memset(s, 0, sizeof(s));
	if (fn[N_UUID] && ((fn_dev_str)fn[N_UUID])(m, s, NVML_BUFFER) == 0 && s[0])
		emit(o, p, "uuid", "%.*s", NVML_BUFFER, s);
	memset(s, 0, sizeof(s));
	if (fn[N_NAME] && ((fn_dev_str)fn[N_NAME])(m, s, NVML_BUFFER) == 0 && s[0])
		emit(o, p, "name", "%.*s", NVML_BUFFER, s);
	if (fn[N_GI] && ((fn_dev_uint)fn[N_GI])(m, &id) == 0)
		emit(o, p, "gi", "%u", id);
	if (fn[N_CI] && ((fn_dev_uint)fn[N_CI])(m, &id) == 0)
		emit(o, p, "ci", "%u", id);
	memset(&mem, 0, sizeof(mem));
	if (fn[N_MEM] && ((fn_dev_mem)fn[N_MEM])(m, &mem) == 0)
		emit(o, p, "mem", "%llu", mem.total);
}

static void migs(struct iso_out *o, void **fn, nvmlDevice_t dev, const char *p)
{
	unsigned int cur = 0, pend = 0, max = 0, i, n = 0;
	char q[48];

	if (!fn[N_MIG_MODE] || ((fn_dev_2uint)fn[N_MIG_MODE])(dev, &cur, &pend) != 0)
		return;
	emit(o, p, "mig", "%u", cur);
	if (cur != 1 || !fn[N_MIG_MAX] || !fn[N_MIG_HANDLE] ||
	    ((fn_dev_uint)fn[N_MIG_MAX])(dev, &max) != 0)
		return;
	for (i = 0; i < max && n < MIGS_MAX; i++) {
		nvmlDevice_t m = NULL;
		/* NVML_ERROR_NOT_FOUND: no instance at this index */
		if (((fn_mig_handle)fn[N_MIG_HANDLE])(dev, i, &m) != 0 || !m)
			continue;
		snprintf(q, sizeof(q), "%s.mig.%u", p, n++);
		one_mig(o, fn, m, q);
	}
}

static void health(struct iso_out *o, void **fn, nvmlDevice_t dev, const char *p)
{
	unsigned int a = 0, b = 0, c = 0, d = 0, n;
	struct nvml_field fv;
	int cause;

	memset(&fv, 0, sizeof(fv));
	fv.field_id = FI_RECOVERY;
	if (fn[N_FIELDS] && ((fn_fields)fn[N_FIELDS])(dev, 1, &fv) == 0 && fv.nvml_return == 0)
		emit(o, p, "recovery", "%u", fv.value.ui);
	for (cause = 0; fn[N_RETIRED] && cause < 2; cause++) {
		int rc;
		n = 0;
		/* a count of 0 asks for the count alone */
		rc = ((fn_retired)fn[N_RETIRED])(dev, cause, &n, NULL);
		if (rc == 0 || rc == NVML_INSUFFICIENT)
			emit(o, p, cause ? "retired_dbe" : "retired_sbe", "%u", n);
	}
	if (fn[N_RETIRED_PENDING] && ((fn_dev_uint)fn[N_RETIRED_PENDING])(dev, &a) == 0)
		emit(o, p, "retired_pending", "%u", a);
	if (fn[N_REMAP] && ((fn_remap)fn[N_REMAP])(dev, &a, &b, &c, &d) == 0) {
		emit(o, p, "remap_corr", "%u", a);
		emit(o, p, "remap_unc", "%u", b);
		emit(o, p, "remap_pending", "%u", c);
		emit(o, p, "remap_failure", "%u", d);
	}
}

static void nvml_child(struct iso_out *o, void *arg)
{
	void *fn[N_N];
	struct dlib lib;
	unsigned int count = 0, i;
	char p[32];

	if (dlib_load_emit(o, &lib, (const char *)arg, syms, N_N, fn))
		return;
	iso_stage(o, syms[N_INIT].name);
	if (((fn_void)fn[N_INIT])() != 0)
		return;
	iso_stage(o, syms[N_COUNT].name);
	if (((fn_uint)fn[N_COUNT])(&count) != 0)
		return;
	iso_emitf(o, "count", "%u", count);
	for (i = 0; i < count && i < GPUS_MAX; i++) {
		nvmlDevice_t dev = NULL;
		snprintf(p, sizeof(p), "gpu.%u", i);
		iso_stage(o, p);
		if (((fn_handle)fn[N_HANDLE])(i, &dev) != 0)
			continue;
		migs(o, fn, dev, p);
		health(o, fn, dev, p);
	}
	iso_emit(o, "done", "1");
}

/* ---- parent side --------------------------------------------------------- */

struct live_nvml_pending {
	struct iso_job job;
	struct iso_batch batch;
	int started;
};

struct live_nvml_pending *live_nvml_start(struct cd_facts *f, struct cd_live_facts *lf,
					  int timeout_ms)
{
	struct live_nvml_pending *p = arena_alloc(&f->arena, sizeof(*p));
	const char *lib = f->driver.nvml.requested;

	if (!p || !lib)
		return p;
	p->job = (struct iso_job){.fn = nvml_child, .arg = (void *)lib};
	p->started = isolate_start(&p->batch, &p->job, 1, timeout_ms, 0, NULL) == 0;
	(void)lf;
	return p;
}

static int u64_of(const char *v, int64_t *out)
{
	uint64_t u;

	if (str_to_u64(v, &u) || u > (uint64_t)INT64_MAX - 1)
		return -1;
	*out = (int64_t)u;
	return 0;
}

static enum cd_tri tri_of(int64_t v)
{
	return v == 0 ? CD_TRI_NO : v > 0 ? CD_TRI_YES : CD_TRI_UNKNOWN;
}

static void mig_field(struct cd_facts *f, struct cd_live_gpu *g, const char *k, const char *v)
{
	char num[8];
	const char *dot = strchr(k, '.');
	struct cd_live_mig *m;
	int i;
	int64_t n;

	if (!dot || (size_t)(dot - k) >= sizeof(num))
		return;
	str_ncopy(num, sizeof(num), k, (size_t)(dot - k));
	if (str_to_int(num, 0, MIGS_MAX - 1, &i))
		return;
	if (!g->migs && !(g->migs = arena_calloc(&f->arena, MIGS_MAX, sizeof(*g->migs))))
		return;
	m = &g->migs[i];
	if ((size_t)i + 1 > g->n_mig) {
		size_t j;
		for (j = g->n_mig; j <= (size_t)i; j++)
			g->migs[j].gi = g->migs[j].ci = g->migs[j].memory_bytes = CD_UNK;
		g->n_mig = (size_t)i + 1;
	}
	k = dot + 1;
	if (!strcmp(k, "uuid"))
		m->uuid = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "name"))
		m->name = arena_strdup(&f->arena, v);
	else if (u64_of(v, &n))
		return;
	else if (!strcmp(k, "gi"))
		m->gi = n;
	else if (!strcmp(k, "ci"))
		m->ci = n;
	else if (!strcmp(k, "mem"))
		m->memory_bytes = n;
}

static void gpu_field(struct cd_facts *f, struct cd_live_gpu *g, const char *k, const char *v)
{
	int64_t n;

	if (str_has_prefix(k, "mig.")) {
		mig_field(f, g, k + 4, v);
		return;
	}
	if (u64_of(v, &n))
		return;
	if (!strcmp(k, "mig"))
		g->mig_enabled = tri_of(n ? 1 : 0);
	else if (!strcmp(k, "recovery"))
		g->recovery_action = n;
	else if (!strcmp(k, "retired_sbe"))
		g->retired_sbe = n;
	else if (!strcmp(k, "retired_dbe"))
		g->retired_dbe = n;
	else if (!strcmp(k, "retired_pending"))
		g->retired_pending = tri_of(n ? 1 : 0);
	else if (!strcmp(k, "remap_corr"))
		g->remap_corr = n;
	else if (!strcmp(k, "remap_unc"))
		g->remap_unc = n;
	else if (!strcmp(k, "remap_pending"))
		g->remap_pending = tri_of(n ? 1 : 0);
	else if (!strcmp(k, "remap_failure"))
		g->remap_failure = tri_of(n ? 1 : 0);
}

static void gpus_alloc(struct cd_facts *f, struct cd_live_facts *lf, const char *v)
{
	int64_t n;
	size_t i;

	if (lf->gpus || u64_of(v, &n) || n <= 0)
		return;
	if (n > GPUS_MAX)
		n = GPUS_MAX;
	if (!(lf->gpus = arena_calloc(&f->arena, (size_t)n, sizeof(*lf->gpus))))
		return;
	for (i = 0; i < (size_t)n; i++) {
		struct cd_live_gpu *g = &lf->gpus[i];
		g->index = (int64_t)i;
		g->mig_enabled = g->retired_pending = g->remap_pending = CD_TRI_UNKNOWN;
		g->remap_failure = CD_TRI_UNKNOWN;
		g->recovery_action = g->retired_sbe = g->retired_dbe = CD_UNK;
		g->remap_corr = g->remap_unc = CD_UNK;
	}
	lf->n_gpus = (size_t)n;
}

static void record(struct cd_facts *f, struct cd_live_facts *lf, const char *k, const char *v,
		   char *stage, size_t cap)
{
	const char *dot;
	char num[8];
	int i;

	if (!strcmp(k, "done")) {
		str_copy(stage, cap, "");
	} else if (!strcmp(k, "stage")) {
		str_copy(stage, cap, v);
	} else if (!strcmp(k, "count")) {
		gpus_alloc(f, lf, v);
	} else if (str_has_prefix(k, "gpu.") && (dot = strchr(k + 4, '.')) &&
		   (size_t)(dot - k - 4) < sizeof(num)) {
		str_ncopy(num, sizeof(num), k + 4, (size_t)(dot - k - 4));
		if (!str_to_int(num, 0, GPUS_MAX - 1, &i) && (size_t)i < lf->n_gpus)
			gpu_field(f, &lf->gpus[i], dot + 1, v);
	}
}

void live_nvml_finish(struct cd_facts *f, struct cd_live_facts *lf, struct live_nvml_pending *p)
{
	char k[KV_KEY_MAX], v[KV_VAL_MAX], stage[48] = "";
	struct kv_reader r;
	size_t i;
	int rc;

	if (!p || !p->started) {
		lf->nvml.result = CD_LIVE_SKIPPED;
		lf->nvml.error = "NVML was not queried";
		return;
	}
	isolate_wait(&p->batch);
	kv_reader_init(&r, (const uint8_t *)p->job.out.p, p->job.out.p ? p->job.out.len : 0);
	while ((rc = kv_next(&r, k, v)) != 0)
		if (rc == 1)
			record(f, lf, k, v, stage, sizeof(stage));
	live_apply_end(f, &lf->nvml, &p->job, stage);
	if (lf->nvml.result == CD_LIVE_PASSED && stage[0]) {
		/* it returned early: NVML did not initialise or count */
		lf->nvml.result = CD_LIVE_FAILED;
		lf->nvml.error = arena_printf(&f->arena, "NVML stopped in %s", stage);
	}
	iso_job_free(&p->job);
	for (i = 0; i < lf->n_gpus && f->gpus_known && i < f->n_gpus; i++) {
		lf->gpus[i].uuid = f->gpus[i].uuid;
		lf->gpus[i].name = f->gpus[i].name;
		lf->gpus[i].pci_bus_id = f->gpus[i].pci_bus_id;
	}
}
