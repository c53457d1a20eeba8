/* Unit tests for src/kb/devfiles: every row of data/cuda_dev_files.tsv
 * parses, the files jit's ops name (data/deepspeed_ops.tsv) all have a row,
 * the order `check` reports its headers in, and the package lookups. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/devfiles.h"
#include "kb/kb.h"

/* Every data row is one parsed row: a typo in a kind or check value, a
 * missing package column or source would drop it. */
static void every_row_parses(void **state)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	size_t n = 0, i;

	(void)state;
	assert_non_null(t);
	assert_int_equal(kb_tsv_open(t, "cuda_dev_files.tsv"), 0);
	while (kb_tsv_next(t))
		n++;
	free(t);
	assert_true(n >= 19);
	assert_int_equal(devfiles_count(), n);
	for (i = 0; i < n; i++) {
		const struct devfiles_row *r = devfiles_at(i);
		assert_non_null(r);
		assert_true(strlen(r->source) > 20);
		assert_ptr_equal(devfiles_find(r->file), r); /* no file twice */
	}
	assert_null(devfiles_at(n));
}

/* The headers and libraries each op of data/deepspeed_ops.tsv needs are rows,
 * so that the toolkit probe looks for them. */
static void deepspeed_files_are_rows(void **state)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	size_t ops = 0;

	(void)state;
	assert_non_null(t);
	assert_int_equal(kb_tsv_open(t, "deepspeed_ops.tsv"), 0);
	while (kb_tsv_next(t)) {
		const char *cols[2] = {kb_tsv_get(t, "headers"), kb_tsv_get(t, "libraries")};
		int c;
		ops++;
		for (c = 0; c < 2; c++) {
			const char *s = cols[c];
			while (s && *s) {
				size_t len = strcspn(s, ",");
				char name[96];
				const struct devfiles_row *r;
				if (c)
					snprintf(name, sizeof(name), "lib%.*s.so", (int)len, s);
				else
					str_ncopy(name, sizeof(name), s, len);
				r = devfiles_find(name);
				if (!r)
					fail_msg("%s (deepspeed_ops.tsv) has no row", name);
				assert_int_equal(r->is_lib, c);
				s += len + (s[len] == ',');
			}
		}
	}
	free(t);
	assert_true(ops >= 9);
}

/* What `check` lists, in the order of its JSON report (docs/json.md). */
static void check_order(void **state)
{
	static const char *const want[] = {"cuda_runtime.h", "cusparse.h",   "cublas_v2.h",
					   "curand.h",	     "cusolverDn.h", "cufft.h",
					   "nvrtc.h",	     "cudnn.h",	     "nccl.h"};
	size_t i, k = 0;

	(void)state;
	for (i = 0; i < devfiles_count(); i++) {
		const struct devfiles_row *r = devfiles_at(i);
		if (r->check == DEVFILES_CHECK_NONE)
			continue;
		assert_true(k < sizeof(want) / sizeof(want[0]));
		assert_string_equal(r->file, want[k]);
		assert_int_equal(r->check, k < 7 ? DEVFILES_CHECK_REQUIRED : DEVFILES_CHECK_INFO);
		assert_false(r->is_lib);
		k++;
	}
	assert_int_equal(k, sizeof(want) / sizeof(want[0]));
}

static void packages(void **state)
{
	const struct devfiles_row *r = devfiles_find("cusparse.h");
	char p[DEVFILES_PKG_MAX];

	(void)state;
	assert_non_null(r);
	assert_int_equal(devfiles_package(r, DEVFILES_APT, 12, 4, p, sizeof(p)), 0);
	assert_string_equal(p, "libcusparse-dev-12-4");
	assert_int_equal(devfiles_package(r, DEVFILES_DNF, 13, 0, p, sizeof(p)), 0);
	assert_string_equal(p, "libcusparse-devel-13-0");
	assert_int_equal(devfiles_package(r, DEVFILES_CONDA, 12, 4, p, sizeof(p)), 0);
	assert_string_equal(p, "libcusparse-dev");
	assert_int_equal(devfiles_package(r, DEVFILES_PIP_CU12, 12, 4, p, sizeof(p)), 0);
	assert_string_equal(p, "nvidia-cusparse-cu12");
	assert_int_equal(devfiles_package(r, DEVFILES_PIP_CU13, 13, 0, p, sizeof(p)), 0);
	assert_string_equal(p, "cusparse");
	assert_int_equal(devfiles_package(r, DEVFILES_APT, 12, 4, p, 8), CD_ERANGE);
	/* The headers the C table of check/toolkit.c had beyond the data file. */
	assert_int_equal(
		devfiles_package(devfiles_find("cufft.h"), DEVFILES_APT, 12, 1, p, sizeof(p)), 0);
	assert_string_equal(p, "libcufft-dev-12-1");
	assert_int_equal(
		devfiles_package(devfiles_find("nvrtc.h"), DEVFILES_CONDA, 12, 1, p, sizeof(p)), 0);
	assert_string_equal(p, "cuda-nvrtc-dev");
	/* cuDNN and NCCL are no toolkit package. */
	assert_int_equal(
		devfiles_package(devfiles_find("cudnn.h"), DEVFILES_APT, 12, 4, p, sizeof(p)),
		CD_ENOENT);
	assert_int_equal(devfiles_package(NULL, DEVFILES_APT, 12, 4, p, sizeof(p)), CD_ENOENT);
	assert_true(devfiles_find("libcurand.so")->is_lib);
	assert_null(devfiles_find("nosuch.h"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_parses),
		cmocka_unit_test(deepspeed_files_are_rows),
		cmocka_unit_test(check_order),
		cmocka_unit_test(packages),
	};
	return cmocka_run_group_tests_name("devfiles", tests, NULL, NULL);
}
