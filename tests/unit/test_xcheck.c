/* Unit tests for src/explain/xcheck.c: a log's missing header cross-checked
 * with toolkit facts built by hand. The root holds a toolkit the facts do
 * not list, and the facts list toolkits the root does not hold: every answer
 * must come from the facts (the toolkit probe's), none from the disk. */
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

#include "core/err.h"
#include "explain/scan.h"
#include "explain/sigdb.h"
#include "explain/xcheck.h"

static struct xs_db *g_db;
static char g_dir[64];

static void mkdirs(const char *rel)
{
	char p[256];
	size_t i;

	snprintf(p, sizeof(p), "%s/%s", g_dir, rel);
	for (i = strlen(g_dir) + 1; p[i]; i++)
		if (p[i] == '/') {
			p[i] = '\0';
			mkdir(p, 0755);
			p[i] = '/';
		}
	mkdir(p, 0755);
}

static void touch(const char *rel)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", g_dir, rel);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static int setup(void **state)
{
	struct cd_err err = {0};

	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/cd-xcheck-XXXXXX");
	if (!mkdtemp(g_dir))
		return -1;
	/* On disk, and in no fact: what the old fallback globbed. */
	mkdirs("usr/local/cuda-12.4/include");
	touch("usr/local/cuda-12.4/include/cusparse.h");
	touch("usr/local/cuda-12.4/include/cuda_bf16.h");
	return xs_db_open(&g_db, &err) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	xs_db_close(g_db);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", g_dir);
	return system(cmd);
}

static struct xs_result *scan(const char *text)
{
	struct xs_result *r = xs_result_new();
	struct xs_scanner *s = NULL;
	struct cd_err err = {0};

	assert_non_null(r);
	assert_int_equal(xs_result_input(r, "test.log"), 0);
	assert_int_equal(xs_open(&s, g_db, r, 0, &err), 0);
	assert_int_equal(xs_feed(s, text, strlen(text)), 0);
	assert_int_equal(xs_finish(s), 0);
	xs_close(s);
	xs_rank(r, g_db);
	return r;
}

/* The line of d that starts with `start`, or NULL. */
static const char *line(const struct xs_diag *d, const char *start)
{
	size_t i;

	for (i = 0; i < d->n_env; i++)
		if (!strncmp(d->env[i], start, strlen(start)))
			return d->env[i];
	return NULL;
}

/* The diagnosis whose header fact is hdr. */
static const struct xs_diag *for_header(const struct xs_result *r, const char *hdr)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (xs_fact(&r->d[i], "header") && !strcmp(xs_fact(&r->d[i], "header"), hdr))
			return &r->d[i];
	fail_msg("no diagnosis for %s", hdr);
	return NULL;
}

static int mentions(const struct xs_diag *d, const char *needle)
{
	size_t i;

	for (i = 0; i < d->n_env; i++)
		if (strstr(d->env[i], needle))
			return 1;
	return 0;
}

static void facts(struct cd_facts *f)
{
	facts_init(f, NULL);
	assert_int_equal(root_init(&f->root, g_dir, NULL), 0);
}

static struct cd_toolkit *toolkit(struct cd_facts *f, const char *root, const char *version,
				  enum cd_tri exists)
{
	struct cd_toolkit *t;

	if (!f->toolkit.items)
		f->toolkit.items = arena_calloc(&f->arena, 8, sizeof(*t));
	t = &f->toolkit.items[f->toolkit.n++];
	t->root = root;
	t->version = version;
	t->exists = exists;
	return t;
}

static void header(struct cd_facts *f, struct cd_toolkit *t, int asked, const char *name,
		   enum cd_tri present, const char *path, const char *scope)
{
	struct cd_header *h;

	if (asked) {
		if (!t->asked)
			t->asked = arena_calloc(&f->arena, 4, sizeof(*h));
		h = &t->asked[t->n_asked++];
	} else {
		if (!t->headers)
			t->headers = arena_calloc(&f->arena, 4, sizeof(*h));
		h = &t->headers[t->n_headers++];
	}
	h->name = name;
	h->present = present;
	h->path = path;
	h->scope = scope;
}

/* The probe found no toolkit: none is looked for on disk, though the root
 * holds /usr/local/cuda-12.4 with the header. */
static void no_toolkit_in_facts(void **state)
{
	struct xs_result *r = scan("x.h:1:1: fatal error: cusparse.h: No such file or directory\n");
	struct cd_facts f;

	(void)state;
	facts(&f);
	xc_check(r, &f);
	assert_int_equal(r->n, 1);
	assert_non_null(line(&r->d[0], "no CUDA toolkit found (CUDA_HOME unset"));
	assert_false(mentions(&r->d[0], "cuda-12.4"));
	/* CUDA_HOME names a directory the probe found missing. */
	xs_result_free(r);
	r = scan("x.h:1:1: fatal error: cusparse.h: No such file or directory\n");
	toolkit(&f, "/opt/missing", NULL, CD_TRI_NO);
	f.toolkit.cuda_home = "/opt/missing";
	xc_check(r, &f);
	assert_non_null(line(&r->d[0], "no CUDA toolkit found: extension builds would use "
				       "CUDA_HOME=/opt/missing, which does not exist"));
	assert_false(mentions(&r->d[0], "cuda-12.4"));
	xs_result_free(r);
	facts_free(&f);
}

/* Each toolkit the probe found on disk, with its answer for the header;
 * none of these roots exists under the test's root. */
static void headers_from_facts(void **state)
{
	struct xs_result *r = scan("x.h:1:1: fatal error: cusparse.h: No such file or directory\n");
	struct cd_facts f;
	struct cd_toolkit *t;

	(void)state;
	facts(&f);
	t = toolkit(&f, "/usr/local/cuda-12.1", "12.1.105", CD_TRI_YES);
	header(&f, t, 0, "cusparse.h", CD_TRI_NO, NULL, NULL);
	t = toolkit(&f, "/opt/conda", NULL, CD_TRI_YES);
	header(&f, t, 0, "cusparse.h", CD_TRI_NO,
	       "/opt/conda/targets/x86_64-linux/include/cusparse.h", "targets");
	t = toolkit(&f, "/opt/venv/lib/python3.12/site-packages/nvidia", "12.8", CD_TRI_YES);
	header(&f, t, 0, "cusparse.h", CD_TRI_NO,
	       "/opt/venv/lib/python3.12/site-packages/nvidia/cusparse/include/cusparse.h",
	       "wheel");
	t = toolkit(&f, "/usr/local/cuda-13.0", "13.0.88", CD_TRI_YES);
	header(&f, t, 0, "cusparse.h", CD_TRI_YES, "/usr/local/cuda-13.0/include/cusparse.h",
	       "include");
	toolkit(&f, "/usr/local/cuda-9.9", NULL, CD_TRI_NO);
	f.toolkit.cuda_home = "/usr/local/cuda-12.1";
	xc_check(r, &f);
	assert_string_equal(
		line(&r->d[0], "cusparse.h is absent from /usr/local/cuda-12.1"),
		"cusparse.h is absent from /usr/local/cuda-12.1/include (CUDA 12.1.105)");
	assert_string_equal(line(&r->d[0], "cusparse.h is absent from /opt/conda"),
			    "cusparse.h is absent from /opt/conda/include; it is at "
			    "/opt/conda/targets/x86_64-linux/include/cusparse.h (nvcc searches it, "
			    "the C++ compiler of an extension build does not)");
	assert_non_null(
		strstr(line(&r->d[0], "cusparse.h is absent from /opt/venv"),
		       "(CUDA 12.8); it is at /opt/venv/lib/python3.12/site-packages/nvidia/"
		       "cusparse/include/cusparse.h (another wheel's include directory"));
	assert_string_equal(
		line(&r->d[0], "cusparse.h is present"),
		"cusparse.h is present in /usr/local/cuda-13.0/include/cusparse.h (CUDA 13.0.88)");
	assert_false(mentions(&r->d[0], "cuda-9.9"));
	assert_false(mentions(&r->d[0], "cuda-12.4"));
	assert_non_null(line(&r->d[0], "extension builds use CUDA_HOME=/usr/local/cuda-12.1"));
	xs_result_free(r);
	facts_free(&f);
}

/* A header outside the inventory: xc_headers names it for the probe, and
 * the toolkit's `asked` answer is used; a toolkit not asked says nothing. */
static void asked_headers(void **state)
{
	struct xs_result *r =
		scan("a.cu:1:10: fatal error: cuda_bf16.h: No such file or directory\n"
		     "b.cu:9:10: fatal error: cuda_bf16.h: No such file or directory\n"
		     "c.h:2:10: fatal error: cub/cub.cuh: No such file or directory\n"
		     "ninja: build stopped: subcommand failed.\n");
	const char *names[XC_HEADERS_MAX];
	const struct xs_diag *d;
	struct cd_facts f;
	struct cd_toolkit *t;

	(void)state;
	assert_int_equal(xc_headers(r, names, XC_HEADERS_MAX), 2); /* once each */
	assert_string_equal(names[0], "cuda_bf16.h");
	assert_string_equal(names[1], "cub/cub.cuh");
	assert_int_equal(xc_headers(r, names, 1), 1);
	facts(&f);
	t = toolkit(&f, "/usr/local/cuda-12.6", NULL, CD_TRI_YES);
	header(&f, t, 1, "cuda_bf16.h", CD_TRI_YES, "/usr/local/cuda-12.6/include/cuda_bf16.h",
	       "include");
	header(&f, t, 1, "cub/cub.cuh", CD_TRI_NO, NULL, NULL);
	toolkit(&f, "/usr/local/cuda-11.8", NULL, CD_TRI_YES); /* nothing asked */
	xc_check(r, &f);
	d = for_header(r, "cuda_bf16.h");
	assert_non_null(
		line(d, "cuda_bf16.h is present in /usr/local/cuda-12.6/include/cuda_bf16.h"));
	assert_false(mentions(d, "cuda-11.8"));
	assert_false(mentions(d, "cuda-12.4"));
	d = for_header(r, "cub/cub.cuh");
	assert_non_null(line(d, "cub/cub.cuh is absent from /usr/local/cuda-12.6/include"));
	xs_result_free(r);
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_toolkit_in_facts),
		cmocka_unit_test(headers_from_facts),
		cmocka_unit_test(asked_headers),
	};
	return cmocka_run_group_tests_name("xcheck", tests, setup, teardown);
}
