/* driver: the live driver probe (driver_probe in probe.h).
 * Reads the kernel module's version from /proc (root-relative), then asks
 * libnvidia-ml and libcuda in two isolated children that run concurrently
 * under one --timeout deadline (isolate.h), and turns their records into
 * f->driver and f->gpus. Under --root the live driver is queried only when
 * --nvml-lib / --cuda-lib name libraries; otherwise both stay "not-run".
 * Nothing found under --root is ever loaded. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/opts.h"
#include "core/str.h"
#include "format/kv.h"
#include "format/nvproc.h"
#include "probe/driver/cudadrv.h"
#include "probe/dlib.h"
#include "probe/isolate.h"
#include "probe/driver/nvml.h"
#include "probe/driver/driver.h"

#define PROC_VERSION	 "/proc/driver/nvidia/version"
#define PROC_VERSION_MAX (64 * 1024)
#define SYS_VERSION	 "/sys/module/nvidia/version"
#define SYS_VERSION_MAX	 64
#define ABSENT_MAX	 32

/* What the common records of one library's child said. */
struct lib_state {
	char stage[64];
	int dlerror, done;
	const char *missing;
	size_t n_absent;
	const char *absent[ABSENT_MAX];
};

/* The loaded module's version: under --root DIR/proc's, but with check
 * --host-driver this host's (the driver the image is judged against). */
static void kernel_module(struct cd_facts *f)
{
	struct nvproc_version v;
	struct cd_root host;
	const struct cd_root *r = &f->root;
	struct cd_buf b;

	if (!f->root.is_host && f->opts && f->opts->host_driver &&
	    root_init(&host, NULL, NULL) == 0)
		r = &host;
	buf_init(&b, PROC_VERSION_MAX);
	if (file_read(r, PROC_VERSION, PROC_VERSION_MAX, &b, NULL) == 0 &&
	    nvproc_parse((const uint8_t *)b.p, b.len, &v) == 0) {
		f->driver.kernel_module_version = arena_strdup(&f->arena, v.version);
		f->driver.kernel_module_type = v.open ? "open" : "proprietary";
	}
	buf_free(&b);
}

/* /sys/module/nvidia/version: one line, "580.159.04\n"; anything but a
 * dotted number is ignored. */
static void sys_module(struct cd_facts *f)
{
	struct cd_buf b;
	size_t n;

	buf_init(&b, SYS_VERSION_MAX);
	if (file_read(&f->root, SYS_VERSION, SYS_VERSION_MAX, &b, NULL) == 0 && b.p) {
		n = strspn(b.p, "0123456789.");
		if (n && b.p[0] != '.' && (b.p[n] == '\n' || b.p[n] == '\0') && strchr(b.p, '.') &&
		    strchr(b.p, '.') < b.p + n)
			f->driver.sys_module_version = arena_strndup(&f->arena, b.p, n);
	}
	buf_free(&b);
}

/* Records every child writes (isolate, dlib); 1 when key was one of them. */
static int common_record(struct cd_facts *f, struct cd_driver_lib *l, struct lib_state *st,
			 const char *k, const char *v)
{
	if (!strcmp(k, "stage"))
		str_copy(st->stage, sizeof(st->stage), v);
	else if (!strcmp(k, "path"))
		l->path = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "loaded_as"))
		l->loaded_as = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "dlerror")) {
		st->dlerror = 1;
		l->error = arena_strdup(&f->arena, v);
	} else if (!strcmp(k, "missing"))
		st->missing = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "absent")) {
		if (st->n_absent < ABSENT_MAX)
			st->absent[st->n_absent++] = arena_strdup(&f->arena, v);
	} else if (!strcmp(k, "done"))
		st->done = 1;
	else
		return 0;
	return 1;
}

static void parse_job(struct cd_facts *f, const struct iso_job *j, struct cd_driver_lib *l,
		      struct lib_state *st,
		      void (*apply)(struct cd_facts *, const char *, const char *))
{
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	struct kv_reader r;
	int rc;

	kv_reader_init(&r, (const uint8_t *)j->out.p, j->out.p ? j->out.len : 0);
	while ((rc = kv_next(&r, k, v)) != 0)
		if (rc == 1 && !common_record(f, l, st, k, v))
			apply(f, k, v);
}

static const char *sig_name(int s)
{
	switch (s) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGABRT: return "SIGABRT";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGSYS: return "SIGSYS";
	default: return "signal";
	}
}

/* The library's status from how its child ended and what it said. */
static void decide(struct cd_facts *f, struct cd_driver_lib *l, const struct iso_job *j,
		   const struct lib_state *st, int timeout_ms)
{
	const char *stage = st->stage[0] ? st->stage : "start-up";

	if ((j->status == ISO_TIMEOUT || j->status == ISO_CRASHED) && l->rc != CD_UNK &&
	    l->rc != 0) {
		/* Initialisation had already failed; what went wrong after it (asking
		 * a broken library its version) is not the story. */
		l->status = CD_PROBE_INIT_FAILED;
		return;
	}
	if (j->status == ISO_TIMEOUT || j->status == ISO_CRASHED) {
		l->stage = arena_strdup(&f->arena, stage);
		l->status = j->status == ISO_TIMEOUT ? CD_PROBE_TIMEOUT : CD_PROBE_CRASHED;
		if (j->status == ISO_TIMEOUT)
			l->error = arena_printf(
				&f->arena, "no answer within %d ms, in %s%s", timeout_ms, stage,
				j->unreaped ? " (the query could not be killed)" : "");
		else
			l->error = arena_printf(&f->arena, "killed by %s (%d) in %s",
						sig_name(j->code), j->code, stage);
		if (j->status == ISO_CRASHED && f->driver.signal == CD_UNK)
			f->driver.signal = j->code;
		return;
	}
	if (j->status == ISO_NOT_RUN) {
		l->status = CD_PROBE_NOT_RUN;
		l->error = arena_printf(&f->arena, "not queried: %s", j->error);
		return;
	}
	if (j->status == ISO_OVERFLOW) {
		l->status = CD_PROBE_INIT_FAILED;
		l->error = arena_printf(&f->arena, "the query wrote more than %zu bytes",
					(size_t)ISO_MAX_BYTES_DEFAULT);
		return;
	}
	if (st->dlerror) {
		l->status = CD_PROBE_LIB_MISSING;
	} else if (st->missing) {
		l->status = CD_PROBE_INIT_FAILED;
		l->error = arena_printf(&f->arena, "required function %s is missing", st->missing);
	} else if (l->rc != CD_UNK && l->rc != 0) {
		l->status = CD_PROBE_INIT_FAILED;
	} else if (!st->done) {
		l->status = CD_PROBE_INIT_FAILED;
		l->error = arena_printf(&f->arena, "the query ended early (exit status %d) in %s",
					j->code, stage);
	} else {
		l->status = CD_PROBE_OK;
	}
}

static void lib_facts(struct cd_facts *f, struct cd_driver_lib *l, const struct lib_state *st,
		      int is_cuda)
{
	char v[64];
	int stub;

	if (st->n_absent) {
		l->absent = arena_calloc(&f->arena, st->n_absent, sizeof(*l->absent));
		if (l->absent) {
			memcpy(l->absent, st->absent, st->n_absent * sizeof(*l->absent));
			l->n_absent = st->n_absent;
		}
	}
	if (!l->path)
		return;
	if (!dlib_file_version(l->path, v, sizeof(v)))
		l->file_version = arena_strdup(&f->arena, v);
	stub = dlib_is_stub_path(l->path) || (l->loaded_as && dlib_is_stub_path(l->loaded_as));
	stub |= is_cuda && l->rc == CD_CUDA_ERROR_STUB_LIBRARY;
	l->is_stub = stub ? CD_TRI_YES : CD_TRI_NO;
}

/* How bad a status is, for the overall status (the worst of the two). */
static int rank(enum cd_probe_status s)
{
	switch (s) {
	case CD_PROBE_OK: return 1;
	case CD_PROBE_LIB_MISSING: return 2;
	case CD_PROBE_INIT_FAILED: return 3;
	case CD_PROBE_TIMEOUT: return 4;
	case CD_PROBE_CRASHED: return 5;
	default: return 0;
	}
}

/* "12.570.124.06" (nvmlSystemGetNVMLVersion) -> "570.124.06". */
static const char *user_space_version(struct cd_facts *f)
{
	const char *v = f->driver.nvml_version, *dot = v ? strchr(v, '.') : NULL;

	if (!dot || !strchr(dot + 1, '.') || strspn(dot + 1, "0123456789.") != strlen(dot + 1))
		return NULL;
	return arena_strdup(&f->arena, dot + 1);
}

/* The driver's version from the best source that answered. */
static void driver_version(struct cd_facts *f)
{
	struct cd_driver_facts *d = &f->driver;
	const char *u;

	if (d->version)
		d->version_source = "nvml";
	else if ((d->version = d->sys_module_version))
		d->version_source = "sys-module";
	else if ((d->version = d->kernel_module_version))
		d->version_source = "kernel-module";
	else if ((d->version = u = user_space_version(f)))
		d->version_source = "nvml-library";
	else if ((d->version = d->nvml.file_version))
		d->version_source = "libnvidia-ml-file-name";
	else if ((d->version = d->cuda.file_version))
		d->version_source = "libcuda-file-name";
	if (d->cuda_version_int != CD_UNK) {
		char s[16];
		ver_cuda_str((int)d->cuda_version_int, s, sizeof(s));
		d->cuda_version = arena_strdup(&f->arena, s);
	}
}

/* The driver queries in flight between driver_probe_start and _finish. */
struct driver_pending {
	struct nvml_arg nvml;
	struct iso_job jobs[2];
	struct lib_state st[2];
	struct cd_driver_lib *lib[2];
	struct iso_batch batch;
	size_t n;
	int timeout_ms;
};

static void query_start(struct cd_facts *f, struct driver_pending *p, const char *nv,
			const char *cu, int verbose, int health)
{
	size_t i;

	/* CUDA first: its records are applied before NVML's, so the version
	 * cuDriverGetVersion gives wins over NVML's (nvml_apply keeps it). */
	if (cu) {
		p->lib[p->n] = &f->driver.cuda;
		p->jobs[p->n++] = (struct iso_job){.fn = cudadrv_query, .arg = (void *)cu};
	}
	if (nv) {
		p->lib[p->n] = &f->driver.nvml;
		p->nvml = (struct nvml_arg){nv, health};
		p->jobs[p->n++] = (struct iso_job){.fn = nvml_query, .arg = &p->nvml};
	}
	for (i = 0; i < p->n; i++) {
		p->jobs[i].keep_stderr = verbose >= 2;
		p->jobs[i].early_end = 1; /* the library's teardown at exit is not waited for */
	}
	/* On failure every job is ISO_NOT_RUN with its reason; decide() says so. */
	(void)!isolate_start(&p->batch, p->jobs, p->n, p->timeout_ms, ISO_MAX_BYTES_DEFAULT, NULL);
}

static void query_finish(struct cd_facts *f, struct driver_pending *p)
{
	size_t i;

	isolate_wait(&p->batch);
	for (i = 0; i < p->n; i++) {
		struct cd_driver_lib *l = p->lib[i];
		int is_cuda = l == &f->driver.cuda;
		parse_job(f, &p->jobs[i], l, &p->st[i], is_cuda ? cudadrv_apply : nvml_apply);
		decide(f, l, &p->jobs[i], &p->st[i], p->timeout_ms);
		if (p->jobs[i].status != ISO_NOT_RUN)
			l->query_us = p->jobs[i].elapsed_us;
		lib_facts(f, l, &p->st[i], is_cuda);
		iso_job_free(&p->jobs[i]);
	}
	nvml_finish(f);
	if (f->driver.nvml.status != CD_PROBE_OK && f->gpus_known) {
		/* A count from a query that did not finish is not a fact. */
		f->gpus_known = 0;
		f->n_gpus = 0;
		f->gpus = NULL;
	}
}

static struct driver_pending *start(struct cd_facts *f, int health)
{
	const struct cd_opts *o = f->opts;
	struct cd_driver_facts *d = &f->driver;
	int timeout_ms = o && o->timeout_ms > 0 ? o->timeout_ms : CD_TIMEOUT_DEFAULT_MS;
	/* Under --root only check --host-driver (or a library named) asks this host's driver. */
	int host = f->root.is_host || (o && o->host_driver);
	const char *nv = o && o->nvml_lib ? o->nvml_lib : host ? NVML_SONAME : NULL;
	const char *cu = o && o->cuda_lib ? o->cuda_lib : host ? CUDA_SONAME : NULL;
	const char *cvd = facts_getenv(f, "CUDA_VISIBLE_DEVICES");
	const char *ld = facts_getenv(f, "LD_LIBRARY_PATH");
	struct driver_pending *p = arena_alloc(&f->arena, sizeof(*p));

	if (cvd) {
		d->cuda_visible_devices = arena_strdup(&f->arena, cvd);
		d->cuda_visible_devices_set = 1;
	}
	if (ld)
		d->ld_library_path = arena_strdup(&f->arena, ld);
	d->timeout_ms = timeout_ms;
	d->nvml.requested = nv;
	d->cuda.requested = cu;
	if (p) {
		p->timeout_ms = timeout_ms;
		if (nv || cu)
			query_start(f, p, nv, cu, o ? o->verbose : 0, health);
	}
	return p;
}

struct driver_pending *driver_probe_start(struct cd_facts *f)
{
	return start(f, 1);
}

struct driver_pending *driver_probe_start_basic(struct cd_facts *f)
{
	return start(f, 0);
}

void driver_probe_finish(struct cd_facts *f, struct driver_pending *p)
{
	struct cd_driver_facts *d = &f->driver;

	kernel_module(f);
	sys_module(f);
	if (p && p->n)
		query_finish(f, p);
	d->status = rank(d->nvml.status) >= rank(d->cuda.status) ? d->nvml.status : d->cuda.status;
	driver_version(f);
}

void driver_probe(struct cd_facts *f)
{
	driver_probe_finish(f, driver_probe_start(f));
}
