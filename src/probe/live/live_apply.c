/* live_apply: a probe child's kv records into facts/live.h (live_int.h).
 * A step's result comes from its own records ("<step>.rc", ".fail", ".skip")
 * or, for the step the child was in when it ended, from how it ended: killed
 * at a deadline is hung, killed by a signal is crashed. Steps after that were
 * never reached (not-run). Malformed values leave the fact unknown. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "format/kv.h"
#include "kb/errcodes.h"
#include "probe/live/live_int.h"

#define LOG_LINES_MAX 24

/* What a child's records said beyond the facts themselves. */
struct live_seen {
	char stage[48], call[96];
	int done;
	int have[CD_LSTEP_N]; /* a result record (rc, fail or skip) */
	size_t n_log, n_absent;
	const char *log[LOG_LINES_MAX];
	const char *absent[LOG_LINES_MAX];
};

/* Integer facts of a device, each a record key. */
static const struct {
	const char *key;
	size_t off;
} dev_ints[] = {
	{"dev.cc_major", offsetof(struct cd_live_device, cc_major)},
	{"dev.cc_minor", offsetof(struct cd_live_device, cc_minor)},
	{"dev.sm_count", offsetof(struct cd_live_device, sm_count)},
	{"dev.clock_khz", offsetof(struct cd_live_device, clock_khz)},
	{"dev.mem_clock_khz", offsetof(struct cd_live_device, mem_clock_khz)},
	{"dev.bus_width", offsetof(struct cd_live_device, bus_width_bits)},
	{"dev.compute_mode", offsetof(struct cd_live_device, compute_mode)},
	{"dev.ecc", offsetof(struct cd_live_device, ecc_enabled)},
	{"dev.total", offsetof(struct cd_live_device, total_bytes)},
	{"mem.free", offsetof(struct cd_live_device, free_bytes)},
	{"alloc.bytes", offsetof(struct cd_live_device, alloc_bytes)},
	{"jit.wall_us", offsetof(struct cd_live_device, jit_wall_us)},
	{"kernel.rtt_us", offsetof(struct cd_live_device, kernel_rtt_us)},
	{"launch.kernel_us", offsetof(struct cd_live_device, launch_us)},
	{"bw.h2d", offsetof(struct cd_live_device, h2d_bps)},
	{"bw.d2h", offsetof(struct cd_live_device, d2h_bps)},
	{"memtest.bytes", offsetof(struct cd_live_device, memtest_bytes)},
	{"memtest.bps", offsetof(struct cd_live_device, memtest_bps)},
	{"memtest.errors", offsetof(struct cd_live_device, memtest_errors)},
	{"compute.iters", offsetof(struct cd_live_device, compute_iters)},
	{"compute.threads", offsetof(struct cd_live_device, compute_threads)},
	{"compute.kernel_us", offsetof(struct cd_live_device, compute_us)},
};

static int to_i64(const char *v, int64_t *out)
{
	uint64_t u;
	int neg = v[0] == '-';

	if (str_to_u64(v + neg, &u) || u > (uint64_t)INT64_MAX - 1)
		return -1;
	*out = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

/* "<step>.<field>" records; 1 when key was one. */
static int step_record(struct cd_facts *f, struct cd_live_device *d, struct live_seen *s,
		       const char *key, const char *v)
{
	const char *dot = strchr(key, '.');
	char name[24];
	struct cd_live_step *st;
	int id;

	if (!dot || (size_t)(dot - key) >= sizeof(name))
		return 0;
	str_ncopy(name, sizeof(name), key, (size_t)(dot - key));
	if ((id = live_step_id(name)) < 0)
		return 0;
	st = &d->steps[id];
	dot++;
	if (!strcmp(dot, "rc") && !to_i64(v, &st->rc))
		s->have[id] = 1;
	else if (!strcmp(dot, "us"))
		to_i64(v, &st->us);
	else if (!strcmp(dot, "name"))
		st->rc_name = arena_strdup(&f->arena, v);
	else if (!strcmp(dot, "error") || !strcmp(dot, "fail")) {
		st->error = arena_strdup(&f->arena, v);
		s->have[id] = 1;
		if (!strcmp(dot, "fail"))
			st->result = CD_LIVE_FAILED;
	} else if (!strcmp(dot, "call"))
		st->call = arena_strdup(&f->arena, v);
	else if (!strcmp(dot, "skip")) {
		st->result = CD_LIVE_SKIPPED;
		st->error = arena_strdup(&f->arena, v);
		s->have[id] = 1;
	} else
		return 0;
	return 1;
}

static void dev_record(struct cd_facts *f, struct cd_live_device *d, struct live_seen *s,
		       const char *k, const char *v)
{
	int64_t n;
	size_t i;

	for (i = 0; i < sizeof(dev_ints) / sizeof(dev_ints[0]); i++)
		if (!strcmp(k, dev_ints[i].key)) {
			if (!to_i64(v, &n))
				*(int64_t *)((char *)d + dev_ints[i].off) = n;
			return;
		}
	if (!strcmp(k, "stage"))
		str_copy(s->stage, sizeof(s->stage), v);
	else if (!strcmp(k, "call"))
		str_copy(s->call, sizeof(s->call), v);
	else if (!strcmp(k, "done"))
		s->done = 1;
	else if (!strcmp(k, "path"))
		d->lib_path = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "dlerror") || !strcmp(k, "missing")) {
		d->steps[CD_LSTEP_LOAD].error =
			k[0] == 'd' ? arena_strdup(&f->arena, v)
				    : arena_printf(&f->arena, "required function %s is missing", v);
		d->steps[CD_LSTEP_LOAD].result = CD_LIVE_FAILED;
		s->have[CD_LSTEP_LOAD] = 1;
	} else if (!strcmp(k, "dev.name"))
		d->name = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "dev.uuid"))
		d->cuda_uuid = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "dev.pci"))
		d->pci_bus_id = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "jit.log") && s->n_log < LOG_LINES_MAX)
		s->log[s->n_log++] = arena_strdup(&f->arena, v);
	else if (!strcmp(k, "absent") && s->n_absent < LOG_LINES_MAX)
		s->absent[s->n_absent++] = arena_strdup(&f->arena, v);
	else
		step_record(f, d, s, k, v);
}

static void read_records(const struct iso_job *j, void (*fn)(void *, const char *, const char *),
			 void *ctx)
{
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	struct kv_reader r;
	int rc;

	kv_reader_init(&r, (const uint8_t *)j->out.p, j->out.p ? j->out.len : 0);
	while ((rc = kv_next(&r, k, v)) != 0)
		if (rc == 1)
			fn(ctx, k, v);
}

struct dev_ctx {
	struct cd_facts *f;
	struct cd_live_device *d;
	struct live_seen *s;
};

static void dev_cb(void *ctx, const char *k, const char *v)
{
	struct dev_ctx *c = ctx;

	dev_record(c->f, c->d, c->s, k, v);
}

/* The step a child was in when it ended: its last stage record. */
static int end_step(const struct live_seen *s)
{
	if (!strcmp(s->stage, "dlopen"))
		return CD_LSTEP_LOAD;
	return live_step_id(s->stage);
}

static const char *sig_name(int64_t s)
{
	switch (s) {
	case 11: return "SIGSEGV";
	case 7: return "SIGBUS";
	case 6: return "SIGABRT";
	case 4: return "SIGILL";
	case 8: return "SIGFPE";
	case 9: return "SIGKILL";
	default: return "a signal";
	}
}

/* How the step in progress ended, from how its child ended. */
static void ended(struct cd_facts *f, struct cd_live_step *st, const struct iso_job *j,
		  const char *call, int budget_ms)
{
	if (call && call[0] && !st->call)
		st->call = arena_strdup(&f->arena, call);
	switch (j->status) {
	case ISO_TIMEOUT:
		st->result = CD_LIVE_HUNG;
		st->error = j->step_expired
				    ? arena_printf(&f->arena, "no end within the step's %d ms",
						   budget_ms)
				    : "still running when the probe's --timeout ran out";
		if (j->unreaped)
			st->error = arena_printf(&f->arena,
						 "%s; the child could not be killed "
						 "(stuck in the kernel driver)",
						 st->error);
		break;
	case ISO_CRASHED:
		st->result = CD_LIVE_CRASHED;
		st->signal = j->code;
		st->error =
			arena_printf(&f->arena, "killed by %s (%d)", sig_name(j->code), j->code);
		break;
	case ISO_OVERFLOW:
		st->result = CD_LIVE_FAILED;
		st->error = "the child wrote more than its output cap";
		break;
	case ISO_NOT_RUN:
		st->result = CD_LIVE_NOT_RUN;
		st->error = arena_printf(&f->arena, "not started: %s", j->error);
		break;
	default:
		st->result = CD_LIVE_FAILED;
		st->error =
			arena_printf(&f->arena, "the child ended here (exit status %d)", j->code);
		break;
	}
}

static void decide(struct cd_facts *f, struct cd_live_device *d, const struct live_seen *s,
		   const struct iso_job *j)
{
	int k, last = end_step(s), stop = 0;
	int64_t spent = 0; /* by the steps before: what is left of the child's time is the last */

	for (k = 0; k < CD_LSTEP_N; k++) {
		struct cd_live_step *st = &d->steps[k];
		if (st->us != CD_UNK && st->us > 0)
			spent += st->us;
		if (st->result == CD_LIVE_SKIPPED && !s->have[k])
			continue; /* skipped by the parent (--quick) */
		if (stop) {
			st->result = st->result == CD_LIVE_SKIPPED ? st->result : CD_LIVE_NOT_RUN;
			continue;
		}
		if (s->have[k]) {
			if (st->result != CD_LIVE_SKIPPED && st->result != CD_LIVE_FAILED)
				st->result = st->rc == 0 ? CD_LIVE_PASSED : CD_LIVE_FAILED;
			if (st->rc != CD_UNK && st->rc != 0 && !st->rc_name)
				st->rc_name = errcodes_name(ERRCODES_DRIVER, st->rc);
			stop = st->result == CD_LIVE_FAILED;
			continue;
		}
		if (k == last && !(s->done && j->status == ISO_OK)) {
			ended(f, st, j, s->call, live_dev_budget((enum cd_live_step_id)k));
			st->us = j->status == ISO_NOT_RUN ? CD_UNK : j->elapsed_us - spent;
			stop = 1;
			continue;
		}
		if (j->status == ISO_NOT_RUN && k == 0) {
			ended(f, st, j, NULL, 0);
			stop = 1;
			continue;
		}
		st->result = CD_LIVE_NOT_RUN;
		stop = 1;
	}
}

void live_apply_device(struct cd_facts *f, struct cd_live_device *d, const struct iso_job *j)
{
	struct live_seen s;
	struct dev_ctx c = {f, d, &s};

	memset(&s, 0, sizeof(s));
	read_records(j, dev_cb, &c);
	decide(f, d, &s, j);
	if (s.n_log) {
		d->jit_log = arena_calloc(&f->arena, s.n_log, sizeof(*d->jit_log));
		if (d->jit_log) {
			memcpy(d->jit_log, s.log, s.n_log * sizeof(*s.log));
			d->n_jit_log = s.n_log;
		}
	}
	if (s.n_absent && (d->absent = arena_calloc(&f->arena, s.n_absent, sizeof(*d->absent)))) {
		memcpy(d->absent, s.absent, s.n_absent * sizeof(*s.absent));
		d->n_absent = s.n_absent;
	}
	if (s.stage[0])
		d->stage = arena_strdup(&f->arena, s.stage);
	if (j->status != ISO_NOT_RUN)
		d->wall_us = j->elapsed_us;
	d->killed_at_timeout = j->status == ISO_TIMEOUT && !j->step_expired;
	d->result = live_device_worst(d);
}

void live_apply_end(struct cd_facts *f, struct cd_live_step *s, const struct iso_job *j,
		    const char *stage)
{
	if (j->status == ISO_OK) {
		s->result = CD_LIVE_PASSED;
		s->us = j->elapsed_us;
		return;
	}
	ended(f, s, j, stage, 0);
	if (j->status == ISO_TIMEOUT && j->step_expired)
		s->error = "no end within the step's own deadline";
	if (stage && stage[0] && !s->call)
		s->call = arena_strdup(&f->arena, stage);
	if (j->status != ISO_NOT_RUN)
		s->us = j->elapsed_us;
}
