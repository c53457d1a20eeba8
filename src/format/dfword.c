/* dfword: see dfword.h. The structure follows lex.go: processStopOn (the
 * main loop), processSingleQuote, processDoubleQuote, processDollar and
 * processName, so each rule can be checked against it. Differences: names
 * are ASCII (letters, digits, '_'); the ${v/pat/rep} forms match the leftmost
 * longest text, as lex.go's regular expressions do for '*'. */
#include "format/dfword.h"

#include <string.h>

void dfenv_init(struct dfenv *e)
{
	e->n = 0;
}

int dfenv_set(struct dfenv *e, const char *name, const char *value)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name)) {
			e->v[i].value = value;
			return 0;
		}
	if (e->n == DFENV_MAX)
		return CD_ENOMEM;
	e->v[e->n].name = name;
	e->v[e->n].value = value;
	e->n++;
	return 0;
}

const char *dfenv_get(const struct dfenv *e, const char *name)
{
	size_t i;

	if (!e)
		return NULL;
	for (i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name))
			return e->v[i].value;
	return NULL;
}

struct lex {
	const char *s;
	size_t n, pos;
	const struct dfword_opts *o;
	unsigned met;
	int depth;
	struct cd_err *err;
};

static int lex_fail(struct lex *l, const char *what)
{
	return err_set(l->err, CD_EFORMAT, "%s at byte %zu", what, l->pos);
}

static int put(struct cd_buf *out, char c)
{
	if (out->len >= DFWORD_MAX)
		return CD_ENOMEM;
	return buf_putc(out, c);
}

static int put_n(struct cd_buf *out, const char *p, size_t n)
{
	if (n > DFWORD_MAX || out->len > DFWORD_MAX - n)
		return CD_ENOMEM;
	return buf_append(out, p, n);
}

static int is_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* processName: digits alone, one special parameter, or a name. */
static size_t lex_name(struct lex *l, char *name, size_t cap)
{
	size_t k = 0;

	if (l->pos < l->n && is_digit(l->s[l->pos])) {
		while (l->pos < l->n && is_digit(l->s[l->pos])) {
			if (k + 1 < cap)
				name[k++] = l->s[l->pos];
			l->pos++;
		}
	} else if (l->pos < l->n && strchr("@*#?-$!", l->s[l->pos]) && l->s[l->pos]) {
		name[k++] = l->s[l->pos++];
	} else {
		while (l->pos < l->n && is_name(l->s[l->pos])) {
			if (k + 1 < cap)
				name[k++] = l->s[l->pos];
			l->pos++;
		}
	}
	name[k] = '\0';
	return k;
}

static int lex_until(struct lex *l, int stop, int raw_escapes, struct cd_buf *out);

static int single_quote(struct lex *l, struct cd_buf *out)
{
	int raw = l->o->flags & DFWORD_RAW, rc;

	l->met |= DFWORD_QUOTED;
	if (raw && (rc = put(out, '\'')))
		return rc;
	for (l->pos++; l->pos < l->n; l->pos++) {
		if (l->s[l->pos] == '\'') {
			l->pos++;
			return raw ? put(out, '\'') : 0;
		}
		if ((rc = put(out, l->s[l->pos])))
			return rc;
	}
	return lex_fail(l, "unexpected end of statement while looking for matching single-quote");
}

static int dollar(struct lex *l, struct cd_buf *out);

static int double_quote(struct lex *l, struct cd_buf *out)
{
	int raw = l->o->flags & DFWORD_RAW, rc;
	char esc = l->o->escape, c;

	l->met |= DFWORD_QUOTED;
	if (raw && (rc = put(out, '"')))
		return rc;
	l->pos++;
	for (;;) {
		if (l->pos >= l->n)
			return lex_fail(l, "unexpected end of statement while looking for "
					   "matching double-quote");
		c = l->s[l->pos];
		if (c == '"') {
			l->pos++;
			return raw ? put(out, '"') : 0;
		}
		if (c == '$') {
			if ((rc = dollar(l, out)))
				return rc;
			continue;
		}
		l->pos++;
		if (c == esc) {
			if (raw && (rc = put(out, c)))
				return rc;
			if (l->pos >= l->n)
				continue;
			if (l->s[l->pos] == '"' || l->s[l->pos] == '$' || l->s[l->pos] == esc)
				c = l->s[l->pos++];
		}
		if ((rc = put(out, c)))
			return rc;
	}
}

/* Shortest or longest prefix / suffix of v matching pat removed. */
static int trim(const char *pat, size_t np, const char *v, int suffix, int greedy,
		struct cd_buf *out)
{
	size_t len = strlen(v), i, k;

	for (k = 0; k <= len; k++) {
		i = greedy ? len - k : k; /* the length of the matched part */
		if (suffix ? dfword_glob(pat, np, v + len - i, i) : dfword_glob(pat, np, v, i))
			return suffix ? put_n(out, v, len - i) : put_n(out, v + i, len - i);
	}
	return put_n(out, v, len);
}

/* ${v/pat/rep}, ${v//pat/rep}: the leftmost longest matches replaced. */
static int replace(const char *pat, size_t np, const char *rep, const char *v, int all,
		   struct cd_buf *out)
{
	size_t len = strlen(v), i = 0, j;
	int rc, done = 0;

	while (i <= len) {
		int hit = 0;
		if (np && !done)
			for (j = len; j > i; j--)
				if (dfword_glob(pat, np, v + i, j - i)) {
					hit = 1;
					break;
				}
		if (hit) {
			if ((rc = put_n(out, rep, strlen(rep))))
				return rc;
			i = j;
			done = !all;
			continue;
		}
		if (i < len && (rc = put(out, v[i])))
			return rc;
		i++;
	}
	return 0;
}

/* The value of a variable; with DFWORD_KEEP_UNSET an unset one is left as
 * written (from `from` to the current position). */
static int value_or_keep(struct lex *l, const char *v, size_t from, struct cd_buf *out)
{
	if (v)
		return put_n(out, v, strlen(v));
	l->met |= DFWORD_UNSET;
	if (l->o->flags & DFWORD_KEEP_UNSET)
		return put_n(out, l->s + from, l->pos - from);
	return 0;
}

static int modifier(struct lex *l, const char *name, char op, int colon, size_t from,
		    struct cd_buf *out)
{
	struct cd_buf word;
	const char *v = dfenv_get(l->o->env, name);
	int raw = op == '#' || op == '%', rc, set = v != NULL, greedy = 0;
	size_t skip = 0;

	if (colon && raw)
		return lex_fail(l, "unsupported modifier in substitution");
	buf_init(&word, DFWORD_MAX + 1);
	rc = lex_until(l, '}', raw, &word);
	if (rc)
		goto out;
	if (!set)
		l->met |= DFWORD_UNSET;
	if (!set && (l->o->flags & DFWORD_KEEP_UNSET)) {
		rc = put_n(out, l->s + from, l->pos - from);
		goto out;
	}
	switch (op) {
	case '-':
		rc = !set || (colon && !*v) ? put_n(out, word.p ? word.p : "", word.len)
					    : put_n(out, v, strlen(v));
		break;
	case '+':
		rc = !set || (colon && !*v) ? 0 : put_n(out, word.p ? word.p : "", word.len);
		break;
	case '?':
		rc = !set || (colon && !*v)
			     ? err_set(l->err, CD_EFORMAT, "%s: %s", name,
				       word.len ? word.p : "is not allowed to be unset")
			     : put_n(out, v, strlen(v));
		break;
	default: /* '#', '%': a doubled operator is the greedy form */
		if (word.len && word.p[0] == op)
			greedy = 1, skip = 1;
		rc = trim(word.p ? word.p + skip : "", word.len - skip, v ? v : "", op == '%',
			  greedy, out);
	}
out:
	buf_free(&word);
	return rc;
}

static int substitute(struct lex *l, const char *name, size_t from, struct cd_buf *out)
{
	struct cd_buf pat, rep;
	const char *v;
	int all = 0, rc;

	if (l->pos < l->n && l->s[l->pos] == '/')
		all = 1, l->pos++;
	buf_init(&pat, DFWORD_MAX + 1);
	buf_init(&rep, DFWORD_MAX + 1);
	rc = lex_until(l, '/', 1, &pat);
	if (!rc)
		rc = lex_until(l, '}', 1, &rep);
	if (rc)
		goto out;
	v = dfenv_get(l->o->env, name);
	if (!v) {
		rc = value_or_keep(l, NULL, from, out);
		goto out;
	}
	rc = replace(pat.p ? pat.p : "", pat.len, rep.p ? rep.p : "", v, all, out);
out:
	buf_free(&pat);
	buf_free(&rep);
	return rc;
}

static int dollar_parse(struct lex *l, struct cd_buf *out);

/* In shell text (DFWORD_RAW) a ${...} BuildKit cannot read (${#VAR}, the
 * shell's length) is the shell's business: it is kept as written. */
static int dollar(struct lex *l, struct cd_buf *out)
{
	size_t from = l->pos, len = out->len, depth = 0;
	int rc = dollar_parse(l, out);

	if (rc != CD_EFORMAT || !(l->o->flags & DFWORD_RAW) || l->s[from + 1] != '{')
		return rc;
	out->len = len;
	if (out->p)
		out->p[len] = '\0';
	for (l->pos = from; l->pos < l->n; l->pos++) {
		if (l->s[l->pos] == '{')
			depth++;
		else if (l->s[l->pos] == '}' && --depth == 0) {
			l->pos++;
			break;
		}
	}
	return put_n(out, l->s + from, l->pos - from);
}

/* processDollar: $name, ${name} and ${name<modifier>word}. */
static int dollar_parse(struct lex *l, struct cd_buf *out)
{
	size_t from = l->pos;
	char name[128], op;
	int rc;

	l->pos++;
	if (l->pos >= l->n || l->s[l->pos] != '{') {
		if (!lex_name(l, name, sizeof(name)))
			return put(out, '$');
		return value_or_keep(l, dfenv_get(l->o->env, name), from, out);
	}
	l->pos++;
	if (l->pos >= l->n)
		return lex_fail(l, "syntax error: missing '}'");
	if (l->s[l->pos] == '{' || l->s[l->pos] == '}' || l->s[l->pos] == ':')
		return lex_fail(l, "syntax error: bad substitution");
	if (l->depth >= DFWORD_DEPTH)
		return lex_fail(l, "substitutions nested too deeply");
	l->depth++;
	lex_name(l, name, sizeof(name));
	op = l->pos < l->n ? l->s[l->pos++] : '\0';
	switch (op) {
	case '}': rc = value_or_keep(l, dfenv_get(l->o->env, name), from, out); break;
	case ':':
		op = l->pos < l->n ? l->s[l->pos++] : '\0';
		rc = op == '-' || op == '+' || op == '?' || op == '#' || op == '%'
			     ? modifier(l, name, op, 1, from, out)
			     : lex_fail(l, "unsupported modifier in substitution");
		break;
	case '-':
	case '+':
	case '?':
	case '#':
	case '%': rc = modifier(l, name, op, 0, from, out); break;
	case '/': rc = substitute(l, name, from, out); break;
	default: rc = lex_fail(l, "unsupported modifier in substitution");
	}
	l->depth--;
	return rc;
}

/* processStopOn: up to the stop character (consumed), or the end when stop
 * is -1. raw_escapes keeps the escape character (patterns of # and %). */
static int lex_until(struct lex *l, int stop, int raw_escapes, struct cd_buf *out)
{
	char esc = l->o->escape, c;
	int rc;

	while (l->pos < l->n) {
		c = l->s[l->pos];
		if (stop >= 0 && c == (char)stop) {
			l->pos++;
			return 0;
		}
		if (c == '\'')
			rc = single_quote(l, out);
		else if (c == '"')
			rc = double_quote(l, out);
		else if (c == '$')
			rc = dollar(l, out);
		else {
			l->pos++;
			rc = 0;
			if (c == esc) {
				if ((raw_escapes || (l->o->flags & DFWORD_RAW)) &&
				    (rc = put(out, c)))
					return rc;
				if (l->pos >= l->n)
					break;
				c = l->s[l->pos++];
			}
			rc = put(out, c);
		}
		if (rc)
			return rc;
	}
	if (stop >= 0)
		return lex_fail(l, stop == '}' ? "syntax error: missing '}'"
					       : "unexpected end of statement");
	return 0;
}

int dfword_expand(const char *s, size_t n, const struct dfword_opts *o, struct cd_buf *out,
		  unsigned *met, struct cd_err *err)
{
	struct lex l = {s, n, 0, o, 0, 0, err};
	int rc = lex_until(&l, -1, 0, out);

	if (met)
		*met = l.met;
	if (rc == CD_ENOMEM)
		err_set(err, CD_ENOMEM, "a word expands to more than %u bytes", DFWORD_MAX);
	return rc;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int dfword_next(const char *s, size_t n, char escape, size_t *pos, size_t *start, size_t *end)
{
	size_t i = *pos;
	char q = 0;

	while (i < n && blank(s[i]))
		i++;
	if (i >= n) {
		*pos = i;
		return 0;
	}
	*start = i;
	for (; i < n; i++) {
		char c = s[i];
		if (q) {
			if (c == q)
				q = 0;
			else if (q == '"' && c == escape && i + 1 < n)
				i++;
			continue;
		}
		if (blank(c))
			break;
		if (c == '\'' || c == '"')
			q = c;
		else if (c == escape && i + 1 < n)
			i++;
	}
	*end = i;
	*pos = i;
	return 1;
}

/* One bracket expression at pat[*i] ('[' already seen) against c; -1 when
 * the bracket is not closed (then '[' is literal). */
static int bracket(const char *pat, size_t np, size_t *i, char c)
{
	size_t k = *i + 1;
	int neg = 0, hit = 0;

	if (k < np && (pat[k] == '!' || pat[k] == '^'))
		neg = 1, k++;
	if (k < np && pat[k] == ']') {
		hit = c == ']';
		k++;
	}
	for (; k < np && pat[k] != ']'; k++) {
		if (k + 2 < np && pat[k + 1] == '-' && pat[k + 2] != ']') {
			hit |= c >= pat[k] && c <= pat[k + 2];
			k += 2;
		} else {
			hit |= c == pat[k];
		}
	}
	if (k >= np)
		return -1;
	*i = k;
	return hit != neg;
}

int dfword_glob(const char *pat, size_t np, const char *s, size_t ns)
{
	size_t p = 0, i = 0, star_p = (size_t)-1, star_i = 0;

	while (i < ns) {
		if (p < np && pat[p] == '*') {
			star_p = ++p;
			star_i = i;
			continue;
		}
		if (p < np) {
			size_t q = p;
			int ok;
			if (pat[p] == '?') {
				ok = 1;
			} else if (pat[p] == '[' && (ok = bracket(pat, np, &q, s[i])) >= 0) {
				/* q now at the closing ']' */
			} else {
				if (pat[p] == '\\' && p + 1 < np)
					q = ++p;
				ok = pat[p] == s[i];
			}
			if (ok) {
				p = q + 1;
				i++;
				continue;
			}
		}
		if (star_p == (size_t)-1)
			return 0;
		p = star_p;
		i = ++star_i;
	}
	while (p < np && pat[p] == '*')
		p++;
	return p == np;
}
