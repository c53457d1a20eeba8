/* Unit tests for format/nvreq: NVIDIA_REQUIRE_CUDA judged as
 * libnvidia-container's dsl.c judges it, on the strings NVIDIA's images set
 * (nvidia/cuda 12.4.1 and 12.8.1 base images, amd64; data/cuda_images.tsv). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "format/nvreq.h"

static const char req124[] =
	"cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 "
	"brand=nvidia,driver>=470,driver<471 brand=geforce,driver>=470,driver<471 "
	"brand=tesla,driver>=525,driver<526 brand=geforce,driver>=525,driver<526 "
	"brand=tesla,driver>=535,driver<536 brand=nvidia,driver>=535,driver<536 "
	"brand=geforce,driver>=535,driver<536 brand=titanrtx,driver>=535,driver<536";
static const char req128[] =
	"cuda>=12.8 brand=unknown,driver>=470,driver<471 brand=tesla,driver>=470,driver<471 "
	"brand=tesla,driver>=535,driver<536 brand=nvidia,driver>=535,driver<536 "
	"brand=quadro,driver>=535,driver<536 brand=nvidiartx,driver>=535,driver<536 "
	"brand=tesla,driver>=565,driver<566";

static enum nvreq_result ev(const char *req, const char *drv, const char *cuda, const char *brand,
			    struct nvreq_eval *e)
{
	struct nvreq_host h = {drv, cuda, brand, NULL};

	return nvreq_eval(req, strlen(req), &h, e);
}

static void native_and_branches(void **state)
{
	struct nvreq_eval e;

	(void)state;
	/* a 550 driver (CUDA 12.4) meets cuda>=12.4 itself */
	assert_int_equal(ev(req124, "550.54.14", "12.4", "geforce", &e), NVREQ_OK);
	assert_int_equal(e.alternative, 0);
	assert_string_equal(e.held, "cuda>=12.4");
	/* R535 (CUDA 12.2): the 12.4 image lists the 535 branch for GeForce too */
	assert_int_equal(ev(req124, "535.104.05", "12.2", "geforce", &e), NVREQ_OK);
	assert_string_equal(e.held, "brand=geforce,driver>=535,driver<536");
	/* ... the 12.8 image no longer does: refused, the toolkit names the first term */
	assert_int_equal(ev(req128, "535.104.05", "12.2", "geforce", &e), NVREQ_REFUSED);
	assert_int_equal(e.alternative, -1);
	assert_string_equal(e.first, "cuda>=12.8");
	assert_int_equal(ev(req128, "535.104.05", "12.2", "TESLA", &e), NVREQ_OK); /* caseless */
	assert_string_equal(e.held, "brand=tesla,driver>=535,driver<536");
	/* R545 is not a listed branch for anyone */
	assert_int_equal(ev(req124, "545.29.06", "12.3", "tesla", &e), NVREQ_REFUSED);
	assert_int_equal(e.n_alternatives, 11);
}

static void unknown_facts_hold(void **state)
{
	struct nvreq_eval e;

	(void)state;
	assert_int_equal(ev(req128, NULL, NULL, NULL, &e), NVREQ_OK);
	assert_int_equal(e.alternative, 0);
	assert_int_equal(ev(req128, "535.104.05", "12.2", NULL, &e), NVREQ_OK); /* brand unknown */
	assert_string_equal(e.held, "brand=tesla,driver>=535,driver<536");
}

static void malformed(void **state)
{
	struct nvreq_eval e;

	(void)state;
	assert_int_equal(ev("cuda>=12.x", "550.54.14", "12.4", NULL, &e), NVREQ_INVALID);
	assert_string_equal(e.bad, "cuda>=12.x");
	assert_int_equal(ev("cuda=>12", "550.54.14", "12.4", NULL, &e), NVREQ_INVALID);
	assert_int_equal(ev("gpu>=1", "550.54.14", "12.4", NULL, &e), NVREQ_INVALID);
	assert_int_equal(ev("brand>tesla", "550.54.14", "12.4", "tesla", &e), NVREQ_INVALID);
	assert_int_equal(ev("cuda>=", "550.54.14", "12.4", NULL, &e), NVREQ_INVALID);
	/* an alternative that holds ends the search before a malformed one */
	assert_int_equal(ev("cuda>=12.0 junk", "550.54.14", "12.4", NULL, &e), NVREQ_OK);
	assert_int_equal(ev("", "550.54.14", "12.4", NULL, &e), NVREQ_OK);
	/* dsl_evaluate's carried verdict: an empty alternative repeats the last one */
	assert_int_equal(ev("cuda>=99 ,", "550.54.14", "12.4", NULL, &e), NVREQ_REFUSED);
	assert_int_equal(ev("arch>=8.0", NULL, NULL, NULL, &e), NVREQ_OK);
	{
		struct nvreq_host h = {NULL, NULL, NULL, "7.5"};
		assert_int_equal(nvreq_eval("arch>=8.0", 9, &h, &e), NVREQ_REFUSED);
	}
}

static void versions(void **state)
{
	char v[16];

	(void)state;
	assert_int_equal(nvreq_compare_version("535.104.05", "<", "536"), 1);
	assert_int_equal(nvreq_compare_version("535.104.05", ">=", "535"), 1);
	assert_int_equal(nvreq_compare_version("12.2", ">=", "12.2.0"), 1);
	assert_int_equal(nvreq_compare_version("12.10", ">", "12.9"), 1);
	assert_int_equal(nvreq_compare_version("12.2", "=", "12.2.0.0"), 1);
	assert_int_equal(nvreq_compare_version("12.2", "!=", "12.3"), 1);
	assert_int_equal(nvreq_compare_version("12.2", "<=", "12.1"), 0);
	assert_int_equal(nvreq_compare_version("12.2a", "<=", "12.1"), -1);
	assert_int_equal(nvreq_compare_version("12", "~", "12"), -1);
	assert_int_equal(nvreq_cuda_min(req128, strlen(req128), v, sizeof(v)), 0);
	assert_string_equal(v, "12.8");
	assert_int_equal(nvreq_cuda_min("brand=tesla,cuda>=11.0", 22, v, sizeof(v)), 0);
	assert_string_equal(v, "11.0");
	assert_int_equal(nvreq_cuda_min("xcuda>=1 driver>=2", 18, v, sizeof(v)), -1);
}

static void not_nul_terminated(void **state)
{
	char buf[10];
	struct nvreq_eval e;
	struct nvreq_host h = {"535.1", "12.2", NULL, NULL};

	(void)state;
	memcpy(buf, "cuda>=12.8", 10); /* no NUL: the reader stays inside n */
	assert_int_equal(nvreq_eval(buf, sizeof(buf), &h, &e), NVREQ_REFUSED);
	assert_int_equal(nvreq_eval(buf, 7, &h, &e), NVREQ_OK); /* cut to "cuda>=1" */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(native_and_branches), cmocka_unit_test(unknown_facts_hold),
		cmocka_unit_test(malformed),	       cmocka_unit_test(versions),
		cmocka_unit_test(not_nul_terminated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
