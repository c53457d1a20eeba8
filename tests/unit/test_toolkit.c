/* Unit tests for probe/toolkit: headers asked about besides the inventory
 * (toolkit_probe_headers, what explain asks for the headers a log names),
 * found in a toolkit's include directories by the inventory's rule, and
 * names that would climb out of them refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/opts.h"
#include "kb/devfiles.h"
#include "probe/toolkit/tkscan.h"
#include "probe/toolkit/toolkit.h"

static char g_dir[64];

/* Create ROOT/rel and its parents; a name ending in '/' is a directory. */
static void make(const char *rel)
{
	char p[512];
	size_t i;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", g_dir, rel);
	for (i = strlen(g_dir) + 1; p[i]; i++)
		if (p[i] == '/') {
			p[i] = '\0';
			mkdir(p, 0755);
			p[i] = '/';
		}
	if (p[strlen(p) - 1] == '/')
		return;
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
}

#define SITE "opt/venv/lib/python3.12/site-packages"

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/cd-toolkit-XXXXXX");
	if (!mkdtemp(g_dir))
		return -1;
	make("usr/local/cuda-12.4/include/cub/cub.cuh");
	make("usr/local/cuda-12.4/include/cusparse.h");
	make("usr/local/cuda-12.4/targets/x86_64-linux/include/cuda_bf16.h");
	make("usr/local/cuda-12.4/cuda_bf16.h"); /* not an include directory */
	make(SITE "/nvidia/cusparse/include/cusparse_extra.h");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", g_dir);
	return system(cmd);
}

static const struct cd_toolkit *by_root(const struct cd_facts *f, const char *root)
{
	size_t i;

	for (i = 0; i < f->toolkit.n; i++)
		if (!strcmp(f->toolkit.items[i].root, root))
			return &f->toolkit.items[i];
	fail_msg("no toolkit %s", root);
	return NULL;
}

static void asked_headers(void **state)
{
	static const char *const names[] = {
		"cub/cub.cuh",
		"cuda_bf16.h",
		"cusparse_extra.h",
		"nope.h",
		"a..b.h",
		"../include/cusparse.h",
		"cub/../cusparse.h",
		"/etc/passwd",
		"",
	};
	char *envp[] = {(char *)"VIRTUAL_ENV=/opt/venv", NULL};
	const struct cd_toolkit *t, *w;
	const struct cd_header *h;
	struct cd_opts o;
	struct cd_facts f;
	size_t i;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.envp = envp;
	facts_init(&f, &o);
	assert_int_equal(root_init(&f.root, g_dir, NULL), 0);
	toolkit_probe(&f);
	t = by_root(&f, "/usr/local/cuda-12.4");
	w = by_root(&f, "/opt/venv/lib/python3.12/site-packages/nvidia");
	assert_null(t->asked); /* nothing asked yet */
	toolkit_probe_headers(&f, names, sizeof(names) / sizeof(names[0]));
	assert_int_equal(t->n_asked, sizeof(names) / sizeof(names[0]));
	assert_int_equal(t->n_headers, devfiles_count()); /* the inventory is its own */
	h = t->asked;
	assert_string_equal(h[0].name, "cub/cub.cuh");
	assert_int_equal(h[0].present, CD_TRI_YES);
	assert_string_equal(h[0].scope, "include");
	assert_string_equal(h[0].path, "/usr/local/cuda-12.4/include/cub/cub.cuh");
	/* under targets/: nvcc sees it, the build's C++ compiler does not */
	assert_int_equal(h[1].present, CD_TRI_NO);
	assert_string_equal(h[1].scope, "targets");
	assert_string_equal(h[1].path,
			    "/usr/local/cuda-12.4/targets/x86_64-linux/include/cuda_bf16.h");
	for (i = 2; i < 5; i++) {
		assert_int_equal(h[i].present, CD_TRI_NO);
		assert_null(h[i].path);
	}
	for (i = 5; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(h[i].present, CD_TRI_UNKNOWN);
		assert_null(h[i].path);
	}
	/* the pip wheels: one include directory per component */
	assert_int_equal(w->asked[2].present, CD_TRI_NO);
	assert_string_equal(w->asked[2].scope, "wheel");
	assert_string_equal(w->asked[2].path, "/" SITE "/nvidia/cusparse/include/cusparse_extra.h");
	assert_null(w->asked[0].path);
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(asked_headers),
	};
	return cmocka_run_group_tests_name("toolkit", tests, setup, teardown);
}
