/* redact: the rule set, its consistent aliases and its ledger (see redact.h).
 * Aliases are numbered per replacement text, so two rules that both write
 * "user{n}" (the user running the tool, and another user's /home/NAME) give a
 * name one number. Values are compared caseless when their rule is. */
#include "format/redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/str.h"
#include "format/redact_int.h"

#define RD_SCRATCH_MAX ((size_t)1 << 20)

static const struct {
	const char *name;
	enum rd_builtin bi;
} builtins[] = {
	{"@ipv4", RD_BI_IPV4}, {"@ipv6", RD_BI_IPV6}, {"@mac", RD_BI_MAC},
	{"@host", RD_BI_HOST}, {"@user", RD_BI_USER}, {"@home", RD_BI_HOME},
};

int rd_set_new(struct rd_set **out)
{
	struct rd_set *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return CD_ENOMEM;
	arena_init(&s->arena);
	memset(s->kwhead, -1, sizeof(s->kwhead));
	buf_init(&s->cur, RD_SCRATCH_MAX);
	buf_init(&s->nxt, RD_SCRATCH_MAX);
	buf_init(&s->low, RD_SCRATCH_MAX);
	buf_init(&s->tmp, RD_SCRATCH_MAX);
	return 0;
}

static void rule_free(struct rd_rule *r)
{
	if (r->has_re)
		regfree(&r->re);
	if (r->has_end)
		regfree(&r->end);
	if (r->has_allow)
		regfree(&r->allow);
	if (r->has_ctx)
		regfree(&r->ctx);
	r->has_re = r->has_end = r->has_allow = r->has_ctx = 0;
}

void rd_set_free(struct rd_set *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		rule_free(&s->rules[i]);
	buf_free(&s->cur);
	buf_free(&s->nxt);
	buf_free(&s->low);
	buf_free(&s->tmp);
	arena_free(&s->arena);
	free(s);
}

static int compile(regex_t *re, const char *pat, int flags, const char *rule, const char *what,
		   struct cd_err *err)
{
	char msg[160];
	int rc = regcomp(re, pat, REG_EXTENDED | flags);

	if (!rc)
		return 0;
	regerror(rc, re, msg, sizeof(msg));
	return err_set(err, CD_EFORMAT, "rule %s: %s: %s", rule, what, msg);
}

static int parse_flags(struct rd_rule *r, const char *flags, struct cd_err *err)
{
	const char *p = flags ? flags : "";

	r->icase = 1;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 4 && !strncmp(p, "case", 4))
			r->icase = 0;
		else if (n == 5 && !strncmp(p, "learn", 5))
			r->learn = 1;
		else if (n)
			return err_set(err, CD_EFORMAT, "rule %s: unknown flag '%.*s'", r->name,
				       (int)n, p);
		p += n + (p[n] == ',');
	}
	return 0;
}

static void kw_index(struct rd_set *s, size_t rule, const char *kw, size_t len)
{
	struct rd_kwent *e;
	uint8_t first = (uint8_t)kw[0];

	if (s->n_kwent >= RD_KWENT_MAX || !len)
		return;
	e = &s->kwent[s->n_kwent];
	e->kw = kw;
	e->len = len;
	e->rule = rule;
	e->next = s->kwhead[first];
	s->kwhead[first] = (int)s->n_kwent++;
}

void rd_flags(const struct rd_set *s, const char *low, size_t n, uint8_t *flags)
{
	size_t i;
	int k;

	memcpy(flags, s->base, RD_RULES_MAX);
	for (i = 0; i < n; i++)
		for (k = s->kwhead[(uint8_t)low[i]]; k >= 0; k = s->kwent[k].next) {
			const struct rd_kwent *e = &s->kwent[k];
			if (!flags[e->rule] && e->len <= n - i && !memcmp(low + i, e->kw, e->len))
				flags[e->rule] = 1;
		}
}

static int parse_keywords(struct rd_rule *r, const char *kw, struct cd_err *err)
{
	const char *p = kw ? kw : "";

	while (*p) {
		size_t n = strcspn(p, ","), i;
		if (n) {
			if (n >= RD_KW_LEN || r->n_kw >= RD_KW_MAX)
				return err_set(err, CD_EFORMAT, "rule %s: keywords too long",
					       r->name);
			for (i = 0; i < n; i++)
				r->kw[r->n_kw][i] = (char)tolower((unsigned char)p[i]);
			r->kw[r->n_kw++][n] = '\0';
		}
		p += n + (p[n] == ',');
	}
	return 0;
}

static int parse_kind(struct rd_rule *r, const char *kind, struct cd_err *err)
{
	if (kind && !strcmp(kind, "var"))
		r->kind = RD_KIND_VAR;
	else if (kind && !strcmp(kind, "shape"))
		r->kind = RD_KIND_SHAPE;
	else if (kind && !strcmp(kind, "field"))
		r->kind = RD_KIND_FIELD;
	else
		return err_set(err, CD_EFORMAT, "rule %s: kind '%s' is not var, shape or field",
			       r->name, kind ? kind : "");
	return 0;
}

static int parse_pattern(struct rd_rule *r, const struct rd_def *d, struct cd_err *err)
{
	int cflags = r->icase ? REG_ICASE : 0;
	size_t i;

	if (!d->pattern || !*d->pattern)
		return err_set(err, CD_EFORMAT, "rule %s: no pattern", r->name);
	if (d->pattern[0] == '@') {
		for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
			if (!strcmp(d->pattern, builtins[i].name))
				r->bi = builtins[i].bi;
		if (r->bi == RD_BI_NONE || r->kind == RD_KIND_VAR || d->group)
			return err_set(err, CD_EFORMAT, "rule %s: '%s' is no builtin of its kind",
				       r->name, d->pattern);
		return 0;
	}
	if (r->kind == RD_KIND_VAR)
		cflags |= REG_NOSUB;
	if (compile(&r->re, d->pattern, cflags, r->name, "pattern", err))
		return err->code;
	r->has_re = 1;
	if (d->group < 0 || d->group >= RD_GROUPS || (size_t)d->group > r->re.re_nsub ||
	    (r->kind == RD_KIND_VAR && d->group))
		return err_set(err, CD_EFORMAT, "rule %s: no group %d in its pattern", r->name,
			       d->group);
	r->group = d->group;
	return 0;
}

static int parse_replacement(struct rd_set *s, struct rd_rule *r, const char *repl,
			     struct cd_err *err)
{
	const char *at;
	size_t i;

	if (!repl || !*repl || strlen(repl) >= RD_REPL_MAX)
		return err_set(err, CD_EFORMAT, "rule %s: replacement empty or too long", r->name);
	at = strstr(repl, "{n}");
	if (at && strstr(at + 3, "{n}"))
		return err_set(err, CD_EFORMAT, "rule %s: {n} twice", r->name);
	str_copy(r->repl, sizeof(r->repl), repl);
	r->numbered = at != NULL;
	r->ns = s->n_ns;
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->rules[i].repl, repl)) {
			r->ns = s->rules[i].ns;
			return 0;
		}
	s->n_ns++;
	return 0;
}

static int parse_rest(struct rd_set *s, struct rd_rule *r, const struct rd_def *d,
		      struct cd_err *err)
{
	int cflags = REG_NOSUB | (r->icase ? REG_ICASE : 0);

	if (d->end && *d->end) {
		if (r->kind != RD_KIND_SHAPE || r->bi)
			return err_set(err, CD_EFORMAT, "rule %s: only a shape has an end",
				       r->name);
		if (compile(&r->end, d->end, r->icase ? REG_ICASE : 0, r->name, "end", err))
			return err->code;
		r->has_end = 1;
	}
	if (d->allow && *d->allow) {
		if (compile(&r->allow, d->allow, cflags, r->name, "allow", err))
			return err->code;
		r->has_allow = 1;
	}
	if (d->allow_context && *d->allow_context) {
		if (compile(&r->ctx, d->allow_context, cflags, r->name, "allow_context", err))
			return err->code;
		r->has_ctx = 1;
	}
	return parse_replacement(s, r, d->replacement, err);
}

static int valid_name(const char *n)
{
	size_t i;

	if (!n || !*n || strlen(n) >= RD_NAME_MAX)
		return 0;
	for (i = 0; n[i]; i++)
		if (!islower((unsigned char)n[i]) && !isdigit((unsigned char)n[i]) && n[i] != '-')
			return 0;
	return 1;
}

int rd_set_add(struct rd_set *s, const struct rd_def *d, struct cd_err *err)
{
	struct rd_rule *r;
	size_t i;
	int rc;

	if (s->n >= RD_RULES_MAX)
		return err_set(err, CD_EFORMAT, "more than %d rules", RD_RULES_MAX);
	if (!valid_name(d->name))
		return err_set(err, CD_EFORMAT, "rule name '%s' is not [a-z0-9-]+",
			       d->name ? d->name : "");
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->rules[i].name, d->name))
			return err_set(err, CD_EFORMAT, "rule %s: named twice", d->name);
	r = &s->rules[s->n];
	memset(r, 0, sizeof(*r));
	str_copy(r->name, sizeof(r->name), d->name);
	rc = parse_kind(r, d->kind, err);
	if (!rc)
		rc = parse_flags(r, d->flags, err);
	if (!rc)
		rc = parse_keywords(r, d->keywords, err);
	if (!rc)
		rc = parse_pattern(r, d, err);
	if (!rc)
		rc = parse_rest(s, r, d, err);
	if (rc) {
		rule_free(r);
		return rc;
	}
	for (i = 0; i < r->n_kw; i++)
		kw_index(s, s->n, r->kw[i], strlen(r->kw[i]));
	s->base[s->n] =
		!r->n_kw && r->bi != RD_BI_HOST && r->bi != RD_BI_USER && r->bi != RD_BI_HOME;
	s->n++;
	return 0;
}

static const char *lower_dup(struct cd_arena *a, const char *v, size_t n)
{
	char *l = arena_strndup(a, v, n);
	size_t i;

	for (i = 0; l && i < n; i++)
		l[i] = (char)tolower((unsigned char)l[i]);
	return l;
}

/* Does the rule's allow regex keep the value v[0..n)? */
static int allow_keeps(struct rd_set *s, const struct rd_rule *r, const char *v, size_t n)
{
	if (!r->has_allow || n > RD_VALUE_MAX)
		return 0;
	buf_reset(&s->tmp);
	if (buf_append(&s->tmp, v, n))
		return 0;
	return regexec(&r->allow, s->tmp.p, 0, NULL, 0) == 0;
}

static int value_known(const struct rd_set *s, size_t rule, const char *v, size_t n)
{
	size_t i;

	for (i = 0; i < s->n_values; i++)
		if (s->values[i].rule == rule && s->values[i].len == n &&
		    !(s->rules[rule].icase ? strncasecmp(s->values[i].value, v, n)
					   : memcmp(s->values[i].value, v, n)))
			return 1;
	return 0;
}

/* Insert keeping longer values first, so an FQDN is replaced before the
 * host name it starts with. */
static int add_value(struct rd_set *s, size_t rule, const char *v, size_t n)
{
	struct rd_value nv = {rule, NULL, NULL, n, NULL};
	size_t at;

	if (!n || n > RD_VALUE_MAX || value_known(s, rule, v, n) ||
	    allow_keeps(s, &s->rules[rule], v, n))
		return 0;
	if (s->n_values >= RD_VALUES_MAX)
		return CD_ENOMEM;
	nv.value = arena_strndup(&s->arena, v, n);
	nv.lower = lower_dup(&s->arena, v, n);
	if (!nv.value || !nv.lower)
		return CD_ENOMEM;
	for (at = 0; at < s->n_values && s->values[at].len >= n; at++)
		;
	memmove(&s->values[at + 1], &s->values[at], (s->n_values - at) * sizeof(s->values[0]));
	s->values[at] = nv;
	s->n_values++;
	kw_index(s, rule, nv.lower, n);
	return 0;
}

int rd_set_value(struct rd_set *s, const char *builtin, const char *value)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < s->n && value; i++) {
		const struct rd_rule *r = &s->rules[i];
		if ((r->bi == RD_BI_HOST && !strcmp(builtin, "@host")) ||
		    (r->bi == RD_BI_USER && !strcmp(builtin, "@user")) ||
		    (r->bi == RD_BI_HOME && !strcmp(builtin, "@home")))
			rc = add_value(s, i, value, strlen(value));
		if (rc)
			return rc;
	}
	return 0;
}

int rd_learn(struct rd_set *s, size_t rule, const char *v, size_t n)
{
	if (s->rules[rule].learn)
		(void)add_value(s, rule, v, n); /* past the cap: replaced in context only */
	return 0;
}

static uint64_t hash_key(size_t ns, const char *v, size_t n)
{
	uint64_t h = str_fnv1a(STR_FNV_SEED, &ns, sizeof(ns));

	return str_fnv1a(h, v, n);
}

int rd_set_allow(struct rd_set *s, const char *value)
{
	size_t n = value ? strlen(value) : 0;
	uint64_t h;
	size_t i;

	if (!n || s->n_allowed >= RD_ALIAS_SLOT / 2)
		return n ? CD_ENOMEM : 0;
	h = hash_key(0, value, n);
	for (i = (size_t)(h % RD_ALIAS_SLOT); s->allow_slots[i]; i = (i + 1) % RD_ALIAS_SLOT)
		if (!strcmp(s->allow_slots[i], value))
			return 0;
	s->allow_slots[i] = arena_strdup(&s->arena, value);
	if (!s->allow_slots[i])
		return CD_ENOMEM;
	s->n_allowed++;
	return 0;
}

static int in_allow_set(const struct rd_set *s, const char *v, size_t n)
{
	size_t i;

	if (!s->n_allowed)
		return 0;
	for (i = (size_t)(hash_key(0, v, n) % RD_ALIAS_SLOT); s->allow_slots[i];
	     i = (i + 1) % RD_ALIAS_SLOT)
		if (strlen(s->allow_slots[i]) == n && !memcmp(s->allow_slots[i], v, n))
			return 1;
	return 0;
}

int rd_is_allowed(struct rd_set *s, const struct rd_rule *r, const char *line, size_t vs, size_t ve)
{
	size_t cs = vs > RD_CONTEXT ? vs - RD_CONTEXT : 0;

	if (in_allow_set(s, line + vs, ve - vs) || allow_keeps(s, r, line + vs, ve - vs))
		return 1;
	if (!r->has_ctx)
		return 0;
	buf_reset(&s->tmp);
	if (buf_append(&s->tmp, line + cs, vs - cs))
		return 0;
	return regexec(&r->ctx, s->tmp.p, 0, NULL, 0) == 0;
}

void rd_set_fail(struct rd_set *s, const char *rule)
{
	str_copy(s->fail, sizeof(s->fail), rule ? rule : "");
}

int rd_fail(struct rd_set *s, const struct rd_rule *r, int member, struct cd_err *err,
	    const char *why)
{
	const char *m = member >= 0 && (size_t)member < s->n_members ? s->members[member] : "?";

	return err_set(err, CD_EINTERNAL, "redaction rule %s failed on %s: %s", r->name, m, why);
}

int rd_member(struct rd_set *s, const char *name)
{
	if (s->n_members >= RD_MEMBERS_MAX)
		return -1;
	s->members[s->n_members] = arena_strdup(&s->arena, name);
	if (!s->members[s->n_members])
		return -1;
	return (int)s->n_members++;
}

void rd_count(struct rd_rule *r, int member, uint64_t k)
{
	r->hits += k;
	if (k && member >= 0 && member < RD_MEMBERS_MAX)
		r->members |= (uint64_t)1 << member;
}

/* The alias of the n-th value of a numbering space: the replacement with
 * {n} written as n ("x" once RD_ALIASES_MAX values have one). */
static const char *make_alias(struct rd_set *s, const struct rd_rule *r, const char *num)
{
	const char *at = strstr(r->repl, "{n}");

	return arena_printf(&s->arena, "%.*s%s%s", (int)(at - r->repl), r->repl, num, at + 3);
}

const char *rd_alias_of(struct rd_set *s, struct rd_rule *r, const char *v, size_t n)
{
	struct rd_alias_ent *e;
	char lower[RD_VALUE_MAX + 1], num[24];
	const char *key = v;
	size_t i;

	if (!r->numbered)
		return r->repl;
	if (r->icase && n <= RD_VALUE_MAX) {
		for (i = 0; i < n; i++)
			lower[i] = (char)tolower((unsigned char)v[i]);
		key = lower;
	}
	for (i = (size_t)(hash_key(r->ns, key, n) % RD_ALIAS_SLOT); (e = s->slots[i]);
	     i = (i + 1) % RD_ALIAS_SLOT)
		if (e->ns == r->ns && strlen(e->value) == n && !memcmp(e->value, key, n))
			return e->alias;
	if (s->n_aliases >= RD_ALIASES_MAX) {
		if (!s->ns_over[r->ns])
			s->ns_over[r->ns] = make_alias(s, r, "x");
		return s->ns_over[r->ns];
	}
	e = arena_alloc(&s->arena, sizeof(*e));
	if (!e || !(e->value = arena_strndup(&s->arena, key, n)))
		return NULL;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)s->ns_next[r->ns]++);
	e->ns = r->ns;
	e->alias = make_alias(s, r, num);
	if (!e->alias)
		return NULL;
	s->slots[i] = e;
	s->n_aliases++;
	return e->alias;
}

const char *rd_alias(struct rd_set *s, int member, const char *rule, const char *value)
{
	size_t i, n = value ? strlen(value) : 0;

	for (i = 0; i < s->n; i++) {
		struct rd_rule *r = &s->rules[i];
		const char *a;
		if (strcmp(r->name, rule))
			continue;
		if (!n || in_allow_set(s, value, n) || allow_keeps(s, r, value, n))
			return value;
		a = rd_alias_of(s, r, value, n);
		if (a && strcmp(a, value))
			rd_count(r, member, 1);
		return a;
	}
	return NULL;
}

size_t rd_rules(const struct rd_set *s)
{
	return s->n;
}

const char *rd_rule_name(const struct rd_set *s, size_t i)
{
	return i < s->n ? s->rules[i].name : NULL;
}

const char *rd_rule_kind(const struct rd_set *s, size_t i)
{
	static const char *const kinds[] = {"?", "var", "shape", "field"};

	return i < s->n ? kinds[s->rules[i].kind] : NULL;
}

uint64_t rd_rule_hits(const struct rd_set *s, size_t i)
{
	return i < s->n ? s->rules[i].hits : 0;
}

size_t rd_members(const struct rd_set *s)
{
	return s->n_members;
}

const char *rd_member_name(const struct rd_set *s, size_t m)
{
	return m < s->n_members ? s->members[m] : NULL;
}

int rd_rule_in_member(const struct rd_set *s, size_t i, size_t m)
{
	return i < s->n && m < RD_MEMBERS_MAX && (s->rules[i].members >> m & 1);
}
