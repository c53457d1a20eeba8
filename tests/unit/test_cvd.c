/* Unit tests for src/format/cvd: CUDA_VISIBLE_DEVICES parsed and resolved
 * the way the CUDA runtime does it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "format/cvd.h"

static const char *const uuids[] = {
	"GPU-5a3f9c1e-7b2d-4e8a-9c61-0f2b8d4e7a13",
	"GPU-c81e2a47-3d95-4b0f-8e26-71a9f5d0b3c4",
	"GPU-c8ffffff-0000-0000-0000-000000000000",
};

/* Parse and resolve v against n GPUs; return the visible count. */
static size_t run(const char *v, size_t n, struct cvd_list *l, struct cvd_result *r)
{
	assert_int_equal(cvd_parse((const uint8_t *)v, strlen(v), l), 0);
	cvd_resolve(l, (const uint8_t *)v, strlen(v), uuids, n, r);
	return r->visible;
}

static void indices(void **state)
{
	struct cvd_list l;
	struct cvd_result r;

	(void)state;
	assert_int_equal(run("0,1", 2, &l, &r), 2);
	assert_int_equal(r.problem, CVD_OK);
	assert_int_equal(r.gpu[0], 0);
	assert_int_equal(r.gpu[1], 1);
	/* reordering is allowed */
	assert_int_equal(run("1,0", 2, &l, &r), 2);
	assert_int_equal(r.gpu[0], 1);
	/* the CUDA guide's example: 0,2,-1,1 -> devices 0 and 2 */
	assert_int_equal(run("0,2,-1,1", 3, &l, &r), 2);
	assert_int_equal(l.stop, CVD_STOP_NEGATIVE);
	assert_int_equal(r.problem, CVD_P_STOPPED);
	assert_int_equal(l.n, 2);
	/* out of range stops the list */
	assert_int_equal(run("0,5,1", 2, &l, &r), 1);
	assert_int_equal(r.problem, CVD_P_OUT_OF_RANGE);
	assert_int_equal(r.at, 1);
	/* spaces around entries are fine; strtoul-like junk after digits is read */
	assert_int_equal(run(" 0 , 1gpu", 2, &l, &r), 2);
	assert_int_equal(l.e[1].lenient, 1);
	assert_int_equal(l.e[0].lenient, 0);
	assert_int_equal(run("+1", 2, &l, &r), 1);
	assert_int_equal(r.gpu[0], 1);
	/* "-1" hides everything */
	assert_int_equal(run("-1", 2, &l, &r), 0);
	assert_int_equal(l.stop, CVD_STOP_NEGATIVE);
	/* a repeated index hides every device */
	assert_int_equal(run("0,1,0", 2, &l, &r), 0);
	assert_int_equal(l.stop, CVD_STOP_DUPLICATE);
	/* empty entries stop the list */
	assert_int_equal(run("0,,1", 2, &l, &r), 1);
	assert_int_equal(l.stop, CVD_STOP_INVALID);
	/* a huge index does not wrap */
	assert_int_equal(run("99999999999999999999", 2, &l, &r), 0);
	assert_int_equal(l.e[0].index, UINT32_MAX);
	assert_int_equal(r.problem, CVD_P_OUT_OF_RANGE);
}

static void empty_values(void **state)
{
	struct cvd_list l;
	struct cvd_result r;

	(void)state;
	assert_int_equal(run("", 2, &l, &r), 0);
	assert_int_equal(l.stop, CVD_STOP_EMPTY);
	assert_int_equal(run("   ", 2, &l, &r), 0);
	assert_int_equal(l.stop, CVD_STOP_EMPTY);
	assert_int_equal(run("abc", 2, &l, &r), 0);
	assert_int_equal(l.stop, CVD_STOP_INVALID);
	assert_int_equal(run(",", 2, &l, &r), 0);
}

static void uuid_prefixes(void **state)
{
	struct cvd_list l;
	struct cvd_result r;

	(void)state;
	assert_int_equal(run("GPU-c81e2a47-3d95-4b0f-8e26-71a9f5d0b3c4", 3, &l, &r), 1);
	assert_int_equal(l.mode, CVD_UUID);
	assert_int_equal(r.gpu[0], 1);
	assert_int_equal(run("GPU-5a3f,GPU-c81e", 3, &l, &r), 2);
	assert_int_equal(r.problem, CVD_OK);
	/* "GPU-c8" starts two UUIDs */
	assert_int_equal(run("GPU-5a3f,GPU-c8", 3, &l, &r), 1);
	assert_int_equal(r.problem, CVD_P_AMBIGUOUS);
	assert_int_equal(r.at, 1);
	assert_int_equal(run("GPU-deadbeef", 3, &l, &r), 0);
	assert_int_equal(r.problem, CVD_P_NO_MATCH);
	/* two prefixes of the same GPU: a duplicate, no device visible */
	assert_int_equal(run("GPU-5a3f,GPU-5a3f9c", 3, &l, &r), 0);
	assert_int_equal(r.problem, CVD_P_DUPLICATE);
	/* an index after UUIDs ends the list */
	assert_int_equal(run("GPU-5a3f,1", 3, &l, &r), 1);
	assert_int_equal(l.stop, CVD_STOP_MIXED);
	/* and a UUID after an index */
	assert_int_equal(run("0,GPU-5a3f", 3, &l, &r), 1);
	assert_int_equal(l.stop, CVD_STOP_MIXED);
	/* unknown UUIDs (NULL) never match */
	{
		const char *none[2] = {NULL, NULL};
		const char *v = "GPU-5a3f";
		assert_int_equal(cvd_parse((const uint8_t *)v, strlen(v), &l), 0);
		cvd_resolve(&l, (const uint8_t *)v, strlen(v), none, 2, &r);
		assert_int_equal(r.problem, CVD_P_NO_MATCH);
	}
}

static void mig(void **state)
{
	struct cvd_list l;
	struct cvd_result r;

	(void)state;
	assert_int_equal(run("MIG-4f0c1a2b-1111-2222-3333-444455556666", 1, &l, &r), 1);
	assert_int_equal(l.mode, CVD_MIG);
	assert_int_equal(r.problem, CVD_P_MIG_UNVERIFIED);
	assert_int_equal(r.gpu[0], -1);
	assert_int_equal(run("MIG-a,MIG-a", 1, &l, &r), 0);
	assert_int_equal(l.stop, CVD_STOP_DUPLICATE);
}

static void many(void **state)
{
	char v[1024];
	struct cvd_list l;
	struct cvd_result r;
	size_t i, o = 0;

	(void)state;
	for (i = 0; i < 100; i++)
		o += (size_t)snprintf(v + o, sizeof(v) - o, "%s%zu", i ? "," : "", i);
	assert_int_equal(run(v, 200, &l, &r), CVD_ENTRIES_MAX);
	assert_int_equal(l.stop, CVD_STOP_TOO_MANY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(indices),	 cmocka_unit_test(empty_values),
		cmocka_unit_test(uuid_prefixes), cmocka_unit_test(mig),
		cmocka_unit_test(many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
