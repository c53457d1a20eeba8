/* sigdb_tsv: the tables the signature database also reads (see sigdb.h):
 * the diagnosis of last resort's patterns (explain_fallback.tsv), the key
 * facts from the lines around (explain_facts.tsv) and the alternatives of
 * messages two causes print (explain_also.tsv). One row per line, tab-
 * separated, a header line, '#' comments. */
#include <stdlib.h>
#include <string.h>

#include "core/span.h"
#include "core/str.h"
#include "explain/sigdb.h"
#include "explain/sigdb_int.h"

/* One row of the fallback table into db->fb; fields are cut at tabs in l. */
static int fallback_row(struct sigdb *db, const char *name, size_t lineno, char *l,
			struct cd_err *err)
{
	char *f[5];
	size_t k = 0;
	int w;
	struct sig_fallback *fb;

	f[k++] = l;
	while (k < 5 && (l = strchr(l, '\t')) != NULL) {
		*l++ = '\0';
		f[k++] = l;
	}
	if (k != 5 || strchr(f[4], '\t'))
		return err_set(err, CD_EFORMAT, "%s:%zu: needs 5 tab-separated fields", name,
			       lineno);
	if (db->n_fb >= SIG_FALLBACK_MAX)
		return err_set(err, CD_EFORMAT, "%s:%zu: more than %d rows", name, lineno,
			       SIG_FALLBACK_MAX);
	if (str_to_int(f[0], 0, 9, &w))
		return err_set(err, CD_EFORMAT, "%s:%zu: weight must be 0..9", name, lineno);
	if (*f[1] && strcmp(f[1], "case"))
		return err_set(err, CD_EFORMAT, "%s:%zu: flags must be case or empty", name,
			       lineno);
	if (!*f[2] || !*f[4])
		return err_set(err, CD_EFORMAT, "%s:%zu: a pattern and an example are needed", name,
			       lineno);
	fb = &db->fb[db->n_fb];
	fb->weight = w;
	fb->caseless = !*f[1];
	fb->pattern = arena_strdup(&db->arena, f[2]);
	fb->what = arena_strdup(&db->arena, f[3]);
	fb->example = arena_strdup(&db->arena, f[4]);
	if (!fb->pattern || !fb->what || !fb->example)
		return err_set(err, CD_ENOMEM, "out of memory");
	db->n_fb++;
	return 0;
}

/* The rows of a table (TSV, '#' comments, a header line) through row(). */
static int tsv_rows(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
		    int (*row)(struct sigdb *, const char *, size_t, char *, struct cd_err *),
		    struct cd_err *err)
{
	char line[4096];
	struct cd_span l;
	size_t pos = 0, lineno = 0;
	int header = 1, rc;

	if (n > SIG_FILE_MAX)
		return err_set(err, CD_EFORMAT, "%s: larger than %d bytes", name, SIG_FILE_MAX);
	sigdb_hash_bytes(db, name, strlen(name) + 1);
	sigdb_hash_bytes(db, p, n);
	while (span_line(p, n, &pos, 0, &l)) {
		size_t len = l.n;
		lineno++;
		if (len >= sizeof(line))
			return err_set(err, CD_EFORMAT, "%s:%zu: line too long", name, lineno);
		memcpy(line, l.p, len);
		line[len] = '\0';
		if (!len || line[0] == '#')
			continue;
		if (header) { /* the column names */
			header = 0;
			continue;
		}
		rc = row(db, name, lineno, line, err);
		if (rc)
			return rc;
	}
	return 0;
}

int sigdb_parse_fallback(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
			 struct cd_err *err)
{
	return tsv_rows(db, name, p, n, fallback_row, err);
}

/* Cut l at tabs into want fields; 0 when it has exactly that many. */
static int cut_fields(char *l, char **f, size_t want)
{
	size_t k = 0;

	f[k++] = l;
	while (k < want && (l = strchr(l, '\t')) != NULL) {
		*l++ = '\0';
		f[k++] = l;
	}
	return k == want && !strchr(f[want - 1], '\t') ? 0 : -1;
}

/* "cat-a,cat-b" into a mask of sig_categories; -1 on an unknown name. */
static int64_t category_mask(char *v)
{
	uint32_t mask = 0;

	while (v) {
		char *comma = strchr(v, ',');
		int i;
		if (comma)
			*comma = '\0';
		if ((i = sig_category_index(v)) < 0)
			return -1;
		mask |= (uint32_t)1 << i;
		v = comma ? comma + 1 : NULL;
	}
	return (int64_t)mask;
}

/* Two public sources: two URLs separated by blanks. */
static int two_sources(const char *v)
{
	size_t k = 0;

	while (*v) {
		while (*v == ' ')
			v++;
		if (!*v)
			break;
		if (!str_has_prefix(v, "https://") && !str_has_prefix(v, "http://"))
			return 0;
		k++;
		while (*v && *v != ' ')
			v++;
	}
	return k >= 2;
}

/* The slot of a fact name among the table's distinct names (-1: full). */
int sigdb_ctx_index(const struct sigdb *db, const char *fact)
{
	size_t i;

	for (i = 0; i < db->n_ctx_names; i++)
		if (!strcmp(db->ctx_names[i], fact))
			return (int)i;
	return -1;
}

static int ctx_slot(struct sigdb *db, const char *fact, uint32_t cats)
{
	int k = sigdb_ctx_index(db, fact);
	size_t i = k < 0 ? db->n_ctx_names : (size_t)k;

	if (i == SIG_CTX_NAMES)
		return -1;
	if (i == db->n_ctx_names)
		db->ctx_names[db->n_ctx_names++] = fact;
	db->ctx_cats[i] |= cats;
	return (int)i;
}

/* A context fact pattern: the template pattern gives fact (its capture of
 * that name; with constant, the pattern captures nothing and value is the
 * fact), a key fact of the categories cats, with its example line. */
static int ctx_add(struct sigdb *db, const char *name, size_t lineno, const char *fact,
		   uint32_t cats, char *const f[4], int constant, struct cd_err *err)
{
	struct cd_err e2 = {0};
	struct sig_ctx *c;
	size_t i;

	if (db->n_ctx >= SIG_CTX_MAX)
		return err_set(err, CD_EFORMAT, "%s:%zu: more than %d context rows", name, lineno,
			       SIG_CTX_MAX);
	c = &db->ctx[db->n_ctx];
	c->fact = arena_strdup(&db->arena, fact);
	c->pattern = arena_strdup(&db->arena, f[0]);
	c->example = arena_strdup(&db->arena, f[1]);
	c->value = arena_strdup(&db->arena, f[2]);
	c->source = arena_strdup(&db->arena, f[3]);
	c->tmpl = arena_alloc(&db->arena, sizeof(*c->tmpl));
	if (!c->fact || !c->pattern || !c->example || !c->value || !c->source || !c->tmpl)
		return err_set(err, CD_ENOMEM, "out of memory");
	if (tmpl_compile(c->tmpl, c->pattern, 1, &db->arena, &e2))
		return err_set(err, CD_EFORMAT, "%s:%zu: %s", name, lineno, e2.msg);
	/* "gcc (GCC)": literals split by blanks may make up the 6 bytes (the
	 * run is the anchor, tools/sigc.c) */
	if (c->tmpl->longest_lit < SIG_LIT_MIN && c->tmpl->longest_run < SIG_LIT_MIN)
		return err_set(err, CD_EFORMAT,
			       "%s:%zu: the pattern needs a literal of 6+ bytes, or a run of "
			       "literals split by blanks of 6+",
			       name, lineno);
	for (c->cap = -1, i = 0; i < c->tmpl->n_caps; i++)
		if (!strcmp(c->tmpl->cap_names[i], c->fact))
			c->cap = (int)i;
	if (constant ? c->tmpl->n_caps != 0 : c->cap < 0)
		return err_set(err, CD_EFORMAT,
			       constant ? "%s:%zu: the pattern captures nothing here"
					: "%s:%zu: the pattern does not capture %s",
			       name, lineno, c->fact);
	for (c->bare_int = 0, i = 0; c->cap >= 0 && i < c->tmpl->n_ops; i++)
		if (c->tmpl->ops[i].cap == c->cap) { /* the capture's first op */
			c->bare_int = c->tmpl->ops[i].kind == TMPL_CLASS &&
				      c->tmpl->ops[i].cls == TMPL_C_INT && !c->tmpl->ops[i].cont;
			break;
		}
	c->categories = cats;
	if ((c->slot = ctx_slot(db, c->fact, c->categories)) < 0)
		return err_set(err, CD_EFORMAT, "%s:%zu: more than %d fact names", name, lineno,
			       SIG_CTX_NAMES);
	db->n_ctx++;
	return 0;
}

/* One row of the context facts: fact, categories, pattern, example, value, source. */
static int ctx_row(struct sigdb *db, const char *name, size_t lineno, char *l, struct cd_err *err)
{
	char *f[6];
	int64_t cats;

	if (cut_fields(l, f, 6))
		return err_set(err, CD_EFORMAT, "%s:%zu: needs 6 tab-separated fields", name,
			       lineno);
	if ((cats = category_mask(f[1])) < 0)
		return err_set(err, CD_EFORMAT, "%s:%zu: categories must name categories", name,
			       lineno);
	if (!*f[0] || !*f[2] || !*f[3] || !*f[4] || !two_sources(f[5]))
		return err_set(err, CD_EFORMAT,
			       "%s:%zu: a fact, a pattern, an example, its value and two sources "
			       "are needed",
			       name, lineno);
	return ctx_add(db, name, lineno, f[0], (uint32_t)cats, f + 2, 0, err);
}

int sigdb_parse_facts(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
		      struct cd_err *err)
{
	return tsv_rows(db, name, p, n, ctx_row, err);
}

/* One GPU model: the name as logs print it, its compute capability X.Y, two
 * sources. The name is the pattern and its own example; the fact is cc, a
 * key fact of the architecture and data type categories. */
static int model_row(struct sigdb *db, const char *name, size_t lineno, char *l, struct cd_err *err)
{
	char *f[3], *g[4], of[] = "arch-unsupported,dtype-unsupported";
	int64_t cats = category_mask(of);
	const char *p;

	if (cut_fields(l, f, 3))
		return err_set(err, CD_EFORMAT, "%s:%zu: needs 3 tab-separated fields", name,
			       lineno);
	for (p = f[1]; *p >= '0' && *p <= '9'; p++)
		;
	if (!*f[0] || p == f[1] || p - f[1] > 2 || *p != '.' || p[1] < '0' || p[1] > '9' || p[2] ||
	    !two_sources(f[2]) || cats < 0)
		return err_set(err, CD_EFORMAT,
			       "%s:%zu: a model, its compute capability X.Y and two sources are "
			       "needed",
			       name, lineno);
	g[0] = f[0];
	g[1] = f[0];
	g[2] = f[1];
	g[3] = f[2];
	return ctx_add(db, name, lineno, "cc", (uint32_t)cats, g, 1, err);
}

int sigdb_parse_models(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
		       struct cd_err *err)
{
	return tsv_rows(db, name, p, n, model_row, err);
}

/* One alternative: signature, id, category, title, tell apart, fix, sources. */
static int also_row(struct sigdb *db, const char *name, size_t lineno, char *l, struct cd_err *err)
{
	struct sig_also *a;
	char *f[7], *v, *end;

	if (cut_fields(l, f, 7))
		return err_set(err, CD_EFORMAT, "%s:%zu: needs 7 tab-separated fields", name,
			       lineno);
	if (db->n_also >= SIG_ALSO_MAX)
		return err_set(err, CD_EFORMAT, "%s:%zu: more than %d rows", name, lineno,
			       SIG_ALSO_MAX);
	if (!sigdb_valid_id(f[1]) || sig_category_index(f[2]) < 0 || !*f[3] || !*f[4] || !*f[5] ||
	    !two_sources(f[6]))
		return err_set(err, CD_EFORMAT,
			       "%s:%zu: an id, a category, a title, how to tell them apart, a "
			       "fix and two sources are needed",
			       name, lineno);
	a = &db->also[db->n_also];
	memset(a, 0, sizeof(*a));
	a->of_id = arena_strdup(&db->arena, f[0]);
	a->alt.id = arena_strdup(&db->arena, f[1]);
	a->alt.category = sig_categories[sig_category_index(f[2])];
	a->alt.role = SIG_CAUSE;
	a->alt.title = arena_strdup(&db->arena, f[3]);
	a->alt.explain = arena_strdup(&db->arena, f[4]);
	a->alt.fix.v[a->alt.fix.n++] = arena_strdup(&db->arena, f[5]);
	a->alt.file = name;
	a->alt.line = lineno;
	for (v = f[6]; *v;) { /* the URLs, blank-separated */
		while (*v == ' ')
			v++;
		for (end = v; *end && *end != ' '; end++)
			;
		if (end > v && a->alt.source.n < SIG_LIST_MAX)
			a->alt.source.v[a->alt.source.n++] =
				arena_strndup(&db->arena, v, (size_t)(end - v));
		v = end;
	}
	if (!a->of_id || !a->alt.id || !a->alt.title || !a->alt.explain || !a->alt.fix.v[0])
		return err_set(err, CD_ENOMEM, "out of memory");
	db->n_also++;
	return 0;
}

int sigdb_parse_also(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
		     struct cd_err *err)
{
	return tsv_rows(db, name, p, n, also_row, err);
}

/* Each alternative names a signature of another category, and its id is
 * nobody else's. */
int sigdb_check_also(struct sigdb *db, struct cd_err *err)
{
	size_t i, j;

	for (i = 0; i < db->n_also; i++) {
		struct sig_also *a = &db->also[i];
		const struct sig *of = sigdb_find(db, a->of_id);
		if (!of)
			return err_set(err, CD_EFORMAT, "%s:%zu: no signature %s", a->alt.file,
				       a->alt.line, a->of_id);
		if (!strcmp(of->category, a->alt.category) || sigdb_find(db, a->alt.id))
			return err_set(err, CD_EFORMAT,
				       "%s:%zu: %s: the alternative needs an id of its own and "
				       "another category than %s's",
				       a->alt.file, a->alt.line, a->alt.id, a->of_id);
		for (j = 0; j < i; j++)
			if (!strcmp(db->also[j].alt.id, a->alt.id))
				return err_set(err, CD_EFORMAT, "%s:%zu: duplicate id %s",
					       a->alt.file, a->alt.line, a->alt.id);
		a->of = (uint32_t)(of - db->sigs);
		a->alt.severity = of->severity;
	}
	return 0;
}
