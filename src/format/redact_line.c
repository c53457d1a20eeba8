/* redact_line: one line through every rule, in order. Each rule rewrites the
 * line (s->cur) into s->nxt and the two swap, so a later rule sees what an
 * earlier one left. A block rule (a shape with an end) keeps its begin line
 * up to the marker, replaces what follows, and swallows whole lines until
 * its end marker; a block that never ends hides the rest of the text. */
#include <ctype.h>
#include <string.h>

#include "format/redact_int.h"

static void swap(struct rd_set *s)
{
	struct cd_buf t = s->cur;

	s->cur = s->nxt;
	s->nxt = t;
}

static int finish(struct rd_set *s, size_t done, size_t k, int *changed)
{
	if (!k)
		return 0;
	if (buf_append(&s->nxt, s->cur.p + done, s->cur.len - done))
		return CD_ENOMEM;
	swap(s);
	*changed = 1;
	return 0;
}

/* cur[done..vs) and the replacement go to nxt; the value ends at ve. */
static int put(struct rd_set *s, size_t *done, size_t vs, size_t ve, const char *repl)
{
	if (buf_append(&s->nxt, s->cur.p + *done, vs - *done) || buf_puts(&s->nxt, repl))
		return CD_ENOMEM;
	*done = ve;
	return 0;
}

static int re_at(struct rd_set *s, const struct rd_rule *r, const regex_t *re, size_t pos,
		 regmatch_t *m, int member, struct cd_err *err)
{
	char msg[128];
	int rc;

	m[0].rm_so = (regoff_t)pos;
	m[0].rm_eo = (regoff_t)s->cur.len;
	rc = regexec(re, s->cur.p, RD_GROUPS, m, REG_STARTEND | (pos ? REG_NOTBOL : 0));
	if (rc == REG_NOMATCH)
		return 0;
	if (rc) {
		regerror(rc, re, msg, sizeof(msg));
		return rd_fail(s, r, member, err, msg);
	}
	return 1;
}

/* The next value of r in cur at or after pos: 1 with [*vs, *ve), 0, or an error. */
static int next_match(struct rd_stream *st, const struct rd_rule *r, size_t pos, size_t *vs,
		      size_t *ve, struct cd_err *err)
{
	struct rd_set *s = st->set;
	regmatch_t m[RD_GROUPS];
	int rc;

	switch (r->bi) {
	case RD_BI_IPV4: return rd_find_ipv4(s->cur.p, s->cur.len, pos, vs, ve);
	case RD_BI_IPV6: return rd_find_ipv6(s->cur.p, s->cur.len, pos, vs, ve);
	case RD_BI_MAC: return rd_find_mac(s->cur.p, s->cur.len, pos, vs, ve);
	case RD_BI_NONE: break;
	default: return 0; /* @host, @user, @home: values only */
	}
	rc = re_at(s, r, &r->re, pos, m, st->member, err);
	if (rc <= 0)
		return rc;
	if (m[r->group].rm_so < 0) {
		*vs = *ve = (size_t)m[0].rm_eo; /* the group took no part: nothing to replace */
		return 1;
	}
	*vs = (size_t)m[r->group].rm_so;
	*ve = (size_t)m[r->group].rm_eo;
	return 1;
}

static int apply_match(struct rd_stream *st, size_t idx, int *changed, struct cd_err *err)
{
	struct rd_set *s = st->set;
	struct rd_rule *r = &s->rules[idx];
	size_t pos = 0, done = 0, k = 0, vs, ve;
	const char *alias;
	int rc = 0;

	buf_reset(&s->nxt);
	while (pos <= s->cur.len && (rc = next_match(st, r, pos, &vs, &ve, err)) == 1) {
		size_t next = ve > pos ? ve : pos + 1;
		if (ve <= vs || rd_is_allowed(s, r, s->cur.p, vs, ve)) {
			pos = next;
			continue;
		}
		alias = rd_alias_of(s, r, s->cur.p + vs, ve - vs);
		if (!alias)
			return rd_fail(s, r, st->member, err, "out of memory");
		pos = next;
		if (strlen(alias) == ve - vs && !memcmp(alias, s->cur.p + vs, ve - vs))
			continue; /* already its own replacement */
		if (rd_learn(s, idx, s->cur.p + vs, ve - vs) || put(s, &done, vs, ve, alias))
			return rd_fail(s, r, st->member, err, "out of memory");
		k++;
	}
	if (rc < 0)
		return rc;
	rd_count(r, st->member, k);
	return finish(s, done, k, changed);
}

static int path_char(char c)
{
	return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-' || c == '/';
}

/* May a literal value at [b, e) of p[0..n) be replaced? Words for names,
 * path components for a home directory. */
static int bounded(const struct rd_rule *r, const char *p, size_t n, size_t b, size_t e)
{
	if (r->bi == RD_BI_HOME)
		return (b == 0 || !path_char(p[b - 1])) &&
		       (e == n || p[e] == '/' || !path_char(p[e]));
	return (b == 0 || !isalnum((unsigned char)p[b - 1])) &&
	       (e == n || !isalnum((unsigned char)p[e]));
}

static int apply_value(struct rd_stream *st, struct rd_value *v, int *changed, struct cd_err *err)
{
	struct rd_set *s = st->set;
	struct rd_rule *r = &s->rules[v->rule];
	const char *hay = s->cur.p, *needle = r->icase ? v->lower : v->value, *hit;
	size_t pos = 0, done = 0, k = 0, i;

	if (r->icase) {
		buf_reset(&s->tmp);
		if (buf_append(&s->tmp, s->cur.p, s->cur.len))
			return rd_fail(s, r, st->member, err, "out of memory");
		for (i = 0; i < s->tmp.len; i++)
			s->tmp.p[i] = (char)tolower((unsigned char)s->tmp.p[i]);
		hay = s->tmp.p;
	}
	buf_reset(&s->nxt);
	while (pos < s->cur.len && (hit = memmem(hay + pos, s->cur.len - pos, needle, v->len))) {
		size_t b = (size_t)(hit - hay), e = b + v->len;
		pos = b + 1;
		if (!bounded(r, s->cur.p, s->cur.len, b, e))
			continue;
		if (!v->alias)
			v->alias = rd_alias_of(s, r, v->value, v->len);
		if (!v->alias || put(s, &done, b, e, v->alias))
			return rd_fail(s, r, st->member, err, "out of memory");
		k++;
		pos = e;
	}
	rd_count(r, st->member, k);
	return finish(s, done, k, changed);
}

static int apply_values(struct rd_stream *st, size_t idx, int *changed, struct cd_err *err)
{
	struct rd_set *s = st->set;
	size_t i;
	int rc;

	for (i = 0; i < s->n_values; i++)
		if (s->values[i].rule == idx && (rc = apply_value(st, &s->values[i], changed, err)))
			return rc;
	return 0;
}

/* A block's begin marker is kept, what follows it up to the end marker
 * replaced (once per block); no end on this line: the rest of it goes. */
static int apply_block(struct rd_stream *st, size_t idx, int *changed, struct cd_err *err)
{
	struct rd_set *s = st->set;
	struct rd_rule *r = &s->rules[idx];
	regmatch_t m[RD_GROUPS];
	size_t pos = 0, done = 0, k = 0;
	int rc = 0;

	buf_reset(&s->nxt);
	while (pos <= s->cur.len && (rc = re_at(s, r, &r->re, pos, m, st->member, err)) == 1) {
		size_t be = (size_t)m[0].rm_eo;
		if (put(s, &done, be, be, r->repl))
			return rd_fail(s, r, st->member, err, "out of memory");
		k++;
		rc = re_at(s, r, &r->end, be, m, st->member, err);
		if (rc < 0)
			return rc;
		if (!rc) {
			st->block = (int)idx;
			done = s->cur.len;
			break;
		}
		done = (size_t)m[0].rm_so;
		pos = (size_t)m[0].rm_eo > be ? (size_t)m[0].rm_eo : be + 1;
	}
	if (rc < 0)
		return rc;
	rd_count(r, st->member, k);
	return finish(s, done, k, changed);
}

/* Inside a block: the line goes unless it holds the end marker, from which
 * on it is kept. */
static int block_end(struct rd_stream *st, int *drop, struct cd_err *err)
{
	struct rd_set *s = st->set;
	struct rd_rule *r = &s->rules[st->block];
	regmatch_t m[RD_GROUPS];
	size_t es;
	int rc = re_at(s, r, &r->end, 0, m, st->member, err);

	if (rc <= 0) {
		*drop = rc == 0;
		return rc;
	}
	es = (size_t)m[0].rm_so;
	memmove(s->cur.p, s->cur.p + es, s->cur.len - es + 1);
	s->cur.len -= es;
	st->block = -1;
	return 0;
}

static int run_rule(struct rd_stream *st, size_t i, const uint8_t *fl, int *vars_done,
		    struct cd_err *err)
{
	struct rd_set *s = st->set;
	struct rd_rule *r = &s->rules[i];
	int changed = 0, rc;
	size_t k;

	if (r->kind == RD_KIND_VAR) {
		if (*vars_done)
			return 0;
		*vars_done = 1;
		for (k = 0; k < s->n; k++)
			if (s->rules[k].kind == RD_KIND_VAR && fl[k])
				return rd_vars(st, &changed, err);
		return 0;
	}
	if (!fl[i])
		return 0;
	rc = r->has_end ? apply_block(st, i, &changed, err) : apply_match(st, i, &changed, err);
	if (!rc && st->block < 0)
		rc = apply_values(st, i, &changed, err);
	return rc;
}

int rd_line(struct rd_stream *st, const char *p, size_t n, int *drop, struct cd_err *err)
{
	struct rd_set *s = st->set;
	uint8_t fl[RD_RULES_MAX];
	size_t i;
	int vars_done = 0, rc;

	*drop = 0;
	buf_reset(&s->cur);
	buf_reset(&s->low);
	if (buf_append(&s->cur, p, n) || buf_append(&s->low, p, n))
		return err_set(err, CD_ENOMEM, "a line of %zu bytes", n);
	for (i = 0; i < n; i++)
		s->low.p[i] = (char)tolower((unsigned char)s->low.p[i]);
	for (i = 0; s->fail[0] && i < s->n; i++)
		if (!strcmp(s->rules[i].name, s->fail))
			return rd_fail(s, &s->rules[i], st->member, err, "made to fail (test)");
	if (st->block >= 0 && ((rc = block_end(st, drop, err)) || *drop))
		return rc;
	rd_flags(s, s->low.p, s->low.len, fl);
	for (i = 0; i < s->n; i++)
		if ((rc = run_rule(st, i, fl, &vars_done, err)))
			return rc;
	if (buf_append(st->out, s->cur.p, s->cur.len))
		return err_set(err, CD_ENOMEM, "%s: larger than %zu bytes",
			       st->member >= 0 ? s->members[st->member] : "text", st->out->max);
	return 0;
}
