/* Unit tests for format/archlist: TORCH_CUDA_ARCH_LIST as torch 2.11's
 * cpp_extension parses it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "format/archlist.h"

static struct archlist_result r;

static size_t parse(const char *v)
{
	return archlist_parse(v, v ? strlen(v) : 0, &r);
}

static void automatic(void **state)
{
	(void)state;
	assert_int_equal(parse(NULL), 0);
	assert_true(r.is_auto);
	assert_int_equal(parse(""), 0);
	assert_true(r.is_auto);
	assert_int_equal(parse("native"), 0);
	assert_true(r.is_auto);
	assert_int_equal(parse("Native"), 1); /* only the exact word */
}

static void accepted(void **state)
{
	static const char *const ok[] = {
		"8.0;8.6;9.0", "8.0 8.6+PTX",
		"9.0a",	       "9.0a+PTX",
		"12.1a",       "10.3",
		"11.0a+PTX",   "3.5;3.7;5.0;5.2;5.3;6.0;6.1;6.2;7.0;7.2;7.5",
		"8.7;8.9",     "10.0a;12.0a",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(parse(ok[i]), 0);
		assert_false(r.is_auto);
	}
	assert_int_equal(parse("8.0;8.6;9.0"), 0);
	assert_int_equal(r.n_entries, 3);
	assert_string_equal(r.fixed, "8.0;8.6;9.0");
}

static void named(void **state)
{
	(void)state;
	assert_int_equal(parse("Ampere"), 0);
	assert_string_equal(r.fixed, "8.0;8.6+PTX");
	assert_int_equal(parse("Ampere+Tegra"), 0); /* replaced before "Ampere" */
	assert_string_equal(r.fixed, "8.7");
	assert_int_equal(parse("Volta+Tegra;Turing"), 0);
	assert_string_equal(r.fixed, "7.2;7.5+PTX");
	assert_int_equal(parse("Blackwell"), 0);
	assert_int_equal(r.n_entries, 4);
	assert_int_equal(parse("Blackwell+Tegra"), 0);
	assert_string_equal(r.fixed, "11.0");
	assert_int_equal(parse("Kepler+Tesla Maxwell"), 0);
	assert_string_equal(r.fixed, "3.7;5.0;5.2+PTX");
	/* A name with +PTX doubles the suffix: torch rejects it. */
	assert_int_equal(parse("Hopper+PTX"), 1);
	assert_string_equal(r.bad[0].entry, "9.0+PTX+PTX");
	assert_string_equal(r.bad[0].suggest, "9.0+PTX");
}

static void rejected(void **state)
{
	(void)state;
	assert_int_equal(parse("sm_90"), 1);
	assert_int_equal(r.bad[0].kind, ARCHLIST_SPELLING);
	assert_string_equal(r.bad[0].suggest, "9.0");
	assert_int_equal(parse("90;100a;compute_86;8.6+ptx;9.0A"), 5);
	assert_string_equal(r.fixed, "9.0;10.0a;8.6;8.6+PTX;9.0a");
	assert_int_equal(parse("10.0f;12.0f+PTX"), 2);
	assert_int_equal(r.bad[0].kind, ARCHLIST_FAMILY);
	assert_string_equal(r.bad[1].suggest, "12.0+PTX");
	assert_int_equal(parse("10.1;10.1a+PTX"), 2);
	assert_int_equal(r.bad[0].kind, ARCHLIST_LEGACY);
	assert_string_equal(r.fixed, "11.0;11.0a+PTX");
	assert_int_equal(parse("8.0;"), 1);
	assert_int_equal(r.bad[0].kind, ARCHLIST_EMPTY);
	assert_string_equal(r.fixed, "8.0");
	assert_int_equal(parse("8.0;;8.6"), 1);
	assert_int_equal(parse("8.0  8.6"), 1); /* two blanks: an empty entry */
	assert_int_equal(parse("3.0;8.8;5.1"), 3);
	assert_int_equal(r.bad[0].kind, ARCHLIST_UNKNOWN);
	assert_string_equal(r.bad[0].suggest, "");
	assert_string_equal(r.fixed, "");
	assert_int_equal(parse("8.0,8.6"), 1);
	assert_int_equal(parse("\t8.0"), 1); /* torch turns blanks, not tabs, into ';' */
	assert_string_equal(r.bad[0].suggest, "8.0");
	assert_int_equal(parse("9"), 1);
	assert_int_equal(parse("8.6.1"), 1);
	assert_int_equal(parse("+PTX"), 1);
	assert_int_equal(parse(";"), 2);
}

static void limits(void **state)
{
	char *big = malloc(ARCHLIST_MAX_INPUT + 2);
	size_t i;

	(void)state;
	memset(big, 'x', ARCHLIST_MAX_INPUT + 1);
	big[ARCHLIST_MAX_INPUT + 1] = '\0';
	assert_int_equal(parse(big), 0);
	assert_true(r.too_long);
	/* Many bad entries: all counted, ARCHLIST_MAX_BAD kept. */
	for (i = 0; i + 4 < ARCHLIST_MAX_INPUT; i += 4)
		memcpy(big + i, "1.1;", 4);
	big[i] = '\0';
	assert_int_equal(parse(big), i / 4 + 1);
	assert_int_equal(r.n_bad_kept, ARCHLIST_MAX_BAD);
	/* The longest expansion fits: names only. */
	for (i = 0; i + 10 < ARCHLIST_MAX_INPUT; i += 10)
		memcpy(big + i, "Blackwell;", 10);
	big[i - 1] = '\0';
	assert_int_equal(parse(big), 0);
	assert_false(r.too_long);
	free(big);
	assert_true(archlist_valid("12.0a+PTX"));
	assert_false(archlist_valid("12.0a+PTX+PTX"));
	assert_string_equal(archlist_kind_name(ARCHLIST_FAMILY), "family");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(automatic), cmocka_unit_test(accepted), cmocka_unit_test(named),
		cmocka_unit_test(rejected),  cmocka_unit_test(limits),
	};
	return cmocka_run_group_tests_name("archlist", tests, NULL, NULL);
}
