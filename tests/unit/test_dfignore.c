/* Unit tests for format/dfignore: hadolint's pragma grammar with
 * cuda-doctor's ids, the comments it is not, and "all". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "format/dfignore.h"

static int parse(struct cd_arena *a, const char *s, struct dfignore *ig)
{
	return dfignore_parse(s, strlen(s), a, ig);
}

static void grammar(void **state)
{
	struct cd_arena a;
	struct dfignore ig;

	(void)state;
	arena_init(&a);
	assert_int_equal(parse(&a, "# cuda-doctor ignore=dockerfile-tag-unpinned", &ig), 1);
	assert_false(ig.global);
	assert_int_equal(ig.n, 1);
	assert_string_equal(ig.ids[0], "dockerfile-tag-unpinned");
	assert_int_equal(parse(&a, "#\tcuda-doctor  global  ignore = a ,b,  c # why: pinned", &ig),
			 1);
	assert_true(ig.global);
	assert_int_equal(ig.n, 3);
	assert_string_equal(ig.ids[1], "b");
	assert_string_equal(ig.ids[2], "c");
	assert_int_equal(parse(&a, "# cuda-doctor ignore=a#why", &ig), 1);
	assert_int_equal(ig.n, 1);
	assert_string_equal(ig.ids[0], "a");
	assert_int_equal(parse(&a, "# cuda-doctor ignore=", &ig), 1); /* no ids: nothing ignored */
	assert_int_equal(ig.n, 0);
	arena_free(&a);
}

static void not_pragmas(void **state)
{
	static const char *const no[] = {
		"# a comment",
		"# hadolint ignore=DL3006",	/* hadolint's own, not ours */
		"# cuda-doctorignore=a",	/* hadolint needs a blank after the name */
		"# cuda-doctor globalignore=a", /* and after global */
		"# cuda-doctor ignores=a",	/* not the keyword */
		"# cuda-doctor ignore a",	/* no = */
		"cuda-doctor ignore=a",		/* not a comment */
		"",
	};
	struct cd_arena a;
	struct dfignore ig;
	size_t i;

	(void)state;
	arena_init(&a);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(parse(&a, no[i], &ig), 0);
	arena_free(&a);
}

static void has(void **state)
{
	static const char *const ids[] = {"x", "y"};
	static const char *const all[] = {"all"};

	(void)state;
	assert_true(dfignore_has(ids, 2, "y"));
	assert_false(dfignore_has(ids, 2, "z"));
	assert_false(dfignore_has(ids, 1, "y"));
	assert_true(dfignore_has(all, 1, "anything"));
	assert_false(dfignore_has(NULL, 0, "x"));
}

static void capped(void **state)
{
	char line[2048];
	struct cd_arena a;
	struct dfignore ig;
	size_t k, i;

	(void)state;
	arena_init(&a);
	k = (size_t)snprintf(line, sizeof(line), "# cuda-doctor ignore=");
	for (i = 0; i < DFIGNORE_IDS_MAX + 8; i++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, "id%zu,", i);
	assert_int_equal(parse(&a, line, &ig), 1);
	assert_int_equal(ig.n, DFIGNORE_IDS_MAX);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grammar),
		cmocka_unit_test(not_pragmas),
		cmocka_unit_test(has),
		cmocka_unit_test(capped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
