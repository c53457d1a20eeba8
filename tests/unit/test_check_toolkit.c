/* Unit tests for the toolkit family's builders (check/toolkit.h): the one
 * severity rule and the titles that `check` and `jit` share, the findings
 * raised from a failed build's log, and the lookups of a finding already
 * raised. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "check/toolkit.h"

static struct cd_facts F;
static struct cd_findings FS;

static int setup(void **state)
{
	(void)state;
	facts_init(&F, NULL);
	findings_init(&FS, &F.arena);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	facts_free(&F);
	return 0;
}

static int has_evidence(const struct cd_finding *x, const char *s)
{
	size_t i;

	for (i = 0; i < x->n_evidence; i++)
		if (strstr(x->evidence[i], s))
			return 1;
	return 0;
}

static void missing_severity_and_titles(void **state)
{
	struct toolkit_sel s = {NULL, NULL, CD_TRI_UNKNOWN, NULL, "nothing set", 0, NULL};
	const struct cd_finding *x;

	(void)state;
	x = toolkit_missing(&s, "toolkit", &FS);
	assert_string_equal(x->id, "toolkit-missing");
	assert_int_equal(x->severity, CD_SEV_INFO);
	assert_string_equal(x->title, "No CUDA toolkit: CUDA extensions cannot be compiled");
	s.other = 1;
	s.expected = "TORCH_CUDA_ARCH_LIST is set";
	x = toolkit_missing(&s, "jit", &FS);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->section, "jit");
	assert_string_equal(x->title, "A CUDA toolkit is installed but PyTorch will not find it");
	assert_true(has_evidence(x, "a build is expected: TORCH_CUDA_ARCH_LIST is set"));
	/* CUDA_HOME names nothing: a warning, unless a build is expected */
	s = (struct toolkit_sel){"/opt/cuda",	     "CUDA_HOME", CD_TRI_NO, NULL,
				 "CUDA_HOME is set", 0,		  NULL};
	x = toolkit_missing(&s, "toolkit", &FS);
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_string_equal(x->title, "CUDA_HOME /opt/cuda (from CUDA_HOME) does not exist");
	assert_true(has_evidence(x, "/opt/cuda: no such directory"));
	s = (struct toolkit_sel){"cuda-12.4", NULL, CD_TRI_NO, NULL, "CUDA_HOME is set", 0, "x"};
	x = toolkit_missing(&s, "toolkit", &FS);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->title, "CUDA_HOME cuda-12.4 is not a toolkit directory");
	assert_true(has_evidence(x, "a relative path"));
	/* a runtime-only toolkit */
	s = (struct toolkit_sel){"/usr/local/cuda", "default", CD_TRI_YES, NULL, "r", 0, NULL};
	x = toolkit_missing(&s, "toolkit", &FS);
	assert_int_equal(x->severity, CD_SEV_INFO);
	assert_string_equal(x->title, "The CUDA toolkit at /usr/local/cuda has no nvcc");
	/* nothing to raise */
	s.nvcc = "/usr/local/cuda/bin/nvcc";
	assert_null(toolkit_missing(&s, "toolkit", &FS));
}

static void files_titles(void **state)
{
	const char *names[] = {"cusparse.h", "libcurand.so", "curand.h"};
	const struct cd_finding *x;

	(void)state;
	assert_null(toolkit_files_missing("/usr/local/cuda", names, 0, NULL, "toolkit", &FS));
	x = toolkit_files_missing("/usr/local/cuda", names, 1, NULL, "toolkit", &FS);
	assert_string_equal(x->id, "toolkit-headers-missing");
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_string_equal(x->title,
			    "cusparse.h is missing where PyTorch extension builds look in "
			    "/usr/local/cuda");
	x = toolkit_files_missing("/usr/local/cuda", names, 2, "jit", "jit", &FS);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->title, "cusparse.h and 1 more build file are missing where PyTorch "
				      "extension builds look in /usr/local/cuda");
	x = toolkit_files_missing("/usr/local/cuda", names, 3, "jit", "jit", &FS);
	assert_non_null(strstr(x->title, "cusparse.h and 2 more build files are missing"));
}

static void from_build(void **state)
{
	struct cd_finding *x;

	(void)state;
	assert_null(toolkit_missing_raised(&FS));
	assert_null(toolkit_files_raised(&FS));
	x = toolkit_files_from_build("x.cu:1: fatal error: cusparse.h: No such file", "jit", &FS);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->title,
			    "The test build failed: x.cu:1: fatal error: cusparse.h: No such file");
	assert_ptr_equal(toolkit_files_raised(&FS), x);
	assert_null(toolkit_missing_raised(&FS));
	x = toolkit_missing_from_build("sh: nvcc: not found", "jit", &FS);
	assert_string_equal(x->id, "toolkit-missing");
	assert_ptr_equal(toolkit_missing_raised(&FS), x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(missing_severity_and_titles, setup, teardown),
		cmocka_unit_test_setup_teardown(files_titles, setup, teardown),
		cmocka_unit_test_setup_teardown(from_build, setup, teardown),
	};
	return cmocka_run_group_tests_name("check_toolkit", tests, NULL, NULL);
}
