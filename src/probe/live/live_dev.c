/* live_dev: one device's child (live_int.h). Sets CUDA_VISIBLE_DEVICES to its
 * one device, turns the JIT cache off (so the driver's JIT compiler is really
 * used), then runs the steps of facts/live.h in order, each under its own
 * budget (iso_step), stopping at the first that fails. Every wait polls
 * cuEventQuery; nothing blocks in a synchronise. Each step ends with
 * "<step>.rc" (and .us, or .name/.error/.call, or .fail for wrong data). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/live/live_int.h"

#define MIB		(1024ULL * 1024ULL)
#define QUICK_BYTES_MAX (32 * MIB) /* the quick test's buffers: copies take ms */
#define QUICK_BYTES_MIN MIB
#define SEED_COPY	0x5eed0001u
#define SEED_FILL	0x5eed0002u
#define RTT_LAUNCHES	8
#define BW_ROUNDS	3
#define JIT_LOG_LINES	24

/* Each step's own deadline in ms; the probe's --timeout bounds them all. */
static const int budgets[CD_LSTEP_N] = {
	[CD_LSTEP_LOAD] = 3000,	     /* dlopen runs the library's constructors */
	[CD_LSTEP_INIT] = 0,	     /* cuInit: seconds on a cold 8-GPU node; --timeout only */
	[CD_LSTEP_DEVICE] = 2000,    /* attribute queries answer in microseconds */
	[CD_LSTEP_CONTEXT] = 5000,   /* 0.1-0.3 s on a data-centre GPU */
	[CD_LSTEP_MEMINFO] = 2000,   /* microseconds */
	[CD_LSTEP_ALLOC] = 5000,     /* pinning 64 MiB of host memory: tens of ms */
	[CD_LSTEP_COPY] = 5000,	     /* 64 MiB across PCIe: milliseconds */
	[CD_LSTEP_MODULE] = 10000,   /* the JIT of three small kernels: tens of ms */
	[CD_LSTEP_LAUNCH] = 3000,    /* the kernels run well under a millisecond */
	[CD_LSTEP_BANDWIDTH] = 5000, /* six 32 MiB copies */
	[CD_LSTEP_MEMTEST] = 30000,  /* half the free memory, twice: seconds on slow GPUs */
	[CD_LSTEP_COMPUTE] = 15000,  /* 2^20 iterations per thread: tens of ms */
};

int live_dev_budget(enum cd_live_step_id s)
{
	return (unsigned)s < CD_LSTEP_N ? budgets[s] : 0;
}

uint32_t live_dev_hash(uint64_t i, uint32_t seed)
{
	uint32_t h = seed ^ ((uint32_t)(i >> 32) * 0x7F4A7C15u);
	uint32_t x = (uint32_t)i * 0x9E3779B1u + h;

	x ^= x >> 16;
	x *= 0x85EBCA6Bu;
	x ^= x >> 13;
	return x;
}

/* x after `iters` steps of x = x * 1664525 + 1013904223 (mod 2^32), by
 * composing the affine map with itself: O(log iters). */
uint32_t live_dev_lcg(uint32_t x, uint32_t iters)
{
	uint32_t a = 1664525u, c = 1013904223u, ra = 1, rc = 0;

	while (iters) {
		if (iters & 1) {
			ra *= a;
			rc = rc * a + c;
		}
		c = c * a + c;
		a *= a;
		iters >>= 1;
	}
	return ra * x + rc;
}

static int64_t begin(struct live_run *r, enum cd_live_step_id s)
{
	iso_step(r->o, live_step_name(s), budgets[s]);
	return iso_now_us();
}

static void emit_i64(struct iso_out *o, const char *key, int64_t v)
{
	iso_emitf(o, key, "%lld", (long long)v);
}

/* Call fn's result: 0 when it succeeded, else the step's failure recorded. */
static int ok(struct live_run *r, enum cd_live_step_id s, CUresult rc, const char *call)
{
	if (rc == LIVE_CU_OK)
		return 0;
	live_cu_fail(r->o, &r->cu, live_step_name(s), rc, call);
	return -1;
}

static int step_init(struct live_run *r)
{
	int64_t t0 = begin(r, CD_LSTEP_INIT);

	live_cu_call(r->o, "cuInit");
	if (ok(r, CD_LSTEP_INIT, r->cu.init(0), "cuInit"))
		return -1;
	live_cu_pass(r->o, "init", t0);
	return 0;
}

static void attributes(struct live_run *r)
{
	static const struct {
		int attr;
		const char *key;
	} t[] = {
		{75, "dev.cc_major"},	  {76, "dev.cc_minor"},	     {16, "dev.sm_count"},
		{13, "dev.clock_khz"},	  {36, "dev.mem_clock_khz"}, {37, "dev.bus_width"},
		{20, "dev.compute_mode"}, {32, "dev.ecc"},	     {39, "dev.threads_per_sm"},
	};
	size_t i;
	int v;

	for (i = 0; r->cu.device_attr && i < sizeof(t) / sizeof(t[0]); i++) {
		if (r->cu.device_attr(&v, t[i].attr, r->dev) != LIVE_CU_OK)
			continue;
		emit_i64(r->o, t[i].key, v);
		if (t[i].attr == 16)
			r->sm_count = v;
		if (t[i].attr == LIVE_CU_ATTR_MAX_THREADS_PER_SM)
			r->threads_per_sm = v;
	}
}

static void identity(struct live_run *r, const struct live_dev_arg *a)
{
	char s[256];
	unsigned char u[16];
	size_t total = 0;

	memset(s, 0, sizeof(s));
	if (r->cu.device_name && r->cu.device_name(s, (int)sizeof(s) - 1, r->dev) == LIVE_CU_OK)
		iso_emit(r->o, "dev.name", s);
	if (r->cu.device_uuid && r->cu.device_uuid(u, r->dev) == LIVE_CU_OK) {
		live_cu_uuid_str(u, a->cvd && !strncmp(a->cvd, "MIG-", 4) ? "MIG-" : "GPU-", s,
				 sizeof(s));
		iso_emit(r->o, "dev.uuid", s);
	}
	memset(s, 0, sizeof(s));
	if (r->cu.device_pci && r->cu.device_pci(s, 64, r->dev) == LIVE_CU_OK)
		iso_emit(r->o, "dev.pci", s);
	if (r->cu.device_total_mem && r->cu.device_total_mem(&total, r->dev) == LIVE_CU_OK)
		emit_i64(r->o, "dev.total", (int64_t)total);
	attributes(r);
}

static int step_device(struct live_run *r, const struct live_dev_arg *a)
{
	int64_t t0 = begin(r, CD_LSTEP_DEVICE);
	int n = 0;

	live_cu_call(r->o, "cuDeviceGetCount");
	if (ok(r, CD_LSTEP_DEVICE, r->cu.device_count(&n), "cuDeviceGetCount"))
		return -1;
	emit_i64(r->o, "device.count", n);
	live_cu_call(r->o, "cuDeviceGet");
	if (ok(r, CD_LSTEP_DEVICE, r->cu.device_get(&r->dev, a->ordinal), "cuDeviceGet"))
		return -1;
	identity(r, a);
	live_cu_pass(r->o, "device", t0);
	return 0;
}

static int step_context(struct live_run *r)
{
	int64_t t0 = begin(r, CD_LSTEP_CONTEXT);

	live_cu_call(r->o, "cuDevicePrimaryCtxRetain");
	if (ok(r, CD_LSTEP_CONTEXT, r->cu.primary_retain(&r->ctx, r->dev),
	       "cuDevicePrimaryCtxRetain"))
		return -1;
	if (ok(r, CD_LSTEP_CONTEXT, r->cu.ctx_set(r->ctx), "cuCtxSetCurrent"))
		return -1;
	live_cu_pass(r->o, "context", t0);
	return 0;
}

static int step_meminfo(struct live_run *r, size_t *free_b)
{
	int64_t t0 = begin(r, CD_LSTEP_MEMINFO);
	size_t total = 0;

	live_cu_call(r->o, "cuMemGetInfo_v2");
	if (ok(r, CD_LSTEP_MEMINFO, r->cu.mem_info(free_b, &total), "cuMemGetInfo_v2"))
		return -1;
	emit_i64(r->o, "mem.free", (int64_t)*free_b);
	emit_i64(r->o, "mem.total", (int64_t)total);
	live_cu_pass(r->o, "meminfo", t0);
	return 0;
}

/* A bounded share of free memory: an eighth, at most 32 MiB, at least 1 MiB. */
static size_t quick_bytes(size_t free_b)
{
	size_t b = free_b / 8;

	if (b > QUICK_BYTES_MAX)
		b = QUICK_BYTES_MAX;
	return b / MIB * MIB;
}

static int step_alloc(struct live_run *r, size_t free_b)
{
	int64_t t0 = begin(r, CD_LSTEP_ALLOC);
	const int s = CD_LSTEP_ALLOC;
	void *ha = NULL, *hb = NULL;

	r->bytes = quick_bytes(free_b);
	if (r->bytes < QUICK_BYTES_MIN) {
		iso_emitf(r->o, "alloc.fail", "only %zu bytes of GPU memory are free", free_b);
		return -1;
	}
	emit_i64(r->o, "alloc.bytes", (int64_t)r->bytes);
	live_cu_call(r->o, "cuMemAlloc_v2");
	if (ok(r, s, r->cu.mem_alloc(&r->d, r->bytes), "cuMemAlloc_v2"))
		return -1;
	live_cu_call(r->o, "cuMemAllocHost_v2");
	if (ok(r, s, r->cu.mem_alloc_host(&ha, r->bytes), "cuMemAllocHost_v2") ||
	    ok(r, s, r->cu.mem_alloc_host(&hb, r->bytes), "cuMemAllocHost_v2"))
		return -1;
	r->ha = ha;
	r->hb = hb;
	if (ok(r, s, r->cu.stream_create(&r->s, LIVE_CU_STREAM_NON_BLOCKING), "cuStreamCreate") ||
	    ok(r, s, r->cu.event_create(&r->e0, LIVE_CU_EVENT_DEFAULT), "cuEventCreate") ||
	    ok(r, s, r->cu.event_create(&r->e1, LIVE_CU_EVENT_DEFAULT), "cuEventCreate") ||
	    ok(r, s, r->cu.event_create(&r->e2, LIVE_CU_EVENT_DEFAULT), "cuEventCreate"))
		return -1;
	live_cu_pass(r->o, "alloc", t0);
	return 0;
}

/* Compare what was read back with what was meant, word by word. */
static int verify(struct live_run *r, const char *step, const uint32_t *want, const uint32_t *got,
		  size_t words)
{
	size_t i, bad = 0, first = 0;
	char key[48];

	if (!memcmp(want, got, words * sizeof(*want)))
		return 0;
	for (i = 0; i < words; i++)
		if (want[i] != got[i] && !bad++)
			first = i;
	snprintf(key, sizeof(key), "%s.fail", step);
	iso_emitf(r->o, key,
		  "%zu of %zu words differ; the first at byte %zu: 0x%08x written, 0x%08x read",
		  bad, words, first * sizeof(*want), want[first], got[first]);
	snprintf(key, sizeof(key), "%s.mismatch", step);
	emit_i64(r->o, key, (int64_t)bad);
	iso_flush(r->o);
	return -1;
}

static int step_copy(struct live_run *r)
{
	int64_t t0 = begin(r, CD_LSTEP_COPY);
	const int s = CD_LSTEP_COPY;
	size_t i, words = r->bytes / 4;

	for (i = 0; i < words; i++)
		r->ha[i] = live_dev_hash(i, SEED_COPY);
	memset(r->hb, 0, r->bytes);
	live_cu_call(r->o, "cuMemcpyHtoDAsync_v2");
	if (ok(r, s, r->cu.htod_async(r->d, r->ha, r->bytes, r->s), "cuMemcpyHtoDAsync_v2"))
		return -1;
	live_cu_call(r->o, "cuMemcpyDtoHAsync_v2");
	if (ok(r, s, r->cu.dtoh_async(r->hb, r->d, r->bytes, r->s), "cuMemcpyDtoHAsync_v2") ||
	    ok(r, s, r->cu.event_record(r->e1, r->s), "cuEventRecord"))
		return -1;
	live_cu_call(r->o, "cuEventQuery");
	if (ok(r, s, live_cu_wait(&r->cu, r->e1), "cuEventQuery") ||
	    verify(r, "copy", r->ha, r->hb, words))
		return -1;
	live_cu_pass(r->o, "copy", t0);
	return 0;
}

/* The JIT log, one record per line, at most JIT_LOG_LINES. */
static void jit_log(struct iso_out *o, const char *log, size_t *lines)
{
	char line[200];

	while (*log && *lines < JIT_LOG_LINES) {
		size_t n = strcspn(log, "\n");
		if (n) {
			snprintf(line, sizeof(line), "%.*s", (int)n, log);
			iso_emit(o, "jit.log", line);
			++*lines;
		}
		log += n + (log[n] == '\n');
	}
}

static int step_module(struct live_run *r)
{
	int64_t t0 = begin(r, CD_LSTEP_MODULE);
	char info[4096], err[4096];
	int opt[] = {LIVE_CU_JIT_INFO_LOG_BUFFER,  LIVE_CU_JIT_INFO_LOG_BUFFER_BYTES,
		     LIVE_CU_JIT_ERROR_LOG_BUFFER, LIVE_CU_JIT_ERROR_LOG_BYTES,
		     LIVE_CU_JIT_LOG_VERBOSE,	   LIVE_CU_JIT_WALL_TIME};
	void *val[] = {info,
		       (void *)(uintptr_t)sizeof(info),
		       err,
		       (void *)(uintptr_t)sizeof(err),
		       (void *)(uintptr_t)1,
		       NULL};
	CUmodule m = NULL;
	size_t lines = 0;
	CUresult rc;
	float ms;

	info[0] = err[0] = '\0';
	live_cu_call(r->o, "cuModuleLoadDataEx");
	rc = r->cu.module_load(&m, live_ptx, 6, opt, val);
	info[sizeof(info) - 1] = err[sizeof(err) - 1] = '\0';
	jit_log(r->o, err, &lines);
	jit_log(r->o, info, &lines);
	memcpy(&ms, &val[5], sizeof(ms)); /* the driver writes a float into the slot */
	if (rc == LIVE_CU_OK && ms >= 0.0f && ms < 1e7f)
		emit_i64(r->o, "jit.wall_us", (int64_t)(ms * 1000.0f));
	if (ok(r, CD_LSTEP_MODULE, rc, "cuModuleLoadDataEx"))
		return -1;
	if (ok(r, CD_LSTEP_MODULE, r->cu.module_function(&r->fill, m, "cd_fill"),
	       "cuModuleGetFunction") ||
	    ok(r, CD_LSTEP_MODULE, r->cu.module_function(&r->check, m, "cd_check"),
	       "cuModuleGetFunction") ||
	    ok(r, CD_LSTEP_MODULE, r->cu.module_function(&r->spin, m, "cd_spin"),
	       "cuModuleGetFunction"))
		return -1;
	live_cu_pass(r->o, "module", t0);
	return 0;
}

CUresult live_dev_launch(struct live_run *r, const char *step, CUfunction f, unsigned grid,
			 unsigned block, void **params)
{
	CUresult rc;

	live_cu_call(r->o, "cuLaunchKernel");
	rc = r->cu.event_record(r->e0, r->s);
	if (rc == LIVE_CU_OK)
		rc = r->cu.launch(f, grid, 1, 1, block, 1, 1, 0, r->s, params, NULL);
	if (rc != LIVE_CU_OK) {
		live_cu_fail(r->o, &r->cu, step, rc, "cuLaunchKernel");
		return rc;
	}
	if ((rc = r->cu.event_record(r->e1, r->s)) != LIVE_CU_OK) {
		live_cu_fail(r->o, &r->cu, step, rc, "cuEventRecord");
		return rc;
	}
	live_cu_call(r->o, "cuEventQuery");
	if ((rc = live_cu_wait(&r->cu, r->e1)) != LIVE_CU_OK)
		live_cu_fail(r->o, &r->cu, step, rc, "cuEventQuery (the kernel's completion)");
	return rc;
}

/* The best launch-to-completion time of a one-block kernel; the first
 * launch, which also loads the module onto the GPU, is not counted. */
static int round_trip(struct live_run *r)
{
	unsigned long long n = 32;
	uint32_t seed = SEED_FILL;
	void *p[] = {&r->d, &n, &seed};
	int64_t best = -1;
	int k;

	for (k = 0; k < RTT_LAUNCHES; k++) {
		int64_t t = iso_now_us();
		if (live_dev_launch(r, "launch", r->fill, 1, 32, p))
			return -1;
		t = iso_now_us() - t;
		if (k && (best < 0 || t < best))
			best = t;
	}
	emit_i64(r->o, "kernel.rtt_us", best);
	return 0;
}

static int step_launch(struct live_run *r)
{
	int64_t t0 = begin(r, CD_LSTEP_LAUNCH);
	unsigned long long words = r->bytes / 4;
	uint32_t seed = SEED_FILL;
	void *p[] = {&r->d, &words, &seed};
	size_t i;
	double ms;

	if (round_trip(r) || live_dev_launch(r, "launch", r->fill, 1024, 256, p))
		return -1;
	if ((ms = live_cu_elapsed_ms(&r->cu, r->e0, r->e1)) >= 0)
		emit_i64(r->o, "launch.kernel_us", (int64_t)(ms * 1000.0));
	live_cu_call(r->o, "cuMemcpyDtoHAsync_v2");
	if (ok(r, CD_LSTEP_LAUNCH, r->cu.dtoh_async(r->hb, r->d, r->bytes, r->s),
	       "cuMemcpyDtoHAsync_v2") ||
	    ok(r, CD_LSTEP_LAUNCH, r->cu.event_record(r->e2, r->s), "cuEventRecord") ||
	    ok(r, CD_LSTEP_LAUNCH, live_cu_wait(&r->cu, r->e2), "cuEventQuery"))
		return -1;
	for (i = 0; i < words; i++)
		r->ha[i] = live_dev_hash(i, SEED_FILL);
	if (verify(r, "launch", r->ha, r->hb, words))
		return -1;
	live_cu_pass(r->o, "launch", t0);
	return 0;
}

/* Best of BW_ROUNDS host-to-device and device-to-host copies, each timed
 * by the events around it. */
static int step_bandwidth(struct live_run *r)
{
	int64_t t0 = begin(r, CD_LSTEP_BANDWIDTH);
	const int s = CD_LSTEP_BANDWIDTH;
	double up = -1, down = -1, ms;
	int k;

	for (k = 0; k < BW_ROUNDS; k++) {
		live_cu_call(r->o, "cuMemcpyHtoDAsync_v2");
		if (ok(r, s, r->cu.event_record(r->e0, r->s), "cuEventRecord") ||
		    ok(r, s, r->cu.htod_async(r->d, r->ha, r->bytes, r->s),
		       "cuMemcpyHtoDAsync_v2") ||
		    ok(r, s, r->cu.event_record(r->e1, r->s), "cuEventRecord") ||
		    ok(r, s, r->cu.dtoh_async(r->hb, r->d, r->bytes, r->s),
		       "cuMemcpyDtoHAsync_v2") ||
		    ok(r, s, r->cu.event_record(r->e2, r->s), "cuEventRecord") ||
		    ok(r, s, live_cu_wait(&r->cu, r->e2), "cuEventQuery"))
			return -1;
		if ((ms = live_cu_elapsed_ms(&r->cu, r->e0, r->e1)) > 0 && (up < 0 || ms < up))
			up = ms;
		if ((ms = live_cu_elapsed_ms(&r->cu, r->e1, r->e2)) > 0 && (down < 0 || ms < down))
			down = ms;
	}
	if (up > 0)
		emit_i64(r->o, "bw.h2d", (int64_t)((double)r->bytes * 1000.0 / up));
	if (down > 0)
		emit_i64(r->o, "bw.d2h", (int64_t)((double)r->bytes * 1000.0 / down));
	live_cu_pass(r->o, "bandwidth", t0);
	return 0;
}

static int quick(struct live_run *r, const struct live_dev_arg *a)
{
	size_t free_b = 0;

	return step_init(r) || step_device(r, a) || step_context(r) || step_meminfo(r, &free_b) ||
	       step_alloc(r, free_b) || step_copy(r) || step_module(r) || step_launch(r) ||
	       step_bandwidth(r);
}

/* The enumeration child, when NVML could not say which devices there are:
 * cuInit under the inherited CUDA_VISIBLE_DEVICES, the count, each UUID. */
static void enumerate(struct live_run *r)
{
	unsigned char u[16];
	char key[32], s[64];
	int n = 0, i;
	CUdevice d;

	if (step_init(r))
		return;
	iso_step(r->o, "count", 2000);
	if (r->cu.device_count(&n) != LIVE_CU_OK)
		n = 0;
	iso_emitf(r->o, "enum.count", "%d", n);
	for (i = 0; i < n && i < 64; i++) {
		if (r->cu.device_get(&d, i) != LIVE_CU_OK || !r->cu.device_uuid ||
		    r->cu.device_uuid(u, d) != LIVE_CU_OK)
			continue;
		live_cu_uuid_str(u, "GPU-", s, sizeof(s));
		snprintf(key, sizeof(key), "enum.%d.uuid", i);
		iso_emit(r->o, key, s);
	}
}

void live_dev_child(struct iso_out *o, void *arg)
{
	const struct live_dev_arg *a = arg;
	struct live_run *r = calloc(1, sizeof(*r));

	if (!r)
		return;
	r->o = o;
	r->sm_count = r->threads_per_sm = -1;
	if (a->cvd)
		setenv("CUDA_VISIBLE_DEVICES", a->cvd, 1);
	setenv("CUDA_CACHE_DISABLE", "1", 1); /* prove the JIT, not a cached cubin */
	iso_step(o, "load", budgets[CD_LSTEP_LOAD]);
	if (live_cu_load(o, &r->cu, a->lib))
		return;
	if (a->enumerate)
		enumerate(r);
	else if (!quick(r, a) && a->full && !live_full_memtest(r))
		(void)!live_full_compute(r); /* the last step: a failure is its own record */
	iso_emit(o, "done", "1");
	/* No cleanup: the child exits next, which releases the context, and a
	 * teardown that hung would turn a complete answer into a timeout. */
}
