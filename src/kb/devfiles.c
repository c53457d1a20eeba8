/* devfiles: see devfiles.h. Rows with an unknown kind or check value are
 * skipped, so a typo in the data file shows as a missing row in the tests
 * (tests/unit/test_devfiles.c) rather than as a guess. */
#include "kb/devfiles.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

static const char *const pm_cols[] = {"apt", "dnf", "conda", "pip_cu12", "pip_cu13"};

static struct devfiles_row rows[DEVFILES_ROWS_MAX];
static size_t n_rows;
static int loaded;

static int parse_check(const char *s, enum devfiles_check *out)
{
	if (!strcmp(s, "required"))
		*out = DEVFILES_CHECK_REQUIRED;
	else if (!strcmp(s, "info"))
		*out = DEVFILES_CHECK_INFO;
	else if (!strcmp(s, "-"))
		*out = DEVFILES_CHECK_NONE;
	else
		return -1;
	return 0;
}

/* One row of the table into r; -1 when a field is missing or malformed. */
static int parse_row(const struct kb_tsv *t, struct devfiles_row *r)
{
	const char *file = kb_tsv_get(t, "file"), *kind = kb_tsv_get(t, "kind");
	const char *check = kb_tsv_get(t, "check"), *src = kb_tsv_get(t, "source");
	size_t i;

	memset(r, 0, sizeof(*r));
	if (!file || !*file || !kind || !check || !src || !*src ||
	    (strcmp(kind, "header") && strcmp(kind, "library")) || parse_check(check, &r->check) ||
	    str_copy(r->file, sizeof(r->file), file) >= sizeof(r->file))
		return -1;
	r->is_lib = !strcmp(kind, "library");
	for (i = 0; i < sizeof(pm_cols) / sizeof(pm_cols[0]); i++) {
		const char *p = kb_tsv_get(t, pm_cols[i]);
		if (!p || !*p)
			return -1;
		if (strcmp(p, "-") &&
		    str_copy(r->pkg[i], sizeof(r->pkg[i]), p) >= sizeof(r->pkg[i]))
			return -1;
	}
	str_copy(r->source, sizeof(r->source), src);
	return 0;
}

static int load_row(const struct kb_tsv *t, void *ctx)
{
	(void)ctx;
	if (parse_row(t, &rows[n_rows]) == 0)
		n_rows++;
	return n_rows == DEVFILES_ROWS_MAX;
}

static void load(void)
{
	if (loaded)
		return;
	loaded = 1;
	/* Not embedded or out of memory: no rows (the tests catch a missing table). */
	(void)!kb_tsv_each("cuda_dev_files.tsv", load_row, NULL);
}

size_t devfiles_count(void)
{
	load();
	return n_rows;
}

const struct devfiles_row *devfiles_at(size_t i)
{
	load();
	return i < n_rows ? &rows[i] : NULL;
}

const struct devfiles_row *devfiles_find(const char *file)
{
	size_t i;

	load();
	for (i = 0; file && i < n_rows; i++)
		if (!strcmp(rows[i].file, file))
			return &rows[i];
	return NULL;
}

int devfiles_package(const struct devfiles_row *r, enum devfiles_pm pm, int major, int minor,
		     char *out, size_t cap)
{
	const char *p, *m;
	int n;

	if (!r || (unsigned)pm > DEVFILES_PIP_CU13 || !r->pkg[pm][0] || !cap)
		return CD_ENOENT;
	p = r->pkg[pm];
	m = strstr(p, "{MAJ}-{MIN}");
	if (!m)
		return str_copy(out, cap, p) < cap ? 0 : CD_ERANGE;
	n = snprintf(out, cap, "%.*s%d-%d%s", (int)(m - p), p, major, minor, m + 11);
	return n >= 0 && (size_t)n < cap ? 0 : CD_ERANGE;
}
