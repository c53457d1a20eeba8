/* live_peer: the peer child of `probe --full` (live_int.h). One child sees
 * every whole GPU that passed its own probe (CUDA_VISIBLE_DEVICES =
 * their UUIDs, so its ordinal k is the k-th of them) and, for each ordered
 * pair, asks cuDeviceCanAccessPeer and cuDeviceGetP2PAttribute; where access
 * is reported it enables it and copies a pattern from one GPU to the other,
 * reads it back and compares it byte for byte, best of three timed copies.
 * MIG instances have no peer access and are left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "format/kv.h"
#include "probe/live/live_int.h"

#define PEERS_MAX   8
#define PEER_BYTES  (8u << 20) /* 8 MiB: a copy takes tens of microseconds on NVLink */
#define PAIR_MS	    3000
#define OPEN_MS	    10000
#define SEED_PEER   0x5eed0003u
#define COPY_ROUNDS 3

struct peer_arg {
	const char *lib, *cvd;
	int n;
};

struct side {
	CUdevice dev;
	CUcontext ctx;
	CUstream s;
	CUevent e0, e1, e2;
	CUdeviceptr buf;
};

struct peer_run {
	struct iso_out *o;
	struct live_cu cu;
	struct side d[PEERS_MAX];
	uint32_t *want, *got;
	int n;
};

static void emit_pair(struct iso_out *o, int a, int b, const char *field, long long v)
{
	char key[48];

	snprintf(key, sizeof(key), "pair.%d.%d.%s", a, b, field);
	iso_emitf(o, key, "%lld", v);
}

static int open_side(struct peer_run *r, int k)
{
	struct side *s = &r->d[k];
	const struct live_cu *cu = &r->cu;
	const char *call = "cuDeviceGet";
	CUresult rc;

	if ((rc = cu->device_get(&s->dev, k)) != 0 ||
	    (call = "cuDevicePrimaryCtxRetain", rc = cu->primary_retain(&s->ctx, s->dev)) != 0 ||
	    (call = "cuCtxSetCurrent", rc = cu->ctx_set(s->ctx)) != 0 ||
	    (call = "cuMemAlloc_v2", rc = cu->mem_alloc(&s->buf, PEER_BYTES)) != 0 ||
	    (call = "cuStreamCreate", rc = cu->stream_create(&s->s, LIVE_CU_STREAM_NON_BLOCKING)) !=
		    0 ||
	    (call = "cuEventCreate", rc = cu->event_create(&s->e0, LIVE_CU_EVENT_DEFAULT)) != 0 ||
	    (rc = cu->event_create(&s->e1, LIVE_CU_EVENT_DEFAULT)) != 0 ||
	    (rc = cu->event_create(&s->e2, LIVE_CU_EVENT_DEFAULT)) != 0) {
		live_cu_fail(r->o, cu, "open", rc, call);
		return -1;
	}
	return 0;
}

static void matrix(struct peer_run *r, int a, int b)
{
	int v = 0;

	if (r->cu.can_access_peer && r->cu.can_access_peer(&v, r->d[a].dev, r->d[b].dev) == 0)
		emit_pair(r->o, a, b, "access", v);
	if (!r->cu.p2p_attr)
		return;
	if (r->cu.p2p_attr(&v, LIVE_CU_P2P_PERFORMANCE_RANK, r->d[a].dev, r->d[b].dev) == 0)
		emit_pair(r->o, a, b, "rank", v);
	if (r->cu.p2p_attr(&v, LIVE_CU_P2P_NATIVE_ATOMIC, r->d[a].dev, r->d[b].dev) == 0)
		emit_pair(r->o, a, b, "atomics", v);
}

static int fail_pair(struct peer_run *r, int a, int b, CUresult rc, const char *call)
{
	char step[32];

	snprintf(step, sizeof(step), "pair.%d.%d.copy", a, b);
	live_cu_fail(r->o, &r->cu, step, rc, call);
	return -1;
}

/* a -> b: the pattern to a, a peer copy to b (timed), b read back. */
static int copy(struct peer_run *r, int a, int b)
{
	struct side *x = &r->d[a], *y = &r->d[b];
	const struct live_cu *cu = &r->cu;
	double best = -1, ms;
	CUresult rc;
	int k;

	if ((rc = cu->ctx_set(x->ctx)) || (rc = cu->peer_enable(y->ctx, 0)) != 0) {
		if (rc != 704) /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
			return fail_pair(r, a, b, rc, "cuCtxEnablePeerAccess");
	}
	memset(r->got, 0, PEER_BYTES);
	live_cu_call(r->o, "cuMemcpyPeerAsync");
	if ((rc = cu->htod_async(x->buf, r->want, PEER_BYTES, x->s)) != 0)
		return fail_pair(r, a, b, rc, "cuMemcpyHtoDAsync_v2");
	for (k = 0; k < COPY_ROUNDS; k++) {
		if ((rc = cu->event_record(x->e0, x->s)) != 0 ||
		    (rc = cu->peer_copy_async(y->buf, y->ctx, x->buf, x->ctx, PEER_BYTES, x->s)) !=
			    0 ||
		    (rc = cu->event_record(x->e1, x->s)) != 0 ||
		    (rc = live_cu_wait(cu, x->e1)) != 0)
			return fail_pair(r, a, b, rc, "cuMemcpyPeerAsync");
		if ((ms = live_cu_elapsed_ms(cu, x->e0, x->e1)) > 0 && (best < 0 || ms < best))
			best = ms;
	}
	/* read back in b's own context and stream: the peer copy has completed */
	if ((rc = cu->ctx_set(y->ctx)) != 0 ||
	    (rc = cu->dtoh_async(r->got, y->buf, PEER_BYTES, y->s)) != 0 ||
	    (rc = cu->event_record(y->e2, y->s)) != 0 || (rc = live_cu_wait(cu, y->e2)) != 0)
		return fail_pair(r, a, b, rc, "cuMemcpyDtoHAsync_v2");
	if (memcmp(r->want, r->got, PEER_BYTES)) {
		char key[48];
		snprintf(key, sizeof(key), "pair.%d.%d.copy.fail", a, b);
		iso_emit(r->o, key, "the bytes read back from the peer differ from those written");
		return -1;
	}
	if (best > 0)
		emit_pair(r->o, a, b, "bps", (long long)((double)PEER_BYTES * 1000.0 / best));
	emit_pair(r->o, a, b, "copy.rc", 0);
	return 0;
}

static int start(struct peer_run *r, const struct peer_arg *a)
{
	void *w = NULL, *g = NULL;
	size_t i;
	int k;

	CUresult rc;

	iso_step(r->o, "init", 0);
	if ((rc = r->cu.init(0)) != 0) {
		live_cu_fail(r->o, &r->cu, "init", rc, "cuInit");
		return -1;
	}
	iso_step(r->o, "open", OPEN_MS);
	for (k = 0; k < a->n; k++)
		if (open_side(r, k))
			return -1;
	if (r->cu.mem_alloc_host(&w, PEER_BYTES) || r->cu.mem_alloc_host(&g, PEER_BYTES))
		return -1;
	r->want = w;
	r->got = g;
	for (i = 0; i < PEER_BYTES / 4; i++)
		r->want[i] = live_dev_hash(i, SEED_PEER);
	return 0;
}

static void peer_child(struct iso_out *o, void *arg)
{
	const struct peer_arg *a = arg;
	struct peer_run *r = calloc(1, sizeof(*r));
	char stage[32];
	int x, y, can;

	if (!r)
		return;
	r->o = o;
	setenv("CUDA_VISIBLE_DEVICES", a->cvd, 1);
	iso_step(o, "load", 3000);
	if (live_cu_load(o, &r->cu, a->lib) || !r->cu.can_access_peer || !r->cu.peer_copy_async ||
	    !r->cu.peer_enable || start(r, a))
		return;
	for (x = 0; x < a->n; x++)
		for (y = 0; y < a->n; y++) {
			if (x == y)
				continue;
			snprintf(stage, sizeof(stage), "pair.%d.%d", x, y);
			iso_step(o, stage, PAIR_MS);
			matrix(r, x, y);
			if (r->cu.can_access_peer(&can, r->d[x].dev, r->d[y].dev) == 0 && can)
				copy(r, x, y);
		}
	iso_emit(o, "done", "1");
}

/* ---- parent side --------------------------------------------------------- */

struct peer_ctx {
	struct cd_facts *f;
	struct cd_live_peers *p;
	const size_t *dev; /* child ordinal -> index in lf->devices */
	int n;
	char stage[48];
	int done;
};

static struct cd_live_peer *pair(struct peer_ctx *c, int a, int b)
{
	size_t i;

	for (i = 0; i < c->p->n; i++)
		if (c->p->pairs[i].from == c->dev[a] && c->p->pairs[i].to == c->dev[b])
			return &c->p->pairs[i];
	return NULL;
}

static void pair_field(struct peer_ctx *c, struct cd_live_peer *x, const char *k, const char *v)
{
	int n;

	if (!strcmp(k, "copy.error"))
		x->copy.error = arena_strdup(&c->f->arena, v);
	else if (!strcmp(k, "copy.name"))
		x->copy.rc_name = arena_strdup(&c->f->arena, v);
	else if (!strcmp(k, "copy.call"))
		x->copy.call = arena_strdup(&c->f->arena, v);
	else if (!strcmp(k, "copy.fail")) {
		x->copy.error = arena_strdup(&c->f->arena, v);
		x->copy.result = CD_LIVE_FAILED;
	} else if (str_to_int(v, -1000000, 1000000, &n) == 0 || !strcmp(k, "bps")) {
		uint64_t u;
		if (!strcmp(k, "access"))
			x->access = n ? CD_TRI_YES : CD_TRI_NO;
		else if (!strcmp(k, "rank"))
			x->perf_rank = n;
		else if (!strcmp(k, "atomics"))
			x->atomics = n ? CD_TRI_YES : CD_TRI_NO;
		else if (!strcmp(k, "copy.rc")) {
			x->copy.rc = n;
			x->copy.result = n ? CD_LIVE_FAILED : CD_LIVE_PASSED;
		} else if (!strcmp(k, "bps") && !str_to_u64(v, &u) && u < (uint64_t)INT64_MAX)
			x->bps = (int64_t)u;
	}
}

/* "rc", "name", "error", "call" of the child's own failure before the pairs */
static void step_field(struct cd_facts *f, struct cd_live_step *s, const char *k, const char *v)
{
	int n;

	if (!strcmp(k, "rc") && !str_to_int(v, -1000000, 1000000, &n))
		s->rc = n;
	else if (!strcmp(k, "name"))
		s->rc_name = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "error"))
		s->error = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "call"))
		s->call = arena_strdup(&f->arena, v);
}

static void peer_record(struct peer_ctx *c, const char *k, const char *v)
{
	const char *p = k + 5;
	char *end;
	long a, b;
	struct cd_live_peer *x;

	if (!strcmp(k, "stage")) {
		str_copy(c->stage, sizeof(c->stage), v);
		return;
	}
	if (!strcmp(k, "done")) {
		c->done = 1;
		return;
	}
	if (str_has_prefix(k, "open.") || str_has_prefix(k, "init.")) {
		step_field(c->f, &c->p->step, strchr(k, '.') + 1, v);
		return;
	}
	if (!str_has_prefix(k, "pair."))
		return;
	a = strtol(p, &end, 10);
	if (*end != '.' || a < 0 || a >= c->n)
		return;
	b = strtol(end + 1, &end, 10);
	if (*end != '.' || b < 0 || b >= c->n || !(x = pair(c, (int)a, (int)b)))
		return;
	pair_field(c, x, end + 1, v);
}

static int alloc_pairs(struct cd_facts *f, struct cd_live_peers *p, const size_t *dev, int n)
{
	int a, b;

	p->pairs = arena_calloc(&f->arena, (size_t)(n * (n - 1)), sizeof(*p->pairs));
	if (!p->pairs)
		return -1;
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			if (a != b) {
				struct cd_live_peer *x = &p->pairs[p->n++];
				x->from = dev[a];
				x->to = dev[b];
				x->access = x->atomics = CD_TRI_UNKNOWN;
				x->perf_rank = x->bps = CD_UNK;
				live_step_init(&x->copy);
			}
	return 0;
}

/* The devices a peer child can see: whole GPUs (by UUID) that passed their own
 * probe (a GPU that hangs alone would hang the pairs too). */
static int eligible(const struct cd_live_facts *lf, size_t *dev, struct cd_buf *cvd)
{
	size_t i;
	int n = 0;

	for (i = 0; i < lf->n_devices && n < PEERS_MAX; i++) {
		const struct cd_live_device *d = &lf->devices[i];
		if (d->is_mig || !d->cvd || d->result != CD_LIVE_PASSED)
			continue;
		if ((n && buf_putc(cvd, ',')) || buf_puts(cvd, d->cvd))
			return -1;
		dev[n++] = i;
	}
	return n;
}

static void run(struct cd_facts *f, struct cd_live_facts *lf, int64_t end_us, const size_t *dev,
		int n, const char *cvd)
{
	struct peer_arg arg = {f->driver.cuda.requested, cvd, n};
	struct iso_job j = {.fn = peer_child, .arg = &arg, .step_deadlines = 1};
	struct peer_ctx c = {f, &lf->peers, dev, n, "", 0};
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	int64_t left = (end_us - iso_now_us()) / 1000;
	struct kv_reader r;
	size_t i;
	int rc;

	if (alloc_pairs(f, &lf->peers, dev, n))
		return;
	/* a child that did not start is ISO_NOT_RUN with its error: the step says so */
	(void)!isolate_run(&j, 1, left > 1 ? (int)left : 1, 0, NULL);
	kv_reader_init(&r, (const uint8_t *)j.out.p, j.out.p ? j.out.len : 0);
	while ((rc = kv_next(&r, k, v)) != 0)
		if (rc == 1)
			peer_record(&c, k, v);
	live_apply_end(f, &lf->peers.step, &j, c.stage);
	if (lf->peers.step.result == CD_LIVE_PASSED && !c.done) {
		lf->peers.step.result = CD_LIVE_FAILED;
		if (!lf->peers.step.error)
			lf->peers.step.error =
				arena_printf(&f->arena, "the peer child stopped in %s",
					     c.stage[0] ? c.stage : "start-up");
	}
	for (i = 0; i < lf->peers.n; i++) {
		struct cd_live_peer *x = &lf->peers.pairs[i];
		if (x->copy.result == CD_LIVE_NOT_RUN && x->access == CD_TRI_NO)
			x->copy.result = CD_LIVE_SKIPPED;
	}
	iso_job_free(&j);
}

void live_peers(struct cd_facts *f, struct cd_live_facts *lf, int64_t end_us)
{
	size_t dev[PEERS_MAX];
	struct cd_buf cvd;
	int n;

	lf->peers.step.result = CD_LIVE_SKIPPED;
	if (!lf->full) {
		lf->peers.step.error = "not asked for (--full)";
		return;
	}
	buf_init(&cvd, 8192);
	n = eligible(lf, dev, &cvd);
	if (n < 2)
		lf->peers.step.error = "fewer than two whole GPUs passed their own probe";
	else if (!f->driver.cuda.requested)
		lf->peers.step.error = "no libcuda to load";
	else
		run(f, lf, end_us, dev, n, cvd.p);
	buf_free(&cvd);
}
