/* sigdb: see sigdb.h. One stanza per signature, stanzas separated by blank
 * lines, "key: value" lines, a line starting with a blank continues the
 * value above, '#' at the start of a line is a comment. */
#include "explain/sigdb.h"
#include "explain/sigdb_int.h"

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

void sigdb_hash_bytes(struct sigdb *db, const void *p, size_t n)
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

int sigdb_valid_id(const char *s)
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
		if (!sigdb_valid_id(v))
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
	sigdb_hash_bytes(db, name, strlen(name) + 1);
	sigdb_hash_bytes(db, p, n);
	while (span_line(p, n, &pos, 0, &l)) {
		ps.lineno++;
		rc = one_line(&ps, (const char *)l.p, l.n);
		if (rc)
			return rc;
	}
	return 0;
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
		if (s->tmpl[i]->longest_lit < SIG_LIT_MIN)
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
	return sigdb_check_also(db, err);
}

const struct sig *sigdb_find(const struct sigdb *db, const char *id)
{
	size_t i;

	for (i = 0; i < db->n; i++)
		if (!strcmp(db->sigs[i].id, id))
			return &db->sigs[i];
	return NULL;
}

size_t sigdb_n_anchored(const struct sigdb *db)
{
	return db->n_pat + db->n_ctx;
}

struct tmpl *sigdb_anchored(const struct sigdb *db, size_t i)
{
	if (i < db->n_pat)
		return db->sigs[db->pat_sig[i]].tmpl[db->pat_slot[i]];
	i -= db->n_pat;
	return i < db->n_ctx && db->ctx[i].tmpl->longest_lit >= SIG_LIT_MIN ? db->ctx[i].tmpl
									    : NULL;
}
