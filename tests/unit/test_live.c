/* Unit tests for src/probe/live and facts/live: the host mirrors of the
 * probe's kernels (the verification is only as good as they are), the step
 * table, and how a child's records become step results (live_apply.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "facts/live.h"
#include "probe/live/live_int.h"

static void lcg_jump_ahead(void **state)
{
	static const uint32_t iters[] = {0, 1, 2, 3, 7, 1000, 65537};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(iters) / sizeof(iters[0]); i++) {
		uint32_t x = 12345u, k;
		for (k = 0; k < iters[i]; k++)
			x = x * 1664525u + 1013904223u;
		assert_int_equal(live_dev_lcg(12345u, iters[i]), x);
	}
}

static void hash_values(void **state)
{
	(void)state;
	/* the values the fake's wrong-byte test quotes (tests/e2e/probe.bats) */
	assert_int_equal(live_dev_hash(1024, 0x5eed0001u), 0x31b53e63u);
	/* the high half of the index changes the word */
	assert_int_not_equal(live_dev_hash(1, 7), live_dev_hash(1 + (1ULL << 32), 7));
}

static void steps(void **state)
{
	(void)state;
	assert_string_equal(live_step_name(CD_LSTEP_INIT), "init");
	assert_int_equal(live_step_id("bandwidth"), CD_LSTEP_BANDWIDTH);
	assert_int_equal(live_step_id("nope"), -1);
	assert_string_equal(live_result_name(CD_LIVE_HUNG), "hung");
	assert_true(live_result_rank(CD_LIVE_CRASHED) > live_result_rank(CD_LIVE_HUNG));
	assert_true(live_result_rank(CD_LIVE_HUNG) > live_result_rank(CD_LIVE_FAILED));
	assert_int_equal(live_dev_budget(CD_LSTEP_INIT), 0);
	assert_int_equal(live_dev_budget(CD_LSTEP_LAUNCH), 3000);
}

/* A device whose child hung in the launch step after the module passed. */
static void apply_hung(void **state)
{
	static const char rec[] = "stage=load\nload.rc=0\nload.us=10\nstage=init\ninit.rc=0\n"
				  "init.us=100\nstage=module\nmodule.rc=0\nmodule.us=20\n"
				  "stage=launch\ncall=cuEventQuery\n";
	struct cd_facts f;
	struct cd_live_facts lf;
	struct iso_job j;

	(void)state;
	facts_init(&f, NULL);
	memset(&lf, 0, sizeof(lf));
	assert_int_equal(live_devices_alloc(&lf, &f.arena, 1), 0);
	memset(&j, 0, sizeof(j));
	buf_init(&j.out, 0);
	assert_int_equal(buf_append(&j.out, rec, strlen(rec)), 0);
	j.status = ISO_TIMEOUT;
	j.step_expired = 1;
	j.elapsed_us = 3200;
	live_apply_device(&f, &lf.devices[0], &j);
	assert_int_equal(lf.devices[0].steps[CD_LSTEP_INIT].result, CD_LIVE_PASSED);
	/* device..alloc had no records: the child never ran them, so they are not-run */
	assert_int_equal(lf.devices[0].steps[CD_LSTEP_DEVICE].result, CD_LIVE_NOT_RUN);
	assert_int_equal(lf.devices[0].result, CD_LIVE_NOT_RUN);
	buf_free(&j.out);

	/* the same, in order: hung in launch, with the time it was given */
	{
		static const char ok[] =
			"stage=load\nload.rc=0\nstage=init\ninit.rc=0\nstage=device\ndevice.rc=0\n"
			"stage=context\ncontext.rc=0\nstage=meminfo\nmeminfo.rc=0\nstage=alloc\n"
			"alloc.rc=0\nstage=copy\ncopy.rc=0\nstage=module\nmodule.rc=0\nmodule.us="
			"200\n"
			"stage=launch\ncall=cuEventQuery\n";
		assert_int_equal(live_devices_alloc(&lf, &f.arena, 1), 0);
		buf_init(&j.out, 0);
		assert_int_equal(buf_append(&j.out, ok, strlen(ok)), 0);
		live_apply_device(&f, &lf.devices[0], &j);
		assert_int_equal(lf.devices[0].steps[CD_LSTEP_MODULE].result, CD_LIVE_PASSED);
		assert_int_equal(lf.devices[0].steps[CD_LSTEP_LAUNCH].result, CD_LIVE_HUNG);
		assert_string_equal(lf.devices[0].steps[CD_LSTEP_LAUNCH].call, "cuEventQuery");
		assert_non_null(strstr(lf.devices[0].steps[CD_LSTEP_LAUNCH].error, "3000 ms"));
		assert_true(lf.devices[0].steps[CD_LSTEP_LAUNCH].us == 3000);
		assert_int_equal(lf.devices[0].steps[CD_LSTEP_BANDWIDTH].result, CD_LIVE_NOT_RUN);
		assert_int_equal(lf.devices[0].result, CD_LIVE_HUNG);
		buf_free(&j.out);
	}
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lcg_jump_ahead),
		cmocka_unit_test(hash_values),
		cmocka_unit_test(steps),
		cmocka_unit_test(apply_hung),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
