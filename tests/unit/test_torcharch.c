/* Unit tests for kb/torcharch: torch's TORCH_CUDA_ARCH_LIST tables per
 * release (data/torch_arch_names.tsv, data/torch_arch_list.tsv). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "kb/torcharch.h"

static struct torcharch_rules R;

static int has_name(const char *name, const char *value)
{
	size_t i;

	for (i = 0; i < R.rules.n_names; i++)
		if (!strcmp(R.names[i].name, name))
			return !strcmp(R.names[i].value, value);
	return 0;
}

static size_t name_index(const char *name)
{
	size_t i;

	for (i = 0; i < R.rules.n_names; i++)
		if (!strcmp(R.names[i].name, name))
			return i;
	return (size_t)-1;
}

static void newest(void **state)
{
	(void)state;
	assert_int_equal(torcharch_rules(NULL, &R), 0);
	assert_true(R.newest);
	assert_string_equal(R.release, "2.9");
	assert_true(archlist_accepts(&R.rules, "11.0a+PTX"));
	assert_true(archlist_accepts(&R.rules, "12.1"));
	assert_true(archlist_accepts(&R.rules, "3.5"));
	assert_false(archlist_accepts(&R.rules, "10.1"));
	assert_false(archlist_accepts(&R.rules, "8.8"));
	assert_int_equal(R.rules.n_arches, 27); /* supported_arches of torch 2.11 */
	assert_int_equal(R.rules.n_names, 14);
	assert_true(has_name("Blackwell", "10.0;10.3;12.0;12.1+PTX"));
	assert_true(has_name("Blackwell+Tegra", "11.0"));
	/* combined names before the single one they contain */
	assert_true(name_index("Ampere+Tegra") < name_index("Ampere"));
	assert_true(name_index("Blackwell+Tegra") < name_index("Blackwell"));
	assert_true(name_index("Kepler+Tesla") < name_index("Kepler"));
	/* the old Thor name, renamed by CUDA 13 */
	assert_int_equal(R.rules.n_renames, 2);
	assert_string_equal(R.renames[0].name, "10.1");
	assert_string_equal(R.renames[0].value, "11.0");
	/* an unparsable version is treated as unknown */
	assert_int_equal(torcharch_rules("garbage", &R), 0);
	assert_true(R.newest);
	assert_int_equal(torcharch_rules("2.11.0+cu130", &R), 0);
	assert_false(R.newest);
	assert_string_equal(R.release, "2.11");
	assert_int_equal(R.rules.n_arches, 27);
}

static void releases(void **state)
{
	(void)state;
	/* 2.7 and 2.8: Thor is 10.1, no 10.3 / 12.1 yet */
	assert_int_equal(torcharch_rules("2.8.0+cu128", &R), 0);
	assert_string_equal(R.release, "2.8");
	assert_true(archlist_accepts(&R.rules, "10.1a"));
	assert_false(archlist_accepts(&R.rules, "11.0"));
	assert_false(archlist_accepts(&R.rules, "12.1"));
	assert_true(has_name("Blackwell", "10.0;12.0+PTX"));
	assert_true(has_name("Blackwell+Tegra", "10.1"));
	assert_int_equal(R.rules.n_renames, 0);
	/* 2.5: Hopper with 9.0a, no Blackwell */
	assert_int_equal(torcharch_rules("2.5.1+cu124", &R), 0);
	assert_true(archlist_accepts(&R.rules, "9.0a"));
	assert_false(archlist_accepts(&R.rules, "10.0"));
	assert_int_equal(name_index("Blackwell"), (size_t)-1);
	assert_true(has_name("Hopper", "9.0+PTX"));
	/* 2.1: no 9.0a (pytorch/pytorch#110587 came after it) */
	assert_int_equal(torcharch_rules("2.1.2", &R), 0);
	assert_false(archlist_accepts(&R.rules, "9.0a"));
	assert_true(archlist_accepts(&R.rules, "9.0"));
	/* 1.13: no Ada, no Hopper */
	assert_int_equal(torcharch_rules("1.13.1+cu117", &R), 0);
	assert_false(archlist_accepts(&R.rules, "9.0"));
	assert_false(archlist_accepts(&R.rules, "8.9"));
	assert_true(archlist_accepts(&R.rules, "8.6+PTX"));
	assert_true(has_name("Ampere", "8.0;8.6+PTX"));
	/* 1.6: Ampere is 8.0 alone */
	assert_int_equal(torcharch_rules("1.6.0", &R), 0);
	assert_true(has_name("Ampere", "8.0+PTX"));
	assert_false(archlist_accepts(&R.rules, "8.6"));
	/* 1.2 and older did not read TORCH_CUDA_ARCH_LIST in cpp_extension */
	assert_int_equal(torcharch_rules("1.2.0", &R), CD_ENOENT);
	assert_int_equal(torcharch_rules("0.4.1", &R), CD_ENOENT);
}

static void spans(void **state)
{
	struct torcharch_span s;

	(void)state;
	assert_int_equal(torcharch_span("10.1", &s), 0);
	assert_string_equal(s.first, "2.7");
	assert_string_equal(s.last, "2.8");
	assert_string_equal(s.renamed_to, "11.0");
	assert_string_equal(s.notes, "CUDA 13 renamed sm_101 to sm_110");
	assert_non_null(strstr(s.source, "156176"));
	assert_int_equal(torcharch_span("12.0", &s), 0);
	assert_string_equal(s.first, "2.7");
	assert_string_equal(s.last, "");
	assert_string_equal(s.renamed_to, "");
	assert_int_equal(torcharch_span("8.8", &s), CD_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(newest),
		cmocka_unit_test(releases),
		cmocka_unit_test(spans),
	};
	return cmocka_run_group_tests_name("torcharch", tests, NULL, NULL);
}
