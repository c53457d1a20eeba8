/* live_full: the two steps --full adds to a device's child (live_int.h),
 * still seconds, not minutes: a pattern written and checked on the GPU over
 * half of the free memory (two seeds, so every bit is written both ways with
 * high probability), and an integer loop on every SM whose every result is
 * verified on the host. */
#include <string.h>

#include "probe/live/live_int.h"

#define MIB		  (1024ULL * 1024ULL)
#define MEMTEST_BYTES_MAX (64ULL * 1024 * MIB) /* 64 GiB: ~50 ms at HBM speeds */
#define MEMTEST_GRID	  4096
#define SPIN_ITERS	  (1u << 20)
#define SEED_MEM_A	  0xa5a5f00du
#define SEED_MEM_B	  0x5a5a0ff2u

static void emit_i64(struct iso_out *o, const char *key, int64_t v)
{
	iso_emitf(o, key, "%lld", (long long)v);
}

static int fail(struct live_run *r, const char *step, CUresult rc, const char *call)
{
	if (rc == LIVE_CU_OK)
		return 0;
	live_cu_fail(r->o, &r->cu, step, rc, call);
	return -1;
}

/* Fill with one seed, check with the same: the errors counted on the GPU. */
static int pattern(struct live_run *r, CUdeviceptr buf, unsigned long long words, uint32_t seed,
		   CUdeviceptr errs, uint32_t *count)
{
	void *fp[] = {&buf, &words, &seed};
	void *cp[] = {&buf, &words, &seed, &errs};

	r->ha[0] = 0;
	if (fail(r, "memtest", r->cu.htod_async(errs, r->ha, 4, r->s), "cuMemcpyHtoDAsync_v2") ||
	    live_dev_launch(r, "memtest", r->fill, MEMTEST_GRID, 256, fp) ||
	    live_dev_launch(r, "memtest", r->check, MEMTEST_GRID, 256, cp))
		return -1;
	live_cu_call(r->o, "cuMemcpyDtoHAsync_v2");
	if (fail(r, "memtest", r->cu.dtoh_async(r->hb, errs, 4, r->s), "cuMemcpyDtoHAsync_v2") ||
	    fail(r, "memtest", r->cu.event_record(r->e2, r->s), "cuEventRecord") ||
	    fail(r, "memtest", live_cu_wait(&r->cu, r->e2), "cuEventQuery"))
		return -1;
	*count += r->hb[0];
	return 0;
}

int live_full_memtest(struct live_run *r)
{
	unsigned long long words;
	size_t free_b = 0, total = 0, bytes;
	CUdeviceptr buf = 0, errs = 0;
	int64_t t0, t1;
	uint32_t bad = 0;

	iso_step(r->o, "memtest", live_dev_budget(CD_LSTEP_MEMTEST));
	t0 = iso_now_us();
	live_cu_call(r->o, "cuMemGetInfo_v2");
	if (fail(r, "memtest", r->cu.mem_info(&free_b, &total), "cuMemGetInfo_v2"))
		return -1;
	bytes = free_b / 2;
	if (bytes > MEMTEST_BYTES_MAX)
		bytes = MEMTEST_BYTES_MAX;
	bytes = bytes / (2 * MIB) * (2 * MIB);
	if (bytes < 2 * MIB) {
		iso_emitf(r->o, "memtest.fail", "only %zu bytes of GPU memory are free", free_b);
		return -1;
	}
	emit_i64(r->o, "memtest.bytes", (int64_t)bytes);
	live_cu_call(r->o, "cuMemAlloc_v2");
	if (fail(r, "memtest", r->cu.mem_alloc(&buf, bytes), "cuMemAlloc_v2") ||
	    fail(r, "memtest", r->cu.mem_alloc(&errs, 4), "cuMemAlloc_v2"))
		return -1;
	words = bytes / 4;
	t1 = iso_now_us();
	if (pattern(r, buf, words, SEED_MEM_A, errs, &bad) ||
	    pattern(r, buf, words, SEED_MEM_B, errs, &bad))
		return -1;
	t1 = iso_now_us() - t1;
	emit_i64(r->o, "memtest.errors", bad);
	/* each pass writes and reads the buffer once */
	if (t1 > 0)
		emit_i64(r->o, "memtest.bps", (int64_t)((double)bytes * 4.0 * 1e6 / (double)t1));
	if (bad) {
		iso_emitf(r->o, "memtest.fail", "%u of %llu words read back wrong on the GPU", bad,
			  words * 2);
		return -1;
	}
	live_cu_pass(r->o, "memtest", t0);
	return 0;
}

int live_full_compute(struct live_run *r)
{
	int64_t t0, blocks, threads;
	uint32_t iters = SPIN_ITERS, i, bad = 0, first = 0;
	void *p[] = {&r->d, &iters};
	double ms;

	iso_step(r->o, "compute", live_dev_budget(CD_LSTEP_COMPUTE));
	t0 = iso_now_us();
	/* every SM full: its resident threads, in blocks of 256 */
	threads = (r->sm_count > 0 ? r->sm_count : 1) *
		  (r->threads_per_sm > 0 ? r->threads_per_sm : 1024);
	if ((size_t)threads * 4 > r->bytes)
		threads = (int64_t)(r->bytes / 4);
	blocks = threads / 256 > 0 ? threads / 256 : 1;
	threads = blocks * 256;
	emit_i64(r->o, "compute.threads", threads);
	emit_i64(r->o, "compute.iters", iters);
	if (live_dev_launch(r, "compute", r->spin, (unsigned)blocks, 256, p))
		return -1;
	if ((ms = live_cu_elapsed_ms(&r->cu, r->e0, r->e1)) >= 0)
		emit_i64(r->o, "compute.kernel_us", (int64_t)(ms * 1000.0));
	live_cu_call(r->o, "cuMemcpyDtoHAsync_v2");
	if (fail(r, "compute", r->cu.dtoh_async(r->hb, r->d, (size_t)threads * 4, r->s),
		 "cuMemcpyDtoHAsync_v2") ||
	    fail(r, "compute", r->cu.event_record(r->e2, r->s), "cuEventRecord") ||
	    fail(r, "compute", live_cu_wait(&r->cu, r->e2), "cuEventQuery"))
		return -1;
	for (i = 0; i < (uint32_t)threads; i++)
		if (r->hb[i] != live_dev_lcg(i, iters) && !bad++)
			first = i;
	if (bad) {
		iso_emitf(r->o, "compute.fail",
			  "%u of %lld threads computed a wrong result; the first, thread %u: "
			  "0x%08x, expected 0x%08x",
			  bad, (long long)threads, first, r->hb[first], live_dev_lcg(first, iters));
		return -1;
	}
	live_cu_pass(r->o, "compute", t0);
	return 0;
}
