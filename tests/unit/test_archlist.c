/* Unit tests for format/archlist: TORCH_CUDA_ARCH_LIST as torch's
 * cpp_extension parses it, with the tables of kb/torcharch (the newest
 * release unless a test names one) and with hand-made tables. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "format/archlist.h"
#include "kb/torcharch.h"

static struct archlist_result r;
static struct torcharch_rules tr;

static size_t parse_for(const char *torch, const char *v)
{
	assert_int_equal(torcharch_rules(torch, &tr), 0);
	return archlist_parse((const uint8_t *)v, v ? strlen(v) : 0, &tr.rules, &r);
}

static size_t parse(const char *v)
{
	return parse_for(NULL, v);
}

/* The i-th rejected entry. */
static const struct archlist_entry *bad(size_t i)
{
	size_t k;

	for (k = 0; k < r.n_kept; k++)
		if (!r.entries[k].valid && i-- == 0)
			return &r.entries[k];
	fail_msg("no rejected entry %zu", i);
	return NULL;
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
	/* an environment value ends at its NUL */
	assert_int_equal(archlist_parse((const uint8_t *)"native\0x", 8, &tr.rules, &r), 0);
	assert_true(r.is_auto);
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
	assert_int_equal(parse("9.0a+PTX;12.1"), 0);
	assert_int_equal(r.entries[0].major, 9);
	assert_int_equal(r.entries[0].minor, 0);
	assert_true(r.entries[0].arch_specific);
	assert_true(r.entries[0].ptx);
	assert_int_equal(r.entries[1].major, 12);
	assert_int_equal(r.entries[1].minor, 1);
	assert_false(r.entries[1].ptx);
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
	assert_string_equal(bad(0)->text, "9.0+PTX+PTX");
	assert_string_equal(bad(0)->suggest, "9.0+PTX");
}

static void rejected(void **state)
{
	(void)state;
	assert_int_equal(parse("sm_90"), 1);
	assert_int_equal(bad(0)->kind, ARCHLIST_SPELLING);
	assert_string_equal(bad(0)->suggest, "9.0");
	assert_string_equal(r.first_bad, "sm_90");
	assert_int_equal(parse("90;100a;compute_86;8.6+ptx;9.0A"), 5);
	assert_string_equal(r.fixed, "9.0;10.0a;8.6;8.6+PTX;9.0a");
	assert_int_equal(parse("10.0f;12.0f+PTX"), 2);
	assert_int_equal(bad(0)->kind, ARCHLIST_FAMILY);
	assert_string_equal(bad(1)->suggest, "12.0+PTX");
	assert_int_equal(parse("10.1;10.1a+PTX"), 2);
	assert_int_equal(bad(0)->kind, ARCHLIST_RENAMED);
	assert_string_equal(r.fixed, "11.0;11.0a+PTX");
	assert_int_equal(parse("8.0;"), 1);
	assert_int_equal(bad(0)->kind, ARCHLIST_EMPTY);
	assert_string_equal(r.fixed, "8.0");
	assert_string_equal(r.first_bad, "");
	assert_int_equal(parse("8.0;;8.6"), 1);
	assert_int_equal(parse("8.0  8.6"), 1); /* two blanks: an empty entry */
	assert_int_equal(parse("3.0;8.8;5.1"), 3);
	assert_int_equal(bad(0)->kind, ARCHLIST_UNKNOWN);
	assert_string_equal(bad(0)->suggest, "");
	assert_string_equal(r.fixed, "");
	assert_int_equal(bad(1)->major, 8); /* the numbers of a rejected X.Y too */
	assert_int_equal(parse("8.0,8.6"), 1);
	assert_int_equal(parse("\t8.0"), 1); /* torch turns blanks, not tabs, into ';' */
	assert_string_equal(bad(0)->suggest, "8.0");
	assert_int_equal(parse("9"), 1);
	assert_int_equal(bad(0)->major, -1);
	assert_int_equal(parse("8.6.1"), 1);
	assert_int_equal(parse("+PTX"), 1);
	assert_int_equal(parse(";"), 2);
	assert_int_equal(parse("12345678901234567890123456789012345678901234567890"), 1);
	assert_int_equal(bad(0)->kind, ARCHLIST_UNKNOWN);
}

/* The tables of the installed release decide. */
static void per_release(void **state)
{
	(void)state;
	/* torch 2.8 knows Thor as 10.1, not 11.0; no 12.1 yet */
	assert_int_equal(parse_for("2.8.0+cu128", "10.1;11.0;12.1"), 2);
	assert_int_equal(bad(0)->kind, ARCHLIST_UNKNOWN);
	assert_string_equal(r.fixed, "10.1");
	assert_int_equal(parse_for("2.8.0", "Blackwell"), 0);
	assert_string_equal(r.fixed, "10.0;12.0+PTX");
	assert_int_equal(parse_for("2.8.0", "Blackwell+Tegra"), 0);
	assert_string_equal(r.fixed, "10.1");
	/* torch 2.5 has no Blackwell: the name is left as it is */
	assert_int_equal(parse_for("2.5.1+cu124", "Blackwell;9.0a"), 1);
	assert_string_equal(r.first_bad, "Blackwell");
	assert_int_equal(parse_for("2.5.1", "sm_100"), 1);
	assert_string_equal(bad(0)->suggest, ""); /* 10.0 is not one of its spellings */
	/* torch 2.9 and later: 10.1 is 11.0 */
	assert_int_equal(parse_for("2.11.0+cu130", "10.1+PTX"), 1);
	assert_string_equal(bad(0)->suggest, "11.0+PTX");
}

static void own_tables(void **state)
{
	static const struct archlist_name names[] = {{"Big", "1.0;1.1"}, {"B", "2.0+PTX"}};
	static const char *const arches[] = {"1.0", "1.1", "2.0"};
	static const struct archlist_name renames[] = {{"0.9", "1.0"}};
	static const struct archlist_name huge[] = {{"x", "1.0;1.0;1.0;1.0;1.0"}};
	struct archlist_rules t = {names, 2, arches, 3, renames, 1};
	char *big = malloc(ARCHLIST_MAX_INPUT + 1);

	(void)state;
	assert_int_equal(archlist_parse((const uint8_t *)"Big B 0.9+PTX", 13, &t, &r), 1);
	assert_string_equal(r.fixed, "1.0;1.1;2.0+PTX;1.0+PTX");
	assert_int_equal(bad(0)->kind, ARCHLIST_RENAMED);
	assert_true(archlist_accepts(&t, "1.1+PTX"));
	assert_false(archlist_accepts(&t, "1.1+PTX+PTX"));
	/* names replaced in table order: "B" first would break "Big" */
	t.names = names + 1;
	t.n_names = 1;
	assert_int_equal(archlist_parse((const uint8_t *)"Big", 3, &t, &r), 1);
	assert_string_equal(r.first_bad, "2.0+PTXig");
	/* a table whose names expand past the work buffer: reported, not parsed */
	memset(big, 'x', ARCHLIST_MAX_INPUT);
	t.names = huge;
	assert_int_equal(archlist_parse((const uint8_t *)big, ARCHLIST_MAX_INPUT, &t, &r), 0);
	assert_true(r.too_long);
	/* no tables: nothing is accepted */
	memset(&t, 0, sizeof(t));
	assert_int_equal(archlist_parse((const uint8_t *)"8.0", 3, &t, &r), 1);
	free(big);
}

/* What `jit` reads of each entry: the numbers, "a", "+PTX", the first
 * entry torch rejects. */
static void entries(void **state)
{
	(void)state;
	assert_int_equal(parse("9.0a"), 0);
	assert_int_equal(r.n_kept, 1);
	assert_int_equal(r.entries[0].major, 9);
	assert_true(r.entries[0].arch_specific);
	assert_false(r.entries[0].ptx);
	assert_int_equal(parse("8.0 8.6;9.0+PTX"), 0);
	assert_int_equal(r.n_kept, 3);
	assert_true(r.entries[2].ptx);
	assert_int_equal(parse("Ampere+Tegra;Blackwell"), 0);
	assert_int_equal(r.n_kept, 5);
	assert_string_equal(r.entries[0].text, "8.7");
	assert_string_equal(r.entries[4].text, "12.1+PTX");
	assert_int_equal(r.entries[4].major, 12);
	assert_int_equal(parse("garbage"), 1);
	assert_string_equal(r.first_bad, "garbage");
	assert_int_equal(parse("9.0;"), 1);
	assert_int_equal(r.n_entries, 2);
	assert_int_equal(parse("9.1"), 1);
	assert_int_equal(r.entries[0].minor, 1);
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
	/* Many bad entries: all counted, ARCHLIST_MAX_ENTRIES kept. */
	for (i = 0; i + 4 < ARCHLIST_MAX_INPUT; i += 4)
		memcpy(big + i, "1.1;", 4);
	big[i] = '\0';
	assert_int_equal(parse(big), i / 4 + 1);
	assert_int_equal(r.n_kept, ARCHLIST_MAX_ENTRIES);
	assert_int_equal(r.n_entries, i / 4 + 1);
	/* The longest expansion fits: names only. */
	for (i = 0; i + 10 < ARCHLIST_MAX_INPUT; i += 10)
		memcpy(big + i, "Blackwell;", 10);
	big[i - 1] = '\0';
	assert_int_equal(parse(big), 0);
	assert_false(r.too_long);
	free(big);
	assert_true(archlist_accepts(&tr.rules, "12.0a+PTX"));
	assert_false(archlist_accepts(&tr.rules, "12.0a+PTX+PTX"));
	assert_string_equal(archlist_kind_name(ARCHLIST_FAMILY), "family");
	assert_string_equal(archlist_kind_name(ARCHLIST_RENAMED), "renamed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(automatic),   cmocka_unit_test(accepted),
		cmocka_unit_test(named),       cmocka_unit_test(rejected),
		cmocka_unit_test(per_release), cmocka_unit_test(own_tables),
		cmocka_unit_test(entries),     cmocka_unit_test(limits),
	};
	return cmocka_run_group_tests_name("archlist", tests, NULL, NULL);
}
