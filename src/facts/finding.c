/* finding: see finding.h. */
#include "facts/finding.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/vec.h"

const char *severity_name(enum cd_severity s)
{
	switch (s) {
	case CD_SEV_ERROR: return "error";
	case CD_SEV_WARNING: return "warning";
	default: return "info";
	}
}

void findings_init(struct cd_findings *fs, struct cd_arena *arena)
{
	memset(fs, 0, sizeof(*fs));
	fs->arena = arena;
}

struct cd_finding *findings_add(struct cd_findings *fs, const char *id, enum cd_severity sev,
				const char *section, const char *title_fmt, ...)
{
	struct cd_finding **items =
		vec_grow(fs->arena, fs->items, &fs->cap, fs->n, sizeof(*items), 16, 0);
	struct cd_finding *f;
	va_list ap;

	if (!items)
		return NULL;
	fs->items = items;
	f = arena_alloc(fs->arena, sizeof(*f));
	if (!f)
		return NULL;
	f->id = id;
	f->severity = sev;
	f->section = section;
	va_start(ap, title_fmt);
	f->title = arena_vprintf(fs->arena, title_fmt, ap);
	va_end(ap);
	fs->items[fs->n++] = f;
	return f;
}

void finding_detail(struct cd_finding *f, struct cd_arena *a, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	f->detail = arena_vprintf(a, fmt, ap);
	va_end(ap);
}

/* One more line of evidence or fix, while there is room. */
static void add_line(const char **lines, size_t *n, struct cd_arena *a, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void add_line(const char **lines, size_t *n, struct cd_arena *a, const char *fmt, va_list ap)
{
	if (*n >= CD_FINDING_LINES_MAX)
		return;
	lines[*n] = arena_vprintf(a, fmt, ap);
	if (lines[*n])
		(*n)++;
}

void finding_evidence(struct cd_finding *f, struct cd_arena *a, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	add_line(f->evidence, &f->n_evidence, a, fmt, ap);
	va_end(ap);
}

void finding_fix(struct cd_finding *f, struct cd_arena *a, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	add_line(f->fix, &f->n_fix, a, fmt, ap);
	va_end(ap);
}

void finding_at(struct cd_finding *f, const char *file, unsigned line, unsigned end_line)
{
	if (!f)
		return;
	f->file = file;
	f->line = line;
	f->end_line = end_line < line ? line : end_line;
}

static int cmp(const void *a, const void *b)
{
	const struct cd_finding *x = *(const struct cd_finding *const *)a;
	const struct cd_finding *y = *(const struct cd_finding *const *)b;
	int c;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	c = strcmp(x->section ? x->section : "", y->section ? y->section : "");
	if (c)
		return c;
	c = strcmp(x->id, y->id);
	if (c)
		return c;
	return strcmp(x->title ? x->title : "", y->title ? y->title : "");
}

void findings_sort(struct cd_findings *fs)
{
	if (fs->n > 1)
		qsort(fs->items, fs->n, sizeof(*fs->items), cmp);
}

static int cmp_located(const void *a, const void *b)
{
	const struct cd_finding *x = *(const struct cd_finding *const *)a;
	const struct cd_finding *y = *(const struct cd_finding *const *)b;
	int c;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	c = strcmp(x->id, y->id);
	if (c)
		return c;
	return strcmp(x->title ? x->title : "", y->title ? y->title : "");
}

void findings_sort_located(struct cd_findings *fs)
{
	if (fs->n > 1)
		qsort(fs->items, fs->n, sizeof(*fs->items), cmp_located);
}

enum cd_severity findings_worst(const struct cd_findings *fs)
{
	enum cd_severity w = CD_SEV_INFO;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (fs->items[i]->severity > w)
			w = fs->items[i]->severity;
	return w;
}

const struct cd_finding *findings_find(const struct cd_findings *fs, const char *id)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->items[i]->id, id))
			return fs->items[i];
	return NULL;
}
