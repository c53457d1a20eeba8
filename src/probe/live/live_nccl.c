/* live_nccl: the NCCL child of `probe --nccl` (live_int.h). Loaded only when
 * asked: the libnccl.so.2 that `import torch` would load (the stack facts,
 * f->stack->libraries->nccl), else --nccl-lib, else the loader's own search.
 * One process, a communicator over every whole GPU that passed its own probe
 * (ncclCommInitAll), an all-reduce of known int32 values checked exactly on
 * the host, each step under its own deadline. The records are "load.*",
 * "init.*", "allreduce.*" like a device's steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "facts/libs.h"
#include "format/kv.h"
#include "kb/errcodes.h"
#include "probe/dlib.h"
#include "probe/live/live.h"
#include "probe/live/live_int.h"

#define RANKS_MAX    8
#define COUNT	     (1u << 20) /* int32 elements: 4 MiB per rank */
#define INIT_MS	     20000	/* ncclCommInitAll: about a second on 8 GPUs */
#define ALLREDUCE_MS 10000
#define NCCL_INT32   2 /* ncclInt32 (nccl.h) */
#define NCCL_SUM     0 /* ncclSum */
#define NCCL_SONAME  "libnccl.so.2"

typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;

enum { X_VERSION, X_INIT_ALL, X_ALLREDUCE, X_GROUP_START, X_GROUP_END, X_ERRSTR, X_LASTERR, X_N };

static const struct dlib_sym syms[X_N] = {
	[X_VERSION] = {"ncclGetVersion", NULL, 1},   /* (int *version) */
	[X_INIT_ALL] = {"ncclCommInitAll", NULL, 1}, /* (ncclComm_t *, int ndev, const int *) */
	[X_ALLREDUCE] = {"ncclAllReduce", NULL,
			 1}, /* (send, recv, count, type, op, comm, stream) */
	[X_GROUP_START] = {"ncclGroupStart", NULL, 1}, /* (void) */
	[X_GROUP_END] = {"ncclGroupEnd", NULL, 1},     /* (void) */
	[X_ERRSTR] = {"ncclGetErrorString", NULL, 0},  /* const char *(ncclResult_t) */
	[X_LASTERR] = {"ncclGetLastError", NULL, 0},   /* const char *(ncclComm_t), 2.13 */
};

typedef ncclResult_t (*fn_version)(int *);
typedef ncclResult_t (*fn_init_all)(ncclComm_t *, int, const int *);
typedef ncclResult_t (*fn_allreduce)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
typedef ncclResult_t (*fn_void)(void);
typedef const char *(*fn_errstr)(ncclResult_t);
typedef const char *(*fn_lasterr)(ncclComm_t);

struct nccl_arg {
	const char *cuda_lib, *nccl_lib, *cvd;
	int n;
};

struct rank {
	CUdevice dev;
	CUcontext ctx;
	CUstream s;
	CUevent e;
	CUdeviceptr send, recv;
};

struct nccl_run {
	struct iso_out *o;
	struct live_cu cu;
	void *fn[X_N];
	struct rank r[RANKS_MAX];
	ncclComm_t comm[RANKS_MAX];
	uint32_t *host;
	int n;
};

/* ---- child side ---------------------------------------------------------- */

static uint32_t value(int rank, uint32_t k)
{
	return (uint32_t)(rank + 1) * (k % 997u + 1u);
}

static int nccl_fail(struct nccl_run *x, const char *step, ncclResult_t rc, const char *call)
{
	char key[48];
	const char *s;

	snprintf(key, sizeof(key), "%s.rc", step);
	iso_emitf(x->o, key, "%d", rc);
	snprintf(key, sizeof(key), "%s.call", step);
	iso_emit(x->o, key, call);
	snprintf(key, sizeof(key), "%s.error", step);
	s = x->fn[X_LASTERR] ? ((fn_lasterr)x->fn[X_LASTERR])(NULL) : NULL;
	if (!s || !*s)
		s = x->fn[X_ERRSTR] ? ((fn_errstr)x->fn[X_ERRSTR])(rc) : NULL;
	if (s && *s)
		iso_emit(x->o, key, s);
	iso_flush(x->o);
	return -1;
}

static int cu_fail(struct nccl_run *x, const char *step, CUresult rc, const char *call)
{
	char key[48];

	live_cu_fail(x->o, &x->cu, step, rc, call);
	snprintf(key, sizeof(key), "%s.api", step);
	iso_emit(x->o, key, "cuda");
	return -1;
}

static int load(struct nccl_run *x, const struct nccl_arg *a)
{
	struct dlib d;
	const char *missing;
	int64_t t0 = iso_now_us();
	int v = 0;

	if (live_cu_load(x->o, &x->cu, a->cuda_lib))
		return -1;
	iso_step(x->o, "load", 3000);
	if (dlib_open(&d, a->nccl_lib)) {
		iso_emit(x->o, "load.fail", d.error);
		return -1;
	}
	iso_emit(x->o, "nccl.path", d.path);
	if (dlib_bind(&d, syms, X_N, x->fn, &missing)) {
		iso_emitf(x->o, "load.fail", "required function %s is missing", missing);
		return -1;
	}
	if (((fn_version)x->fn[X_VERSION])(&v) == 0)
		iso_emitf(x->o, "nccl.version", "%d", v);
	live_cu_pass(x->o, "load", t0);
	return 0;
}

static int open_ranks(struct nccl_run *x)
{
	const struct live_cu *cu = &x->cu;
	void *h = NULL;
	CUresult rc;
	int k;

	if ((rc = cu->init(0)) != 0)
		return cu_fail(x, "init", rc, "cuInit");
	for (k = 0; k < x->n; k++) {
		struct rank *r = &x->r[k];
		if ((rc = cu->device_get(&r->dev, k)) ||
		    (rc = cu->primary_retain(&r->ctx, r->dev)) || (rc = cu->ctx_set(r->ctx)) ||
		    (rc = cu->mem_alloc(&r->send, COUNT * 4)) ||
		    (rc = cu->mem_alloc(&r->recv, COUNT * 4)) ||
		    (rc = cu->stream_create(&r->s, LIVE_CU_STREAM_NON_BLOCKING)) ||
		    (rc = cu->event_create(&r->e, LIVE_CU_EVENT_DEFAULT)))
			return cu_fail(x, "init", rc, "the rank's context and buffers");
	}
	if ((rc = cu->mem_alloc_host(&h, COUNT * 4)) != 0)
		return cu_fail(x, "init", rc, "cuMemAllocHost_v2");
	x->host = h;
	return 0;
}

static int init(struct nccl_run *x)
{
	int64_t t0;
	ncclResult_t rc;

	iso_step(x->o, "init", INIT_MS);
	t0 = iso_now_us();
	if (open_ranks(x))
		return -1;
	live_cu_call(x->o, "ncclCommInitAll");
	if ((rc = ((fn_init_all)x->fn[X_INIT_ALL])(x->comm, x->n, NULL)) != 0)
		return nccl_fail(x, "init", rc, "ncclCommInitAll");
	live_cu_pass(x->o, "init", t0);
	return 0;
}

/* Each rank's send buffer: rank r holds (r + 1) * (k % 997 + 1) at k. */
static int fill(struct nccl_run *x)
{
	const struct live_cu *cu = &x->cu;
	CUresult rc;
	uint32_t k;
	int i;

	for (i = 0; i < x->n; i++) {
		for (k = 0; k < COUNT; k++)
			x->host[k] = value(i, k);
		if ((rc = cu->ctx_set(x->r[i].ctx)) ||
		    (rc = cu->htod_async(x->r[i].send, x->host, COUNT * 4, x->r[i].s)) ||
		    (rc = cu->event_record(x->r[i].e, x->r[i].s)) ||
		    (rc = live_cu_wait(cu, x->r[i].e)))
			return cu_fail(x, "allreduce", rc, "cuMemcpyHtoDAsync_v2");
	}
	return 0;
}

static int verify(struct nccl_run *x)
{
	const struct live_cu *cu = &x->cu;
	uint32_t k, sum = (uint32_t)(x->n * (x->n + 1) / 2);
	CUresult rc;
	int i;

	for (i = 0; i < x->n; i++) {
		if ((rc = cu->ctx_set(x->r[i].ctx)) ||
		    (rc = cu->dtoh_async(x->host, x->r[i].recv, COUNT * 4, x->r[i].s)) ||
		    (rc = cu->event_record(x->r[i].e, x->r[i].s)) ||
		    (rc = live_cu_wait(cu, x->r[i].e)))
			return cu_fail(x, "allreduce", rc, "cuMemcpyDtoHAsync_v2");
		for (k = 0; k < COUNT; k++)
			if (x->host[k] != sum * (k % 997u + 1u)) {
				iso_emitf(x->o, "allreduce.fail",
					  "rank %d element %u: %u, expected %u", i, k, x->host[k],
					  sum * (k % 997u + 1u));
				return -1;
			}
	}
	return 0;
}

static int allreduce(struct nccl_run *x)
{
	ncclResult_t rc;
	int64_t t0, t;
	int i;

	iso_step(x->o, "allreduce", ALLREDUCE_MS);
	t0 = iso_now_us();
	if (fill(x))
		return -1;
	live_cu_call(x->o, "ncclAllReduce");
	t = iso_now_us();
	if ((rc = ((fn_void)x->fn[X_GROUP_START])()) != 0)
		return nccl_fail(x, "allreduce", rc, "ncclGroupStart");
	for (i = 0; i < x->n; i++)
		if ((rc = ((fn_allreduce)x->fn[X_ALLREDUCE])(
			     (const void *)(uintptr_t)x->r[i].send, (void *)(uintptr_t)x->r[i].recv,
			     COUNT, NCCL_INT32, NCCL_SUM, x->comm[i], x->r[i].s)) != 0)
			return nccl_fail(x, "allreduce", rc, "ncclAllReduce");
	if ((rc = ((fn_void)x->fn[X_GROUP_END])()) != 0)
		return nccl_fail(x, "allreduce", rc, "ncclGroupEnd");
	live_cu_call(x->o, "cuEventQuery (the all-reduce's completion)");
	for (i = 0; i < x->n; i++) {
		CUresult c;
		if ((c = x->cu.event_record(x->r[i].e, x->r[i].s)) ||
		    (c = live_cu_wait(&x->cu, x->r[i].e)))
			return cu_fail(x, "allreduce", c, "cuEventQuery");
	}
	iso_emitf(x->o, "allreduce.kernel_us", "%lld", (long long)(iso_now_us() - t));
	if (verify(x))
		return -1;
	live_cu_pass(x->o, "allreduce", t0);
	return 0;
}

static void nccl_child(struct iso_out *o, void *arg)
{
	const struct nccl_arg *a = arg;
	struct nccl_run *x = calloc(1, sizeof(*x));

	if (!x)
		return;
	x->o = o;
	x->n = a->n;
	setenv("CUDA_VISIBLE_DEVICES", a->cvd, 1);
	iso_emitf(o, "ranks", "%d", a->n);
	iso_emitf(o, "count", "%u", COUNT);
	if (load(x, a) || init(x) || allreduce(x))
		return;
	iso_emit(o, "done", "1");
}

/* ---- parent side --------------------------------------------------------- */

struct nccl_ctx {
	struct cd_facts *f;
	struct cd_live_nccl *n;
	char stage[48], call[96];
	int done;
};

static struct cd_live_step *step_of(struct cd_live_nccl *n, const char *name)
{
	return !strcmp(name, "load")	    ? &n->load
	       : !strcmp(name, "init")	    ? &n->init
	       : !strcmp(name, "allreduce") ? &n->allreduce
					    : NULL;
}

static int64_t num(const char *v)
{
	uint64_t u;
	int neg = v[0] == '-';

	if (str_to_u64(v + neg, &u) || u > (uint64_t)INT64_MAX - 1)
		return CD_UNK;
	return neg ? -(int64_t)u : (int64_t)u;
}

static void version(struct cd_facts *f, struct cd_live_nccl *n, int64_t v)
{
	n->version_code = v;
	if (v >= 10000) /* NCCL_VERSION(X, Y, Z) = X*10000 + Y*100 + Z from 2.9 */
		n->version = arena_printf(&f->arena, "%lld.%lld.%lld", (long long)(v / 10000),
					  (long long)(v % 10000 / 100), (long long)(v % 100));
	else if (v > 0)
		n->version = arena_printf(&f->arena, "%lld.%lld.%lld", (long long)(v / 1000),
					  (long long)(v % 1000 / 100), (long long)(v % 100));
}

static void field(struct nccl_ctx *c, struct cd_live_step *s, const char *k, const char *v,
		  int *cuda_api)
{
	struct cd_arena *a = &c->f->arena;

	if (!strcmp(k, "rc"))
		s->rc = num(v);
	else if (!strcmp(k, "us"))
		s->us = num(v);
	else if (!strcmp(k, "name"))
		s->rc_name = arena_strdup(a, v);
	else if (!strcmp(k, "error") || !strcmp(k, "fail")) {
		s->error = arena_strdup(a, v);
		s->result = CD_LIVE_FAILED;
	} else if (!strcmp(k, "call"))
		s->call = arena_strdup(a, v);
	else if (!strcmp(k, "api"))
		*cuda_api = 1;
	else if (!strcmp(k, "kernel_us") && s == &c->n->allreduce)
		c->n->allreduce_us = num(v);
}

static void record(struct nccl_ctx *c, const char *k, const char *v, int *cuda_api)
{
	const char *dot = strchr(k, '.');
	char name[16];
	struct cd_live_step *s;

	if (!strcmp(k, "stage"))
		str_copy(c->stage, sizeof(c->stage), v);
	else if (!strcmp(k, "call"))
		str_copy(c->call, sizeof(c->call), v);
	else if (!strcmp(k, "done"))
		c->done = 1;
	else if (!strcmp(k, "nccl.path"))
		c->n->path = arena_strdup(&c->f->arena, v);
	else if (!strcmp(k, "nccl.version"))
		version(c->f, c->n, num(v));
	else if (!strcmp(k, "ranks"))
		c->n->ranks = num(v);
	else if (!strcmp(k, "count"))
		c->n->count = num(v);
	else if (!strcmp(k, "dlerror") || !strcmp(k, "missing")) {
		c->n->load.result = CD_LIVE_FAILED;
		c->n->load.error = arena_printf(&c->f->arena, "libcuda: %s", v);
	} else if (dot && (size_t)(dot - k) < sizeof(name)) {
		str_ncopy(name, sizeof(name), k, (size_t)(dot - k));
		if ((s = step_of(c->n, name)) != NULL)
			field(c, s, dot + 1, v,
			      &cuda_api[s == &c->n->load   ? 0
					: s == &c->n->init ? 1
							   : 2]);
	}
}

/* Each step's result from its records, and for the one in progress from how
 * the child ended. */
static void decide(struct nccl_ctx *c, const struct iso_job *j, const int *cuda_api)
{
	struct cd_live_step *s[3] = {&c->n->load, &c->n->init, &c->n->allreduce};
	const char *names[3] = {"load", "init", "allreduce"};
	int k, stop = 0;

	for (k = 0; k < 3; k++) {
		if (stop) {
			s[k]->result = CD_LIVE_NOT_RUN;
			continue;
		}
		if (s[k]->rc != CD_UNK || s[k]->result == CD_LIVE_FAILED) {
			if (s[k]->result != CD_LIVE_FAILED)
				s[k]->result = s[k]->rc == 0 ? CD_LIVE_PASSED : CD_LIVE_FAILED;
			if (s[k]->rc > 0 && !s[k]->rc_name)
				s[k]->rc_name = errcodes_name(
					cuda_api[k] ? ERRCODES_DRIVER : ERRCODES_NCCL, s[k]->rc);
			stop = s[k]->result != CD_LIVE_PASSED;
		} else if (!strcmp(c->stage, names[k]) || (k == 0 && !c->done)) {
			live_apply_end(c->f, s[k], j, c->call[0] ? c->call : c->stage);
			if (s[k]->result == CD_LIVE_PASSED)
				s[k]->result = CD_LIVE_FAILED; /* ended without its record */
			stop = 1;
		} else {
			s[k]->result = CD_LIVE_NOT_RUN;
			stop = 1;
		}
	}
}

static void run(struct cd_facts *f, struct cd_live_facts *lf, const char *lib, int n,
		const char *cvd, int64_t end_us)
{
	struct nccl_arg arg = {f->driver.cuda.requested, lib, cvd, n};
	struct iso_job j = {.fn = nccl_child, .arg = &arg, .step_deadlines = 1};
	struct nccl_ctx c = {f, &lf->nccl, "", "", 0};
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	int64_t left = (end_us - iso_now_us()) / 1000;
	int cuda_api[3] = {0, 0, 0};
	struct kv_reader r;
	int rc;

	/* a child that did not start is ISO_NOT_RUN with its error: the step says so */
	(void)!isolate_run(&j, 1, left > 1 ? (int)left : 1, 0, NULL);
	kv_reader_init(&r, (const uint8_t *)j.out.p, j.out.p ? j.out.len : 0);
	while ((rc = kv_next(&r, k, v)) != 0)
		if (rc == 1)
			record(&c, k, v, cuda_api);
	decide(&c, &j, cuda_api);
	if (lf->nccl.allreduce.result == CD_LIVE_PASSED && lf->nccl.allreduce_us > 0) {
		double alg = (double)lf->nccl.count * 4.0 * 1e6 / (double)lf->nccl.allreduce_us;
		/* nccl-tests' bus bandwidth: algorithm bandwidth x 2(n-1)/n; one rank: alg */
		lf->nccl.bus_bps = (int64_t)(n > 1 ? alg * 2.0 * (n - 1) / n : alg);
	}
	iso_job_free(&j);
}

/* Which libnccl.so.2: --nccl-lib, what import torch loads, else the loader's. */
static const char *choose(struct cd_facts *f, struct cd_live_nccl *n, const struct live_opts *o)
{
	const struct cd_lib_item *t =
		f->stack && f->stack->libraries ? f->stack->libraries->nccl : NULL;

	if (o->nccl_lib) {
		n->source = "--nccl-lib";
		return n->path = o->nccl_lib;
	}
	if (t && (t->realpath || t->path)) {
		n->source = "torch";
		n->path = t->realpath ? t->realpath : t->path;
		return f->root.is_host ? n->path : NULL; /* never load what lies under --root */
	}
	n->source = "loader";
	return f->root.is_host ? (n->path = NCCL_SONAME) : NULL;
}

void live_nccl(struct cd_facts *f, struct cd_live_facts *lf, const struct live_opts *o,
	       int64_t end_us)
{
	struct cd_live_nccl *n = &lf->nccl;
	const char *lib;
	struct cd_buf cvd;
	size_t i;
	int ranks = 0;

	n->load.result = CD_LIVE_SKIPPED;
	if (!o->nccl) {
		n->load.error = "not asked for (--nccl)";
		return;
	}
	if (!(lib = choose(f, n, o))) {
		n->load.error = "under --root, NCCL is loaded only with --nccl-lib";
		return;
	}
	buf_init(&cvd, 8192);
	for (i = 0; i < lf->n_devices && ranks < RANKS_MAX; i++) {
		const struct cd_live_device *d = &lf->devices[i];
		if (d->is_mig || !d->cvd || d->result != CD_LIVE_PASSED)
			continue;
		if ((ranks && buf_putc(&cvd, ',')) || buf_puts(&cvd, d->cvd))
			break;
		ranks++;
	}
	if (!ranks)
		n->load.error = "no whole GPU passed its own probe";
	else
		run(f, lf, lib, ranks, cvd.p, end_us);
	buf_free(&cvd);
}
