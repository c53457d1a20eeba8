/* redact_var: assignments in free text, for the var rules. A name is the run
 * of [A-Za-z0-9_.-] before '=' or ':' (spaces and one quote between them
 * allowed: NAME=v, NAME = v, "name": "v", name: v, --name=v) or after "--"
 * with the value as the next word (--hf_token v). A quoted value runs to its
 * closing quote (backslash escapes it), an unquoted one to white space or
 * one of ,;&|<>)]}`. "::", "==", "<=", ">=", "!=", "~=" and "://" are no
 * assignments. A value already replaced ("[redacted:...") is left alone. */
#include <ctype.h>
#include <string.h>

#include "format/redact_int.h"

static const char marker[] = "[redacted:";

static int name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-';
}

static int value_stop(char c)
{
	return isspace((unsigned char)c) || (c && strchr("\"',;&|<>)]}`", c));
}

int rd_var_rule(struct rd_set *s, const char *name, size_t n)
{
	char low[RD_NAME_SCAN + 1], raw[RD_NAME_SCAN + 1];
	uint8_t fl[RD_RULES_MAX];
	size_t i;

	while (n && *name == '-')
		name++, n--;
	if (!n)
		return -1;
	if (n > RD_NAME_SCAN)
		n = RD_NAME_SCAN;
	for (i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[n] = '\0';
	memcpy(raw, name, n);
	raw[n] = '\0';
	rd_flags(s, low, n, fl);
	for (i = 0; i < s->n; i++) {
		const struct rd_rule *r = &s->rules[i];
		if (r->kind != RD_KIND_VAR || !fl[i])
			continue;
		if (regexec(&r->re, raw, 0, NULL, 0) != 0)
			continue;
		if (r->has_allow && regexec(&r->allow, raw, 0, NULL, 0) == 0)
			continue;
		return (int)i;
	}
	return -1;
}

/* The name ending just before sep at p[at]: [*b, *e), 0 when there is none. */
static int name_before(const char *p, size_t at, size_t *b, size_t *e)
{
	size_t j = at;

	while (j > 0 && (p[j - 1] == ' ' || p[j - 1] == '\t'))
		j--;
	if (j > 0 && (p[j - 1] == '"' || p[j - 1] == '\''))
		j--;
	*e = j;
	while (j > 0 && name_char(p[j - 1]))
		j--;
	*b = j;
	return *e > *b;
}

/* The value starting after p[from]: [*b, *e). */
static void value_after(const char *p, size_t n, size_t from, size_t *b, size_t *e)
{
	size_t k = from;
	char q;

	while (k < n && (p[k] == ' ' || p[k] == '\t'))
		k++;
	if (k < n && (p[k] == '"' || p[k] == '\'')) {
		q = p[k];
		*b = *e = k + 1;
		while (*e < n && p[*e] != q)
			*e += p[*e] == '\\' && *e + 1 < n ? 2 : 1;
		if (*e > n)
			*e = n;
		return;
	}
	*b = *e = k;
	while (*e < n && !value_stop(p[*e]))
		(*e)++;
}

static int is_operator(const char *p, size_t n, size_t i)
{
	char c = p[i], next = i + 1 < n ? p[i + 1] : '\0', prev = i ? p[i - 1] : '\0';

	if (c == ':')
		return next == ':' || prev == ':' || (next == '/' && i + 2 < n && p[i + 2] == '/');
	return next == '=' || (prev && strchr("=!<>~", prev));
}

/* Where the value of the assignment at p[i] lies, and which var rule names
 * it: the rule's index or -1. */
static int assignment(struct rd_set *s, const char *p, size_t n, size_t i, size_t *vb, size_t *ve)
{
	size_t nb, ne, j;

	if (p[i] == '-') { /* "--name value" */
		if (i + 1 >= n || p[i + 1] != '-' || (i && !isspace((unsigned char)p[i - 1])))
			return -1;
		for (j = i + 2; j < n && name_char(p[j]); j++)
			;
		if (j == i + 2 || j >= n || (p[j] != ' ' && p[j] != '\t'))
			return -1;
		value_after(p, n, j, vb, ve);
		if (*ve == *vb || p[*vb] == '-')
			return -1;
		return rd_var_rule(s, p + i + 2, j - i - 2);
	}
	if (is_operator(p, n, i) || !name_before(p, i, &nb, &ne))
		return -1;
	value_after(p, n, i + 1, vb, ve);
	if (*ve == *vb || p[*vb] == '{' || p[*vb] == '[')
		return -1; /* an object or a list: its own keys are judged */
	return rd_var_rule(s, p + nb, ne - nb);
}

static void swap(struct rd_set *s)
{
	struct cd_buf t = s->cur;

	s->cur = s->nxt;
	s->nxt = t;
}

int rd_vars(struct rd_stream *st, int *changed, struct cd_err *err)
{
	struct rd_set *s = st->set;
	const char *p = s->cur.p;
	size_t n = s->cur.len, i = 0, done = 0, k = 0, vb, ve;

	buf_reset(&s->nxt);
	while (i < n) {
		int r;
		if (p[i] != '=' && p[i] != ':' && p[i] != '-') {
			i++;
			continue;
		}
		r = assignment(s, p, n, i, &vb, &ve);
		if (r < 0 || (ve - vb >= sizeof(marker) - 1 &&
			      !memcmp(p + vb, marker, sizeof(marker) - 1))) {
			i++;
			continue;
		}
		if (buf_append(&s->nxt, p + done, vb - done) || buf_puts(&s->nxt, s->rules[r].repl))
			return rd_fail(s, &s->rules[r], st->member, err, "out of memory");
		rd_count(&s->rules[r], st->member, 1);
		done = i = ve;
		k++;
	}
	if (!k)
		return 0;
	if (buf_append(&s->nxt, p + done, n - done))
		return err_set(err, CD_ENOMEM, "a line of %zu bytes", n);
	swap(s);
	*changed = 1;
	return 0;
}
