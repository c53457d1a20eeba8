/* Unit tests for format/shcmd: the simple commands of RUN lines and
 * heredoc scripts as a reader sees them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/shcmd.h"

static struct cd_arena arena;
static struct sh_script sc;

static int split(const char *s)
{
	struct cd_err e = {0};

	return shcmd_split(s, strlen(s), &arena, &sc, &e);
}

static int setup(void **state)
{
	(void)state;
	arena_init(&arena);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	arena_free(&arena);
	return 0;
}

static void lists_and_quotes(void **state)
{
	(void)state;
	assert_int_equal(split("apt-get update && apt-get install -y 'python3-pip' \\\n"
			       "  && pip install \"torch==2.3.1\" --index-url https://x/whl/cu121;"
			       "echo a|grep b || true & wait"),
			 0);
	assert_int_equal(sc.n, 7);
	assert_int_equal(sc.cmds[1].argc, 4);
	assert_string_equal(sc.cmds[1].argv[3], "python3-pip");
	assert_int_equal(sc.cmds[2].argc, 5);
	assert_string_equal(sc.cmds[2].argv[2], "torch==2.3.1");
	assert_string_equal(sc.cmds[3].argv[0], "echo");
	assert_string_equal(sc.cmds[4].argv[0], "grep");
	assert_string_equal(sc.cmds[5].argv[0], "true");
	assert_string_equal(sc.cmds[6].argv[0], "wait");
	/* what joins each command to the one before */
	assert_int_equal(sc.cmds[0].after, 0);
	assert_int_equal(sc.cmds[1].after, '&');
	assert_int_equal(sc.cmds[3].after, ';');
	assert_int_equal(sc.cmds[4].after, 'p');
	assert_int_equal(sc.cmds[5].after, '|');
	assert_int_equal(sc.cmds[6].after, ';');
}

static void assignments_and_redirections(void **state)
{
	(void)state;
	assert_int_equal(
		split("TORCH_CUDA_ARCH_LIST=\"8.0 9.0\" MAX_JOBS=4 python setup.py install "
		      ">/tmp/log 2>&1\nX='a=b' cmd <in"),
		0);
	assert_int_equal(sc.n, 2);
	assert_int_equal(sc.cmds[0].n_assign, 2);
	assert_string_equal(sc.cmds[0].assign[0], "TORCH_CUDA_ARCH_LIST=8.0 9.0");
	assert_int_equal(sc.cmds[0].argc, 3); /* the redirections are gone */
	assert_string_equal(sc.cmds[0].argv[2], "install");
	assert_int_equal(sc.cmds[1].n_assign, 1);
	assert_int_equal(sc.cmds[1].argc, 1);
	assert_int_equal(split("echo \"a=b\" c=d"), 0); /* only leading words assign */
	assert_int_equal(sc.cmds[0].n_assign, 0);
	assert_int_equal(sc.cmds[0].argc, 3);
	assert_int_equal(split("'A=1' cmd"), 0); /* quoted: a command word */
	assert_int_equal(sc.cmds[0].n_assign, 0);
}

static void control_and_comments(void **state)
{
	(void)state;
	assert_int_equal(
		split("# setup\nif [ -f x ]; then pip install a; else conda install b; fi\n"
		      "for f in a b; do ldconfig; done\n"
		      "case ${TARGETPLATFORM} in \"linux/arm64\") pip install c ;; esac"),
		0);
	/* [ -f x ], pip, conda, ldconfig, "linux/arm64", pip c */
	assert_string_equal(sc.cmds[0].argv[0], "[");
	assert_string_equal(sc.cmds[1].argv[0], "pip");
	assert_string_equal(sc.cmds[2].argv[0], "conda");
	assert_string_equal(sc.cmds[3].argv[0], "ldconfig");
	assert_string_equal(sc.cmds[sc.n - 1].argv[0], "pip");
	assert_string_equal(sc.cmds[sc.n - 1].argv[2], "c");
}

static void nested_shells(void **state)
{
	size_t i, pips = 0;

	(void)state;
	assert_int_equal(split("/bin/bash -o pipefail -ec \"pip install x && nvcc --version\""), 0);
	assert_int_equal(sc.n, 3);
	assert_false(sc.cmds[0].nested);
	assert_true(sc.cmds[1].nested);
	assert_string_equal(sc.cmds[2].argv[0], "nvcc");
	assert_int_equal(split("sh -c 'sh -c \"sh -c \\\"sh -c \\\\\\\"sh -c pip\\\\\\\"\\\"\"'"),
			 0);
	for (i = 0; i < sc.n; i++)
		pips += !strcmp(sc.cmds[i].argv[0], "pip");
	assert_int_equal(pips, 0); /* deeper than SHCMD_DEPTH is not read */
}

static void substitutions(void **state)
{
	(void)state;
	assert_int_equal(split("export CUDA_HOME=$(dirname $(dirname $(which nvcc))) && "
			       "echo `date; x`"),
			 0);
	assert_int_equal(sc.n, 2);
	assert_string_equal(sc.cmds[0].argv[1], "CUDA_HOME=$(dirname $(dirname $(which nvcc)))");
	assert_string_equal(sc.cmds[1].argv[1], "`date; x`");
}

static void caps(void **state)
{
	static char big[SHCMD_MAX * 3 + 8];
	size_t i;

	(void)state;
	for (i = 0; i + 3 < sizeof(big) && i / 2 <= SHCMD_MAX; i += 2)
		memcpy(big + i, "a;", 2);
	big[i] = '\0';
	assert_int_equal(split(big), CD_ERANGE);
	assert_int_equal(split(""), 0);
	assert_int_equal(sc.n, 0);
	assert_int_equal(split("\"unterminated"), 0);
	assert_int_equal(sc.n, 1);
	{
		char nul[] = {'a', 0, '"', 'b'};
		struct cd_err e = {0};
		assert_int_equal(shcmd_split(nul, sizeof(nul), &arena, &sc, &e), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lists_and_quotes, setup, teardown),
		cmocka_unit_test_setup_teardown(assignments_and_redirections, setup, teardown),
		cmocka_unit_test_setup_teardown(control_and_comments, setup, teardown),
		cmocka_unit_test_setup_teardown(nested_shells, setup, teardown),
		cmocka_unit_test_setup_teardown(substitutions, setup, teardown),
		cmocka_unit_test_setup_teardown(caps, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
