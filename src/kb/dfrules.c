/* dfrules: see dfrules.h. */
#include "kb/dfrules.h"

#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

#define DFRULES_MAX 64

static struct dfrule rules[DFRULES_MAX];
static size_t n_rules;
static int loaded;

static void load_file(const char *name)
{
	struct kb_tsv *t = malloc(sizeof(*t)); /* 33 KiB of line buffers: not on the stack */

	if (!t || kb_tsv_open(t, name) != 0) {
		free(t);
		return;
	}
	while (kb_tsv_next(t) && n_rules < DFRULES_MAX) {
		struct dfrule *r = &rules[n_rules];
		r->id = strdup(kb_tsv_get(t, "id"));
		r->severity = strdup(kb_tsv_get(t, "severity"));
		r->summary = strdup(kb_tsv_get(t, "summary"));
		r->documented = strdup(kb_tsv_get(t, "documented"));
		r->source = strdup(kb_tsv_get(t, "source"));
		if (r->id && r->severity && r->summary && r->documented && r->source)
			n_rules++;
	}
	free(t);
}

static void load(void)
{
	if (loaded)
		return;
	loaded = 1;
	load_file("dockerfile_rules.tsv");
	load_file("compose_rules.tsv");
}

int dfrules_find(const char *id, struct dfrule *out)
{
	size_t i;

	load();
	for (i = 0; i < n_rules; i++)
		if (!strcmp(rules[i].id, id)) {
			*out = rules[i];
			return 0;
		}
	return CD_ENOENT;
}

const struct dfrule *dfrules_all(size_t *n)
{
	load();
	*n = n_rules;
	return rules;
}

int dfrules_first_url(const struct dfrule *r, char *out, size_t cap)
{
	const char *s = strstr(r->source, "https://");
	size_t k;

	if (!s)
		return CD_ENOENT;
	k = strcspn(s, " ;()\"");
	str_ncopy(out, cap, s, k);
	return 0;
}
