/* torcharch: see torcharch.h. A row applies to the releases torch_first ..
 * torch_last (both "X.Y"; an empty torch_last: every later release too), so
 * the tables of one release are the rows whose span holds it, names kept in
 * file order (torch replaces them in that order). Where the data could not
 * pin the first release of a row, it names the earliest one possible, so an
 * entry a release accepts is never called rejected (data/README.md). */
#include "kb/torcharch.h"

#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

#define ROWS_MAX  128
#define FIELD_MAX 32
#define SRC_MAX	  640

struct row {
	char key[FIELD_MAX];   /* name, or arch */
	char value[FIELD_MAX]; /* expands_to, or renamed_to */
	char first[8], last[8];
	int lo, hi; /* releases as major * 1000 + minor; hi OPEN when open-ended */
	char notes[96];
	char source[SRC_MAX];
};

struct table {
	const char *file, *key, *value;
	struct row rows[ROWS_MAX];
	size_t n;
	int loaded;
};

static struct table names = {.file = "torch_arch_names.tsv", .key = "name", .value = "expands_to"};
static struct table arches = {.file = "torch_arch_list.tsv", .key = "arch", .value = "renamed_to"};

#define OPEN 0x7fffffff

/* "2.11", "2.11.0+cu130", "2.11.0a0+git": 2011; -1 unless it starts X.Y. */
static int release(const char *v)
{
	int major = 0, minor = 0, n = 0;

	if (!v)
		return -1;
	for (; *v >= '0' && *v <= '9' && n < 4; v++, n++)
		major = major * 10 + (*v - '0');
	if (!n || *v++ != '.')
		return -1;
	for (n = 0; *v >= '0' && *v <= '9' && n < 3; v++, n++)
		minor = minor * 10 + (*v - '0');
	return n ? major * 1000 + minor : -1;
}

static int copy_field(char *dst, size_t cap, const char *src)
{
	return src && str_copy(dst, cap, src) < cap ? 0 : -1;
}

static int load_row(const struct kb_tsv *t, void *ctx)
{
	struct table *tb = ctx;
	struct row *r = &tb->rows[tb->n];
	const char *src = kb_tsv_get(t, "source");

	if (copy_field(r->key, sizeof(r->key), kb_tsv_get(t, tb->key)) || !r->key[0] ||
	    copy_field(r->value, sizeof(r->value), kb_tsv_get(t, tb->value)) ||
	    copy_field(r->first, sizeof(r->first), kb_tsv_get(t, "torch_first")) ||
	    copy_field(r->last, sizeof(r->last), kb_tsv_get(t, "torch_last")))
		return 0;
	r->lo = release(r->first);
	r->hi = r->last[0] ? release(r->last) : OPEN;
	if (r->lo < 0 || r->hi < r->lo)
		return 0;
	str_copy(r->source, sizeof(r->source), src ? src : "");
	str_copy(r->notes, sizeof(r->notes), kb_tsv_get(t, "notes") ? kb_tsv_get(t, "notes") : "");
	return ++tb->n == ROWS_MAX;
}

static void load(struct table *tb)
{
	if (tb->loaded)
		return;
	tb->loaded = 1;
	/* Not embedded or out of memory: no rows (the tests catch a missing table). */
	(void)!kb_tsv_each(tb->file, load_row, tb);
}

static int holds(const struct row *r, int rel)
{
	return rel >= r->lo && rel <= r->hi;
}

/* The newest release any row names, and the oldest. */
static void bounds(int *newest, int *oldest, const char **newest_s)
{
	const struct table *tbs[] = {&names, &arches};
	size_t i, k;

	*newest = -1;
	*oldest = OPEN;
	*newest_s = "";
	for (k = 0; k < 2; k++)
		for (i = 0; i < tbs[k]->n; i++) {
			const struct row *r = &tbs[k]->rows[i];
			if (r->lo < *oldest)
				*oldest = r->lo;
			if (r->lo > *newest)
				*newest = r->lo, *newest_s = r->first;
			if (r->hi != OPEN && r->hi > *newest)
				*newest = r->hi, *newest_s = r->last;
		}
}

static int accepted(int rel, const char *arch)
{
	size_t i;

	for (i = 0; i < arches.n; i++)
		if (holds(&arches.rows[i], rel) && !strcmp(arches.rows[i].key, arch))
			return 1;
	return 0;
}

static void fill(struct torcharch_rules *out, int rel)
{
	size_t i;

	for (i = 0; i < names.n && out->rules.n_names < TORCHARCH_MAX; i++)
		if (holds(&names.rows[i], rel))
			out->names[out->rules.n_names++] =
				(struct archlist_name){names.rows[i].key, names.rows[i].value};
	for (i = 0; i < arches.n && out->rules.n_arches < TORCHARCH_MAX; i++)
		if (holds(&arches.rows[i], rel))
			out->arches[out->rules.n_arches++] = arches.rows[i].key;
	for (i = 0; i < arches.n && out->rules.n_renames < TORCHARCH_MAX; i++) {
		const struct row *r = &arches.rows[i];
		if (r->value[0] && !holds(r, rel) && !accepted(rel, r->key) &&
		    accepted(rel, r->value))
			out->renames[out->rules.n_renames++] =
				(struct archlist_name){r->key, r->value};
	}
}

int torcharch_rules(const char *torch_version, struct torcharch_rules *out)
{
	int rel = release(torch_version), newest, oldest;
	const char *newest_s;

	memset(out, 0, sizeof(*out));
	load(&names);
	load(&arches);
	bounds(&newest, &oldest, &newest_s);
	if (newest < 0)
		return CD_ENOENT;
	if (rel < 0) {
		rel = newest;
		out->newest = 1;
		str_copy(out->release, sizeof(out->release), newest_s);
	} else {
		size_t n = strcspn(torch_version, ".");
		n += 1 + strspn(torch_version + n + 1, "0123456789");
		str_ncopy(out->release, sizeof(out->release), torch_version, n);
	}
	if (rel < oldest)
		return CD_ENOENT;
	fill(out, rel);
	out->rules.names = out->names;
	out->rules.arches = out->arches;
	out->rules.renames = out->renames;
	return 0;
}

int torcharch_span(const char *arch, struct torcharch_span *out)
{
	const struct row *best = NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	load(&arches);
	for (i = 0; i < arches.n; i++)
		if (!strcmp(arches.rows[i].key, arch) && (!best || arches.rows[i].lo > best->lo))
			best = &arches.rows[i];
	if (!best)
		return CD_ENOENT;
	out->first = best->first;
	out->last = best->last;
	out->renamed_to = best->value;
	out->notes = best->notes;
	out->source = best->source;
	return 0;
}
