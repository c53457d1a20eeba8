/* Unit tests for format/dfword: BuildKit's word processing (quotes, escapes,
 * $VAR and ${VAR...} forms), the raw splitter and the glob. Expected values
 * follow moby/buildkit frontend/dockerfile/shell/lex.go. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "format/dfword.h"

static struct dfenv env;
static char out[4096];

static int ex(const char *in, unsigned flags, unsigned *met)
{
	struct dfword_opts o = {'\\', &env, flags};
	struct cd_buf b;
	struct cd_err e = {0};
	int rc;

	buf_init(&b, 0);
	rc = dfword_expand(in, strlen(in), &o, &b, met, &e);
	snprintf(out, sizeof(out), "%s", b.p ? b.p : "");
	buf_free(&b);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	dfenv_init(&env);
	assert_int_equal(dfenv_set(&env, "CUDA", "12.4.1"), 0);
	assert_int_equal(dfenv_set(&env, "EMPTY", ""), 0);
	assert_int_equal(dfenv_set(&env, "PATHV", "/usr/local/cuda/bin:/usr/bin"), 0);
	assert_int_equal(dfenv_set(&env, "SPACED", "a b"), 0);
	return 0;
}

static void plain_and_braces(void **state)
{
	unsigned met;

	(void)state;
	assert_int_equal(ex("nvidia/cuda:${CUDA}-devel", 0, &met), 0);
	assert_string_equal(out, "nvidia/cuda:12.4.1-devel");
	assert_int_equal(met, 0);
	assert_int_equal(ex("$CUDA-x", 0, NULL), 0);
	assert_string_equal(out, "12.4.1-x");
	assert_int_equal(ex("$NOPE:$CUDA", 0, &met), 0);
	assert_string_equal(out, ":12.4.1");
	assert_true(met & DFWORD_UNSET);
	assert_int_equal(ex("a$", 0, NULL), 0); /* a lone $ stays */
	assert_string_equal(out, "a$");
	assert_int_equal(ex("$1x", 0, NULL), 0); /* positional: digits only */
	assert_string_equal(out, "x");
}

static void modifiers(void **state)
{
	(void)state;
	assert_int_equal(ex("${NOPE:-11.8.0}", 0, NULL), 0);
	assert_string_equal(out, "11.8.0");
	assert_int_equal(ex("${EMPTY:-d}", 0, NULL), 0); /* ':' treats empty as unset */
	assert_string_equal(out, "d");
	assert_int_equal(ex("${EMPTY-d}", 0, NULL), 0); /* without ':' only unset counts */
	assert_string_equal(out, "");
	assert_int_equal(ex("${CUDA:+set}", 0, NULL), 0);
	assert_string_equal(out, "set");
	assert_int_equal(ex("${NOPE+set}", 0, NULL), 0);
	assert_string_equal(out, "");
	assert_int_equal(ex("${NOPE:-${ALSO:-$CUDA}}", 0, NULL), 0); /* nested */
	assert_string_equal(out, "12.4.1");
	assert_int_equal(ex("${NOPE:?must be set}", 0, NULL), CD_EFORMAT);
	assert_int_equal(ex("${CUDA?x}", 0, NULL), 0);
	assert_string_equal(out, "12.4.1");
}

static void patterns(void **state)
{
	(void)state;
	assert_int_equal(ex("${CUDA%.*}", 0, NULL), 0); /* shortest suffix */
	assert_string_equal(out, "12.4");
	assert_int_equal(ex("${CUDA%%.*}", 0, NULL), 0); /* longest suffix */
	assert_string_equal(out, "12");
	assert_int_equal(ex("${CUDA#*.}", 0, NULL), 0);
	assert_string_equal(out, "4.1");
	assert_int_equal(ex("${CUDA##*.}", 0, NULL), 0);
	assert_string_equal(out, "1");
	assert_int_equal(ex("${CUDA/./}", 0, NULL), 0);
	assert_string_equal(out, "124.1");
	assert_int_equal(ex("${CUDA//./}", 0, NULL), 0);
	assert_string_equal(out, "1241");
	assert_int_equal(ex("${PATHV//:/ }", 0, NULL), 0);
	assert_string_equal(out, "/usr/local/cuda/bin /usr/bin");
	assert_int_equal(ex("${CUDA:%x}", 0, NULL), CD_EFORMAT); /* ':' with % is refused */
}

static void quotes_and_escapes(void **state)
{
	unsigned met;

	(void)state;
	assert_int_equal(ex("'$CUDA'", 0, &met), 0); /* single quotes: literal */
	assert_string_equal(out, "$CUDA");
	assert_true(met & DFWORD_QUOTED);
	assert_int_equal(ex("\"v=$CUDA\"", 0, NULL), 0);
	assert_string_equal(out, "v=12.4.1");
	assert_int_equal(ex("\\$CUDA", 0, NULL), 0);
	assert_string_equal(out, "$CUDA");
	assert_int_equal(ex("\"a\\\"b\\x\"", 0, NULL), 0); /* \x stays in double quotes */
	assert_string_equal(out, "a\"b\\x");
	assert_int_equal(ex("\"open", 0, NULL), CD_EFORMAT);
	assert_int_equal(ex("'open", 0, NULL), CD_EFORMAT);
	assert_int_equal(ex("${", 0, NULL), CD_EFORMAT);
	assert_int_equal(ex("${:x}", 0, NULL), CD_EFORMAT);
	assert_int_equal(ex("${CUDA", 0, NULL), CD_EFORMAT);
}

static void raw_mode(void **state)
{
	(void)state;
	/* RUN text for a shell: quotes kept, single-quoted text untouched, an
	 * unset variable left for the shell (it may come from the base image). */
	assert_int_equal(ex("pip install 'torch==$CUDA' \"x==$CUDA\" $HOME",
			    DFWORD_RAW | DFWORD_KEEP_UNSET, NULL),
			 0);
	assert_string_equal(out, "pip install 'torch==$CUDA' \"x==12.4.1\" $HOME");
	assert_int_equal(ex("a \\\n b ${NOPE:-x}", DFWORD_RAW | DFWORD_KEEP_UNSET, NULL), 0);
	assert_string_equal(out, "a \\\n b ${NOPE:-x}");
	/* the shell's ${#VAR} is not BuildKit's: kept, and the rest still expanded */
	assert_int_equal(ex("[ ${#CUDA} -gt 0 ] && v=$CUDA", DFWORD_RAW | DFWORD_KEEP_UNSET, NULL),
			 0);
	assert_string_equal(out, "[ ${#CUDA} -gt 0 ] && v=12.4.1");
	assert_int_equal(ex("${#CUDA}", 0, NULL),
			 CD_EFORMAT); /* a word of an instruction: refused */
}

static void backtick_escape(void **state)
{
	struct dfword_opts o = {'`', &env, 0};
	struct cd_buf b;
	struct cd_err e = {0};

	(void)state;
	buf_init(&b, 0);
	assert_int_equal(dfword_expand("C:\\dir`$x", 9, &o, &b, NULL, &e), 0);
	assert_string_equal(b.p, "C:\\dir$x");
	buf_free(&b);
}

static void cap_and_depth(void **state)
{
	struct dfenv big;
	static char v[40000];
	char deep[512] = "";
	int i;

	(void)state;
	memset(v, 'x', sizeof(v) - 1);
	dfenv_init(&big);
	assert_int_equal(dfenv_set(&big, "V", v), 0);
	{
		struct dfword_opts o = {'\\', &big, 0};
		struct cd_buf b;
		struct cd_err e = {0};
		buf_init(&b, 0);
		assert_int_equal(dfword_expand("$V$V", 4, &o, &b, NULL, &e), CD_ENOMEM);
		buf_free(&b);
	}
	size_t k = 0;
	for (i = 0; i < 20; i++)
		k += (size_t)snprintf(deep + k, sizeof(deep) - k, "${A:-");
	k += (size_t)snprintf(deep + k, sizeof(deep) - k, "x");
	for (i = 0; i < 20; i++)
		k += (size_t)snprintf(deep + k, sizeof(deep) - k, "}");
	assert_int_equal(ex(deep, 0, NULL), CD_EFORMAT);
}

static void env_table(void **state)
{
	struct dfenv e;
	int i;
	static char names[DFENV_MAX + 1][8];

	(void)state;
	dfenv_init(&e);
	for (i = 0; i < DFENV_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "V%d", i);
		assert_int_equal(dfenv_set(&e, names[i], "1"), 0);
	}
	assert_int_equal(dfenv_set(&e, "MORE", "1"), CD_ENOMEM);
	assert_int_equal(dfenv_set(&e, "V3", "2"), 0); /* replacing still works */
	assert_string_equal(dfenv_get(&e, "V3"), "2");
	assert_null(dfenv_get(&e, "MORE"));
	assert_null(dfenv_get(NULL, "V3"));
}

static void splitter(void **state)
{
	const char *s = "  a=\"b c\" 'd e' f\\ g  ";
	size_t pos = 0, ws, we;

	(void)state;
	assert_int_equal(dfword_next(s, strlen(s), '\\', &pos, &ws, &we), 1);
	assert_int_equal(we - ws, 7);
	assert_memory_equal(s + ws, "a=\"b c\"", 7);
	assert_int_equal(dfword_next(s, strlen(s), '\\', &pos, &ws, &we), 1);
	assert_memory_equal(s + ws, "'d e'", 5);
	assert_int_equal(dfword_next(s, strlen(s), '\\', &pos, &ws, &we), 1);
	assert_memory_equal(s + ws, "f\\ g", 4);
	assert_int_equal(dfword_next(s, strlen(s), '\\', &pos, &ws, &we), 0);
}

static void glob(void **state)
{
	(void)state;
	assert_true(dfword_glob("cu*", 3, "cu121", 5));
	assert_false(dfword_glob("cu*", 3, "cpu", 3));
	assert_true(dfword_glob("1?.?", 4, "12.4", 4));
	assert_true(dfword_glob("[0-9]*", 6, "7x", 2));
	assert_false(dfword_glob("[!0-9]*", 7, "7x", 2));
	assert_true(dfword_glob("a\\*", 3, "a*", 2));
	assert_false(dfword_glob("a\\*", 3, "ab", 2));
	assert_true(dfword_glob("*", 1, "", 0));
	assert_true(dfword_glob("[x", 2, "[x", 2)); /* an unclosed bracket is literal */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(plain_and_braces, setup),
		cmocka_unit_test_setup(modifiers, setup),
		cmocka_unit_test_setup(patterns, setup),
		cmocka_unit_test_setup(quotes_and_escapes, setup),
		cmocka_unit_test_setup(raw_mode, setup),
		cmocka_unit_test_setup(backtick_escape, setup),
		cmocka_unit_test_setup(cap_and_depth, setup),
		cmocka_unit_test(env_table),
		cmocka_unit_test(splitter),
		cmocka_unit_test(glob),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
