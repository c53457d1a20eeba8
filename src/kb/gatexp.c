/* gatexp: see gatexp.h. */
#include "kb/gatexp.h"

#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

#define GATEXP_ROWS_MAX 32

struct gatexp_row {
	char subject[32];
	char list[512]; /* the ids, each NUL-terminated in place */
	size_t n;
	const char *ids[GATEXP_IDS_MAX];
};

static struct gatexp_row rows[GATEXP_ROWS_MAX];
static size_t n_rows;
static int loaded;

static void split(struct gatexp_row *r)
{
	char *p = r->list;

	while (*p && r->n < GATEXP_IDS_MAX) {
		size_t len = strcspn(p, ",");
		if (len)
			r->ids[r->n++] = p;
		if (!p[len])
			break;
		p[len] = '\0';
		p += len + 1;
	}
}

static void load(void)
{
	static struct kb_tsv t;

	loaded = 1;
	if (kb_tsv_open(&t, "gate_explain.tsv"))
		return;
	while (kb_tsv_next(&t) && n_rows < GATEXP_ROWS_MAX) {
		const char *s = kb_tsv_get(&t, "subject"), *ids = kb_tsv_get(&t, "findings");
		struct gatexp_row *r = &rows[n_rows];
		if (!s || !*s || !ids || str_copy(r->subject, sizeof(r->subject), s) >= 32 ||
		    str_copy(r->list, sizeof(r->list), ids) >= sizeof(r->list))
			continue;
		split(r);
		n_rows++;
	}
}

size_t gatexp_ids(const char *subject, const char **ids, size_t max)
{
	size_t i, k;

	if (!loaded)
		load();
	for (i = 0; i < n_rows; i++) {
		if (strcmp(rows[i].subject, subject))
			continue;
		for (k = 0; k < rows[i].n && k < max; k++)
			ids[k] = rows[i].ids[k];
		return k;
	}
	return 0;
}
