/* sigdb: see sigdb.h. One stanza per signature, stanzas separated by blank
 * lines, "key: value" lines, a line starting with a blank continues the
 * value above, '#' at the start of a line is a comment. */
#include "explain/sigdb.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/span.h"
#include "core/str.h"
#include "core/vec.h"

/* The contract categories (DESIGN.md, `diagnoses[].category`). */
const char *const sig_categories[] = {
	"missing-headers",
	"nvcc-mismatch",
	"host-compiler",
	"driver-too-old",
	"missing-shared-lib",
	"undefined-symbol",
	"arch-unsupported",
	"nccl",
	"cuda-init",
	"dtype-unsupported",
	"hf-load",
	"oom-at-load",
	"jit-cache",
	"lib-path-pollution",
	NULL,
};

int sig_category_index(const char *name)
{
	int i;

	for (i = 0; sig_categories[i]; i++)
		if (!strcmp(sig_categories[i], name))
			return i;
	return -1;
}

void sigdb_init(struct sigdb *db)
{
	memset(db, 0, sizeof(*db));
	arena_init(&db->arena);
	db->arena.max_total = (size_t)32 << 20;
	db->hash = STR_FNV_SEED;
}

void sigdb_free(struct sigdb *db)
{
	if (!db)
		return;
	arena_free(&db->arena);
	free(db->sigs);
	free(db->pat_sig);
	free(db->pat_slot);
	memset(db, 0, sizeof(*db));
}

static void hash_bytes(struct sigdb *db, const void *p, size_t n)
{
	db->hash = str_fnv1a(db->hash, p, n);
}

struct parser {
	struct sigdb *db;
	const char *file;
	size_t lineno;
	struct sig *cur;   /* stanza being filled, NULL between stanzas */
	const char **last; /* value a continuation line extends */
	struct cd_err *err;
};

static int perr(struct parser *ps, const char *msg, const char *arg)
{
	return err_set(ps->err, CD_EFORMAT, "%s:%zu: %s%s%s", ps->file, ps->lineno, msg,
		       arg ? " " : "", arg ? arg : "");
}

static struct sig *new_sig(struct parser *ps)
{
	struct sigdb *db = ps->db;
	struct sig *s = vec_grow(NULL, db->sigs, &db->cap, db->n, sizeof(*s), 64, SIGDB_MAX);

	if (!s)
		return NULL;
	db->sigs = s;
	s = &db->sigs[db->n++];
	memset(s, 0, sizeof(*s));
	s->severity = CD_SEV_ERROR;
	s->role = SIG_CAUSE;
	s->priority = 50;
	s->caseless = 1; /* other tools print the same words in other cases */
	s->file = ps->file;
	s->line = ps->lineno;
	return s;
}

static int list_add(struct parser *ps, struct sig_list *l, const char *v)
{
	if (l->n >= SIG_LIST_MAX)
		return perr(ps, "too many values for this key", NULL);
	l->v[l->n] = v;
	ps->last = &l->v[l->n];
	l->n++;
	return 0;
}

static int set_one(struct parser *ps, const char **slot, const char *v)
{
	if (*slot)
		return perr(ps, "key given twice", NULL);
	*slot = v;
	ps->last = slot;
	return 0;
}

static int set_enum(struct parser *ps, const char *key, const char *v)
{
	struct sig *s = ps->cur;
	int pr;

	ps->last = NULL;
	if (!strcmp(key, "severity")) {
		if (!strcmp(v, "error"))
			s->severity = CD_SEV_ERROR;
		else if (!strcmp(v, "warning"))
			s->severity = CD_SEV_WARNING;
		else if (!strcmp(v, "info"))
			s->severity = CD_SEV_INFO;
		else
			return perr(ps, "severity must be error, warning or info:", v);
	} else if (!strcmp(key, "role")) {
		if (!strcmp(v, "cause"))
			s->role = SIG_CAUSE;
		else if (!strcmp(v, "symptom"))
			s->role = SIG_SYMPTOM;
		else
			return perr(ps, "role must be cause or symptom:", v);
	} else if (!strcmp(key, "priority")) {
		if (str_to_int(v, 0, 100, &pr))
			return perr(ps, "priority must be 0..100:", v);
		s->priority = pr;
	} else if (!strcmp(key, "flags")) {
		if (!strcmp(v, "case")) /* the case tells two messages apart */
			s->caseless = 0;
		else if (!strcmp(v, "caseless")) /* the default */
			s->caseless = 1;
		else
			return perr(ps, "flags must be case or caseless:", v);
	} else {
		return perr(ps, "unknown key", key);
	}
	return 0;
}

static int set_key(struct parser *ps, const char *key, const char *v)
{
	struct sig *s = ps->cur;

	if (!strcmp(key, "category")) {
		if (sig_category_index(v) < 0)
			return perr(ps, "unknown category", v);
		return set_one(ps, &s->category, v);
	}
	if (!strcmp(key, "title"))
		return set_one(ps, &s->title, v);
	if (!strcmp(key, "explain"))
		return set_one(ps, &s->explain, v);
	if (!strcmp(key, "pattern"))
		return list_add(ps, &s->pattern, v);
	if (!strcmp(key, "fix"))
		return list_add(ps, &s->fix, v);
	if (!strcmp(key, "source")) {
		if (!str_has_prefix(v, "https://") && !str_has_prefix(v, "http://"))
			return perr(ps, "a source is a URL:", v);
		return list_add(ps, &s->source, v);
	}
	if (!strcmp(key, "sample"))
		return list_add(ps, &s->sample, v);
	if (!strcmp(key, "nomatch"))
		return list_add(ps, &s->nomatch, v);
	return set_enum(ps, key, v);
}

static int valid_id(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-'))
			return 0;
	return 1;
}

/* A continuation line: append to the value above with one space. Samples,
 * near misses and patterns are single log lines and cannot continue. */
static int continue_value(struct parser *ps, const char *v)
{
	char *j;

	if (!ps->cur || !ps->last)
		return perr(ps, "continuation line without a value to continue", NULL);
	j = arena_printf(&ps->db->arena, "%s %s", *ps->last, v);
	if (!j)
		return err_set(ps->err, CD_ENOMEM, "out of memory");
	*ps->last = j;
	return 0;
}

static int one_line(struct parser *ps, const char *line, size_t n)
{
	char *copy, *key, *colon, *v;

	if (n && line[n - 1] == '\r')
		n--;
	if (n && line[0] == '#')
		return 0;
	copy = arena_strndup(&ps->db->arena, line, n);
	if (!copy)
		return err_set(ps->err, CD_ENOMEM, "out of memory");
	if (memchr(line, '\0', n))
		return perr(ps, "NUL byte", NULL);
	if (!*str_trim(copy)) {
		ps->cur = NULL;
		ps->last = NULL;
		return 0;
	}
	if (line[0] == ' ' || line[0] == '\t')
		return continue_value(ps, copy);
	colon = strchr(copy, ':');
	if (!colon)
		return perr(ps, "expected 'key: value'", NULL);
	*colon = '\0';
	key = copy;
	v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	if (!*v)
		return perr(ps, "empty value for", key);
	if (!strcmp(key, "id")) {
		if (ps->cur)
			return perr(ps, "'id' must open a stanza (blank line missing?)", NULL);
		if (!valid_id(v))
			return perr(ps, "id must be lower-case letters, digits and '-':", v);
		ps->cur = new_sig(ps);
		if (!ps->cur)
			return perr(ps, "too many signatures", NULL);
		ps->cur->id = v;
		ps->last = NULL;
		return 0;
	}
	if (!ps->cur)
		return perr(ps, "a stanza must start with 'id:'", NULL);
	return set_key(ps, key, v);
}

int sigdb_parse(struct sigdb *db, const char *name, const uint8_t *p, size_t n, struct cd_err *err)
{
	struct parser ps = {db, name, 0, NULL, NULL, err};
	struct cd_span l;
	size_t pos = 0;
	int rc;

	if (n > SIG_FILE_MAX)
		return err_set(err, CD_EFORMAT, "%s: larger than %d bytes", name, SIG_FILE_MAX);
	ps.file = arena_strdup(&db->arena, name);
	if (!ps.file)
		return err_set(err, CD_ENOMEM, "out of memory");
	hash_bytes(db, name, strlen(name) + 1);
	hash_bytes(db, p, n);
	while (span_line(p, n, &pos, 0, &l)) {
		ps.lineno++;
		rc = one_line(&ps, (const char *)l.p, l.n);
		if (rc)
			return rc;
	}
	return 0;
}

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
	hash_bytes(db, name, strlen(name) + 1);
	hash_bytes(db, p, n);
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
static int ctx_slot(struct sigdb *db, const char *fact, uint32_t cats)
{
	size_t i;

	for (i = 0; i < db->n_ctx_names; i++)
		if (!strcmp(db->ctx_names[i], fact))
			break;
	if (i == SIG_CTX_NAMES)
		return -1;
	if (i == db->n_ctx_names)
		db->ctx_names[db->n_ctx_names++] = fact;
	db->ctx_cats[i] |= cats;
	return (int)i;
}

/* One row of the context facts: fact, categories, pattern, example, value, source. */
static int ctx_row(struct sigdb *db, const char *name, size_t lineno, char *l, struct cd_err *err)
{
	struct cd_err e2 = {0};
	struct sig_ctx *c;
	char *f[6];
	int64_t cats;
	size_t i;

	if (cut_fields(l, f, 6))
		return err_set(err, CD_EFORMAT, "%s:%zu: needs 6 tab-separated fields", name,
			       lineno);
	if (db->n_ctx >= SIG_CTX_MAX)
		return err_set(err, CD_EFORMAT, "%s:%zu: more than %d rows", name, lineno,
			       SIG_CTX_MAX);
	if ((cats = category_mask(f[1])) < 0)
		return err_set(err, CD_EFORMAT, "%s:%zu: categories must name categories", name,
			       lineno);
	if (!*f[0] || !*f[2] || !*f[3] || !*f[4] || !two_sources(f[5]))
		return err_set(err, CD_EFORMAT,
			       "%s:%zu: a fact, a pattern, an example, its value and two sources "
			       "are needed",
			       name, lineno);
	c = &db->ctx[db->n_ctx];
	c->fact = arena_strdup(&db->arena, f[0]);
	c->pattern = arena_strdup(&db->arena, f[2]);
	c->example = arena_strdup(&db->arena, f[3]);
	c->value = arena_strdup(&db->arena, f[4]);
	c->source = arena_strdup(&db->arena, f[5]);
	c->tmpl = arena_alloc(&db->arena, sizeof(*c->tmpl));
	if (!c->fact || !c->pattern || !c->example || !c->value || !c->source || !c->tmpl)
		return err_set(err, CD_ENOMEM, "out of memory");
	if (tmpl_compile(c->tmpl, c->pattern, 1, &db->arena, &e2))
		return err_set(err, CD_EFORMAT, "%s:%zu: %s", name, lineno, e2.msg);
	/* "gcc (GCC)": literals split by blanks may make up the 6 bytes (the
	 * run is the anchor, tools/sigc.c) */
	if (c->tmpl->longest_lit < 6 && c->tmpl->longest_run < 6)
		return err_set(err, CD_EFORMAT,
			       "%s:%zu: the pattern needs a literal of 6+ bytes, or a run of "
			       "literals split by blanks of 6+",
			       name, lineno);
	for (c->cap = -1, i = 0; i < c->tmpl->n_caps; i++)
		if (!strcmp(c->tmpl->cap_names[i], c->fact))
			c->cap = (int)i;
	if (c->cap < 0)
		return err_set(err, CD_EFORMAT, "%s:%zu: the pattern does not capture %s", name,
			       lineno, c->fact);
	for (c->bare_int = 0, i = 0; i < c->tmpl->n_ops; i++)
		if (c->tmpl->ops[i].cap == c->cap) { /* the capture's first op */
			c->bare_int = c->tmpl->ops[i].kind == TMPL_CLASS &&
				      c->tmpl->ops[i].cls == TMPL_C_INT && !c->tmpl->ops[i].cont;
			break;
		}
	c->categories = (uint32_t)cats;
	if ((c->slot = ctx_slot(db, c->fact, c->categories)) < 0)
		return err_set(err, CD_EFORMAT, "%s:%zu: more than %d fact names", name, lineno,
			       SIG_CTX_NAMES);
	db->n_ctx++;
	return 0;
}

int sigdb_parse_facts(struct sigdb *db, const char *name, const uint8_t *p, size_t n,
		      struct cd_err *err)
{
	return tsv_rows(db, name, p, n, ctx_row, err);
}

static int check_sig(struct sigdb *db, struct sig *s, struct cd_err *err)
{
	struct cd_err e2 = {0};
	size_t i;

	if (!s->category || !s->title || !s->explain || !s->pattern.n || !s->fix.n ||
	    !s->source.n || !s->sample.n || !s->nomatch.n)
		return err_set(err, CD_EFORMAT,
			       "%s:%zu: %s: needs category, title, explain and at least one "
			       "pattern, fix, source, sample and nomatch",
			       s->file, s->line, s->id);
	for (i = 0; i < s->pattern.n; i++) {
		s->tmpl[i] = arena_alloc(&db->arena, sizeof(struct tmpl));
		if (!s->tmpl[i])
			return err_set(err, CD_ENOMEM, "out of memory");
		if (tmpl_compile(s->tmpl[i], s->pattern.v[i], s->caseless, &db->arena, &e2))
			return err_set(err, CD_EFORMAT, "%s:%zu: %s: pattern %zu: %s", s->file,
				       s->line, s->id, i + 1, e2.msg);
		/* A pattern without a literal of 6 bytes would be slow to scan for
		 * and would match too much to name a root cause. */
		if (s->tmpl[i]->longest_lit < 6)
			return err_set(err, CD_EFORMAT,
				       "%s:%zu: %s: pattern %zu needs a literal of 6+ bytes",
				       s->file, s->line, s->id, i + 1);
	}
	return 0;
}

int sigdb_finish(struct sigdb *db, struct cd_err *err)
{
	size_t i, j, k = 0;
	int rc;

	for (i = 0; i < db->n; i++) {
		rc = check_sig(db, &db->sigs[i], err);
		if (rc)
			return rc;
		for (j = 0; j < i; j++)
			if (!strcmp(db->sigs[i].id, db->sigs[j].id))
				return err_set(err, CD_EFORMAT, "%s:%zu: duplicate id %s",
					       db->sigs[i].file, db->sigs[i].line, db->sigs[i].id);
		db->n_pat += db->sigs[i].pattern.n;
	}
	db->pat_sig = calloc(db->n_pat ? db->n_pat : 1, sizeof(*db->pat_sig));
	db->pat_slot = calloc(db->n_pat ? db->n_pat : 1, sizeof(*db->pat_slot));
	if (!db->pat_sig || !db->pat_slot)
		return err_set(err, CD_ENOMEM, "out of memory");
	for (i = 0; i < db->n; i++)
		for (j = 0; j < db->sigs[i].pattern.n; j++) {
			db->pat_sig[k] = (uint32_t)i;
			db->pat_slot[k++] = (uint8_t)j;
		}
	return 0;
}

const struct sig *sigdb_find(const struct sigdb *db, const char *id)
{
	size_t i;

	for (i = 0; i < db->n; i++)
		if (!strcmp(db->sigs[i].id, id))
			return &db->sigs[i];
	return NULL;
}
