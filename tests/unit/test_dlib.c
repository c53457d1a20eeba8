/* Unit tests for src/probe/dlib: loading by name, binding a symbol table
 * with fallbacks and required entries, and the file-name helpers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "probe/dlib.h"

static void load_and_bind(void **state)
{
	static const struct dlib_sym t[] = {
		{"cos", NULL, 1},
		{"cd_no_such_function", "sin", 0}, /* fallback used */
		{"cd_no_such_function", NULL, 0},  /* optional, absent */
		{"cd_required_absent", NULL, 1},
	};
	void *fn[4];
	const char *missing;
	struct dlib d;

	(void)state;
	assert_int_equal(dlib_open(&d, "libm.so.6"), 0);
	assert_true(strstr(d.loaded_as, "libm.so.6") != NULL);
	assert_int_equal(d.path[0], '/'); /* the realpath of the file loaded */
	assert_int_equal(dlib_bind(&d, t, 3, fn, &missing), 0);
	assert_null(missing);
	assert_non_null(fn[0]);
	assert_non_null(fn[1]);
	assert_null(fn[2]);
	assert_int_equal(dlib_bind(&d, t, 4, fn, &missing), -1);
	assert_string_equal(missing, "cd_required_absent");
}

static void load_failure(void **state)
{
	struct dlib d;

	(void)state;
	assert_int_equal(dlib_open(&d, "libcd-does-not-exist.so.1"), -1);
	assert_non_null(strstr(d.error, "libcd-does-not-exist.so.1"));
	assert_null(d.handle);
}

static void file_versions(void **state)
{
	char v[32];

	(void)state;
	assert_int_equal(
		dlib_file_version("/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04", v, sizeof(v)),
		0);
	assert_string_equal(v, "580.159.04");
	assert_int_equal(dlib_file_version("libnvidia-ml.so.470.42", v, sizeof(v)), 0);
	assert_string_equal(v, "470.42");
	assert_int_equal(dlib_file_version("/lib/libcuda.so.1", v, sizeof(v)), -1);
	assert_int_equal(dlib_file_version("/usr/lib/wsl/lib/libcuda.so.1.1", v, sizeof(v)), -1);
	assert_int_equal(dlib_file_version("/x/libcuda.so", v, sizeof(v)), -1);
	assert_int_equal(dlib_file_version("/x/libcuda.so.580..1", v, sizeof(v)), -1);
	assert_int_equal(dlib_file_version("/x/libcuda.so.580.1.", v, sizeof(v)), -1);
	assert_int_equal(dlib_file_version("/x/libcuda.so.580.1a", v, sizeof(v)), -1);
	assert_int_equal(dlib_file_version("/x.so.1/libfoo", v, sizeof(v)), -1);
	assert_int_equal(dlib_file_version("/x/libcuda.so.580.159.04", v, 5), -1); /* too small */
}

static void stub_paths(void **state)
{
	(void)state;
	assert_true(dlib_is_stub_path("/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/"
				      "libcuda.so"));
	assert_false(dlib_is_stub_path("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
	assert_false(dlib_is_stub_path("/opt/stubsy/libcuda.so.1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(load_and_bind),
		cmocka_unit_test(load_failure),
		cmocka_unit_test(file_versions),
		cmocka_unit_test(stub_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
