/* Unit tests for kb/compat (the driver/CUDA table and its rules) and the
 * driver-too-old check built on it (check/compat.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "check/check.h"
#include "core/err.h"
#include "kb/compat.h"
#include "facts/facts.h"

static void toolkit_minimums(void **state)
{
	char d[COMPAT_DRIVER_MAX];
	const char *src = NULL;

	(void)state;
	assert_int_equal(compat_toolkit_min_driver(12040, d, sizeof(d), &src), 0);
	assert_string_equal(d, "550.54.14"); /* 12.4 GA, not Update 1's 550.54.15 */
	assert_non_null(strstr(src, "docs.nvidia.com"));
	assert_int_equal(compat_toolkit_min_driver(13000, d, sizeof(d), NULL), 0);
	assert_string_equal(d, "580.65.06");
	assert_int_equal(compat_toolkit_min_driver(12080, d, sizeof(d), NULL), 0);
	assert_string_equal(d, "570.26");
	assert_int_equal(compat_toolkit_min_driver(11080, d, sizeof(d), NULL), 0);
	assert_string_equal(d, "520.61.05");
	assert_int_equal(compat_toolkit_min_driver(10000, d, sizeof(d), NULL), 0);
	assert_string_equal(d, "410.48");
	/* 12.7 was never released; 13.4 has no sourced row. */
	assert_int_equal(compat_toolkit_min_driver(12070, d, sizeof(d), NULL), CD_ENOENT);
	assert_int_equal(compat_toolkit_min_driver(13040, d, sizeof(d), NULL), CD_ENOENT);
	assert_int_equal(compat_toolkit_min_driver(12040, d, 4, NULL), CD_ERANGE);
}

static void minor_floors(void **state)
{
	char d[COMPAT_DRIVER_MAX];

	(void)state;
	assert_int_equal(compat_minor_min_driver(13, d, sizeof(d), NULL), 0);
	assert_string_equal(d, "580.65.06");
	assert_int_equal(compat_minor_min_driver(12, d, sizeof(d), NULL), 0);
	assert_string_equal(d, "525.60.13");
	assert_int_equal(compat_minor_min_driver(11, d, sizeof(d), NULL), 0);
	assert_string_equal(d, "450.80.02");
	assert_int_equal(compat_minor_min_driver(10, d, sizeof(d), NULL), CD_ENOENT);
}

static void max_cuda(void **state)
{
	(void)state;
	assert_int_equal(compat_max_cuda("580.159.04"), 13000);
	assert_int_equal(compat_max_cuda("535.104.05"), 12020); /* exactly 12.2 Update 2 */
	assert_int_equal(compat_max_cuda("535.54.03"), 12020);	/* exactly 12.2 GA */
	assert_int_equal(compat_max_cuda("535.54.02"), 12010);	/* one below */
	assert_int_equal(compat_max_cuda("525.60.13"), 12000);
	assert_int_equal(compat_max_cuda("525.60.12"), 11080);
	assert_int_equal(compat_max_cuda("610.43.02"), 13030);
	assert_int_equal(compat_max_cuda("999.0"), 13030);
	assert_int_equal(compat_max_cuda("400.0"), -1);
	assert_int_equal(compat_max_cuda("abc"), -1);
	assert_int_equal(compat_max_cuda(""), -1);
	assert_int_equal(compat_max_cuda(NULL), -1);
}

static void rules(void **state)
{
	struct compat_result r;

	(void)state;
	assert_int_equal(compat_check(12040, 12040, NULL, &r), COMPAT_OK);
	assert_int_equal(compat_check(12030, 12040, NULL, &r), COMPAT_OK);
	assert_int_equal(compat_check(11080, 13000, NULL, &r), COMPAT_OK);
	/* Newer minor, same major: minor-version compatibility. */
	assert_int_equal(compat_check(12080, 12020, "535.104.05", &r), COMPAT_MINOR);
	assert_true(r.driver_version_checked);
	assert_string_equal(r.minor_min, "525.60.13");
	assert_string_equal(r.toolkit_min, "570.26");
	assert_int_equal(compat_check(12080, 12020, NULL, &r), COMPAT_MINOR);
	assert_false(r.driver_version_checked);
	/* The floor itself passes, one below does not. */
	assert_int_equal(compat_check(11080, 11000, "450.80.02", &r), COMPAT_MINOR);
	assert_int_equal(compat_check(11080, 11000, "450.80.01", &r), COMPAT_TOO_OLD);
	assert_int_equal(compat_check(11080, 11000, "450.36.06", &r), COMPAT_TOO_OLD);
	assert_int_equal(compat_check(13020, 13000, "580.65.06", &r), COMPAT_MINOR);
	assert_int_equal(compat_check(13020, 13000, "580.65.05", &r), COMPAT_TOO_OLD);
	/* Never across a major; none before CUDA 11. */
	assert_int_equal(compat_check(13000, 12080, "570.124.06", &r), COMPAT_TOO_OLD);
	assert_int_equal(compat_check(10020, 10010, "418.39", &r), COMPAT_TOO_OLD);
	assert_int_equal(compat_check(-1, 12040, NULL, &r), COMPAT_UNKNOWN);
	assert_int_equal(compat_check(12040, 0, NULL, &r), COMPAT_UNKNOWN);
	assert_string_equal(compat_verdict_name(COMPAT_MINOR), "minor-version-compatibility");
}

/* A facts tree with one toolkit of the given versions, selected. */
static void one_toolkit(struct cd_facts *f, struct cd_toolkit *t, const char *ver, const char *nvcc)
{
	facts_init(f, NULL);
	memset(t, 0, sizeof(*t));
	t->root = "/usr/local/cuda-12.8";
	t->exists = CD_TRI_YES;
	t->version = ver;
	t->nvcc_version = nvcc;
	t->nvcc_path = nvcc ? "/usr/local/cuda-12.8/bin/nvcc" : NULL;
	f->toolkit.items = t;
	f->toolkit.n = 1;
	f->toolkit.selected = 0;
}

static const struct cd_finding *run_compat(struct cd_facts *f, struct cd_findings *fs)
{
	findings_init(fs, &f->arena);
	check_compat(f, fs);
	return findings_find(fs, "driver-too-old");
}

static void check_driver_too_old(void **state)
{
	struct cd_facts f;
	struct cd_toolkit t;
	struct cd_findings fs;
	const struct cd_finding *x;

	(void)state;
	/* Unknown driver CUDA version: no finding. */
	one_toolkit(&f, &t, "12.8", "12.8.93");
	assert_null(run_compat(&f, &fs));
	/* Driver 12.2 (535): 12.8 runs through minor-version compatibility. */
	f.driver.cuda_version_int = 12020;
	f.driver.version = "535.104.05";
	x = run_compat(&f, &fs);
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_non_null(strstr(x->detail, "PTX"));
	/* Driver 11.8: a CUDA 12 toolkit cannot run at all. */
	f.driver.cuda_version_int = 11080;
	f.driver.version = "520.61.05";
	x = run_compat(&f, &fs);
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_true(x->n_fix >= 2);
	assert_non_null(strstr(x->fix[x->n_fix - 1], "cuda-compat-12-8"));
	/* Driver new enough. */
	f.driver.cuda_version_int = 13000;
	assert_null(run_compat(&f, &fs));
	facts_free(&f);
	/* nvcc newer than the headers' version counts. */
	one_toolkit(&f, &t, "12.2", "12.4.131");
	f.driver.cuda_version_int = 12020;
	x = run_compat(&f, &fs);
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_WARNING);
	facts_free(&f);
	/* No version known: no finding. */
	one_toolkit(&f, &t, NULL, NULL);
	f.driver.cuda_version_int = 11000;
	assert_null(run_compat(&f, &fs));
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(toolkit_minimums),
		cmocka_unit_test(minor_floors),
		cmocka_unit_test(max_cuda),
		cmocka_unit_test(rules),
		cmocka_unit_test(check_driver_too_old),
	};
	return cmocka_run_group_tests_name("compat", tests, NULL, NULL);
}
