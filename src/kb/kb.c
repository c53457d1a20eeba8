/* kb: see kb.h. */
#include "kb/kb.h"

#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/span.h"
#include "core/str.h"

const struct kb_file *kb_get(const char *name)
{
	const struct kb_file *f;

	for (f = kb_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* Copy the next line into dst (truncating very long lines); returns 0 at end. */
static int read_line(struct kb_tsv *t, char *dst, size_t cap)
{
	struct cd_span l;

	if (!span_line(t->file->data, t->file->len, &t->pos, 1, &l))
		return 0;
	str_ncopy(dst, cap, (const char *)l.p, l.n);
	t->lineno++;
	return 1;
}

static size_t split(char *line, const char **out, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *tab = strchr(p, '\t');
		if (n < max)
			out[n++] = p;
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

int kb_tsv_open(struct kb_tsv *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	t->file = kb_get(name);
	if (!t->file)
		return CD_ENOENT;
	while (read_line(t, t->header, sizeof(t->header)))
		if (t->header[0] && t->header[0] != '#')
			break;
	t->ncols = split(t->header, t->cols, KB_TSV_COLS);
	return 0;
}

int kb_tsv_next(struct kb_tsv *t)
{
	while (read_line(t, t->line, sizeof(t->line))) {
		if (!t->line[0] || t->line[0] == '#')
			continue;
		t->nfields = split(t->line, t->fields, KB_TSV_COLS);
		return 1;
	}
	return 0;
}

int kb_tsv_each(const char *name, kb_row_fn row, void *ctx)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	int rc;

	if (!t)
		return CD_ENOMEM;
	rc = kb_tsv_open(t, name);
	while (!rc && kb_tsv_next(t))
		rc = row(t, ctx);
	free(t);
	return rc;
}

int kb_tsv_col(const struct kb_tsv *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return (int)i;
	return -1;
}

int kb_cell_int(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	v = strtol(s, &end, 10);
	return end != s && v >= 0 && v < 1000 ? (int)v : -1;
}

const char *kb_tsv_get(const struct kb_tsv *t, const char *name)
{
	int c = kb_tsv_col(t, name);

	if (c < 0)
		return NULL;
	return (size_t)c < t->nfields ? t->fields[c] : "";
}

const char *kb_pool_dup(struct kb_pool *pool, const char *s)
{
	size_t n;
	char *d;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	if (n > pool->cap - pool->len)
		return NULL;
	d = pool->p + pool->len;
	memcpy(d, s, n);
	pool->len += n;
	return d;
}
