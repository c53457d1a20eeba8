/* Unit tests for kb: the embedded data/ files and the TSV reader, and that
 * every embedded file is read by some code: its name (or the folder it is
 * walked under, "signatures/") is a string literal outside comments in src/
 * or tools/. A table nobody looks up is knowledge the checks silently ignore.
 * Run from the repository root, as `make unit` does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/err.h"
#include "kb/kb.h"

#define LITERALS_MAX 65536
#define LITERAL_LEN  128

struct literals {
	char (*v)[LITERAL_LEN];
	size_t n;
};

static void add_literal(struct literals *l, const char *s, size_t n)
{
	if (l->n < LITERALS_MAX && n < LITERAL_LEN) {
		memcpy(l->v[l->n], s, n);
		l->v[l->n][n] = '\0';
		l->n++;
	}
}

/* The string literals of C source p[0..n), comments skipped. */
static void scan_source(const char *p, size_t n, struct literals *l)
{
	size_t i = 0, start;

	while (i < n) {
		if (p[i] == '/' && i + 1 < n && p[i + 1] == '/') {
			while (i < n && p[i] != '\n')
				i++;
		} else if (p[i] == '/' && i + 1 < n && p[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(p[i] == '*' && p[i + 1] == '/'); i++)
				;
			i += 2;
		} else if (p[i] == '\'') {
			for (i++; i < n && p[i] != '\''; i++)
				if (p[i] == '\\')
					i++;
			i++;
		} else if (p[i] == '"') {
			for (start = ++i; i < n && p[i] != '"' && p[i] != '\n'; i++)
				if (p[i] == '\\')
					i++;
			add_literal(l, p + start, i - start);
			i++;
		} else {
			i++;
		}
	}
}

static void scan_file(const char *path, struct literals *l)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	scan_source(buf, (size_t)n, l);
	free(buf);
}

/* Every .c and .h under dir. */
static void scan_tree(const char *dir, struct literals *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	struct stat st;

	assert_non_null(d); /* run from the repository root */
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		assert_int_equal(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode))
			scan_tree(path, l);
		else if (len > 2 &&
			 (!strcmp(e->d_name + len - 2, ".c") || !strcmp(e->d_name + len - 2, ".h")))
			scan_file(path, l);
	}
	closedir(d);
}

static int has_literal(const struct literals *l, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strlen(l->v[i]) == n && !strncmp(l->v[i], s, n))
			return 1;
	return 0;
}

/* The name itself, or a folder above it ("signatures/x.txt": "signatures/"). */
static int is_read(const struct literals *l, const char *name)
{
	const char *slash;

	if (has_literal(l, name, strlen(name)))
		return 1;
	for (slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/'))
		if (has_literal(l, name, (size_t)(slash - name) + 1))
			return 1;
	return 0;
}

static void every_file_is_read(void **state)
{
	struct literals l = {calloc(LITERALS_MAX, LITERAL_LEN), 0};
	const struct kb_file *f;
	size_t files = 0, unread = 0;

	(void)state;
	assert_non_null(l.v);
	scan_tree("src", &l);
	scan_tree("tools", &l);
	assert_true(l.n > 100);
	for (f = kb_files; f->name; f++, files++)
		if (!is_read(&l, f->name)) {
			fprintf(stderr,
				"data/%s is embedded but no code in src/ or tools/ reads it\n",
				f->name);
			unread++;
		}
	assert_true(files > 10);
	free(l.v);
	assert_int_equal(unread, 0);
}

/* The scanner itself: literals in comments do not count, escapes do not end one. */
static void scanner(void **state)
{
	static const char src[] = "/* \"a.tsv\" */ x = \"b.tsv\"; // \"c.tsv\"\n"
				  "c = '\"'; s = \"d\\\"e.tsv\"; t = \"signatures/\";";
	struct literals l = {calloc(16, LITERAL_LEN), 0};

	(void)state;
	assert_non_null(l.v);
	scan_source(src, sizeof(src) - 1, &l);
	assert_false(has_literal(&l, "a.tsv", 5));
	assert_true(has_literal(&l, "b.tsv", 5));
	assert_false(has_literal(&l, "c.tsv", 5));
	assert_true(has_literal(&l, "d\\\"e.tsv", 8));
	assert_true(is_read(&l, "signatures/nccl.txt"));
	assert_false(is_read(&l, "other/nccl.txt"));
	free(l.v);
}

static void tsv_reader(void **state)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	size_t rows = 0;

	(void)state;
	assert_non_null(t);
	assert_non_null(kb_get("gpu_arch.tsv"));
	assert_null(kb_get("no-such-file.tsv"));
	assert_int_equal(kb_tsv_open(t, "no-such-file.tsv"), CD_ENOENT);
	assert_int_equal(kb_tsv_open(t, "kernel_arch.tsv"), 0); /* '#' lines before the header */
	assert_int_equal(kb_tsv_col(t, "kernel"), 0);
	assert_int_equal(kb_tsv_col(t, "nope"), -1);
	while (kb_tsv_next(t)) {
		assert_non_null(kb_tsv_get(t, "source"));
		assert_null(kb_tsv_get(t, "nope"));
		rows++;
	}
	assert_true(rows >= 1);
	free(t);
}

static int count_row(const struct kb_tsv *t, void *ctx)
{
	size_t *n = ctx;

	assert_non_null(kb_tsv_get(t, "compute_capability"));
	return ++*n == 2 ? 7 : 0; /* the stop value is handed back */
}

static int every_row(const struct kb_tsv *t, void *ctx)
{
	(void)t;
	++*(size_t *)ctx;
	return 0;
}

/* kb_tsv_each: every data row, a stop value returned, a missing table. */
static void tsv_each(void **state)
{
	size_t n = 0, all = 0;

	(void)state;
	assert_int_equal(kb_tsv_each("gpu_arch.tsv", count_row, &n), 7);
	assert_int_equal(n, 2);
	assert_int_equal(kb_tsv_each("gpu_arch.tsv", every_row, &all), 0);
	assert_true(all > 2);
	n = 0;
	assert_int_equal(kb_tsv_each("no-such-file.tsv", every_row, &n), CD_ENOENT);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(scanner),
		cmocka_unit_test(tsv_reader),
		cmocka_unit_test(tsv_each),
		cmocka_unit_test(every_file_is_read),
	};
	return cmocka_run_group_tests_name("kb", tests, NULL, NULL);
}
