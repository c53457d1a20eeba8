/* pep508: see pep508.h. A scanner with the token rules of packaging's
 * _tokenizer.py (PEP 508's grammar as pip applies it): identifiers end on a
 * word boundary, white space is [ \t], "and" binds tighter than "or", a
 * marker comparison is a version comparison when "op + right side" parses as
 * a PEP 440 specifier and a string comparison otherwise. */
#include "format/pep508.h"

#include <string.h>

#include "core/str.h"

struct tok {
	const char *p;
	size_t n, i;
	int failed;
	int code; /* CD_EFORMAT or CD_ERANGE once failed */
	struct cd_err *err;
	const struct pep508_env *env;
};

static int fail(struct tok *t, const char *what)
{
	if (!t->failed) {
		err_set(t->err, CD_EFORMAT, "expected %s at position %zu", what, t->i);
		t->code = CD_EFORMAT;
	}
	t->failed = 1;
	return PEP508_UNKNOWN;
}

static int at(const struct tok *t, size_t k)
{
	return t->i + k < t->n ? (unsigned char)t->p[t->i + k] : -1;
}

static int is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_word(int c)
{
	return is_alnum(c) || c == '_';
}

static void ws(struct tok *t)
{
	while (at(t, 0) == ' ' || at(t, 0) == '\t')
		t->i++;
}

/* A keyword with a word boundary on both sides (the regex \bWORD\b). */
static int keyword(const struct tok *t, const char *w)
{
	size_t m = strlen(w);

	if (t->n - t->i < m || memcmp(t->p + t->i, w, m))
		return 0;
	if (t->i > 0 && is_word((unsigned char)t->p[t->i - 1]))
		return 0;
	return !is_word(at(t, m));
}

/* [a-zA-Z0-9][a-zA-Z0-9._-]* ending on a word boundary; length or 0. */
static size_t ident_len(const struct tok *t)
{
	size_t e = t->i;

	if (!is_alnum(at(t, 0)) || (t->i > 0 && is_word((unsigned char)t->p[t->i - 1])))
		return 0;
	while (e < t->n && (is_word((unsigned char)t->p[e]) || t->p[e] == '.' || t->p[e] == '-'))
		e++;
	while (e > t->i && !is_word((unsigned char)t->p[e - 1]))
		e--;
	return e - t->i;
}

size_t pep508_normalize(const char *name, size_t n, char *out, size_t cap)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		char c = name[i];
		if (c == '-' || c == '_' || c == '.') {
			while (i + 1 < n &&
			       (name[i + 1] == '-' || name[i + 1] == '_' || name[i + 1] == '.'))
				i++;
			c = '-';
		} else if (c >= 'A' && c <= 'Z') {
			c = (char)(c - 'A' + 'a');
		}
		if (k + 1 < cap)
			out[k] = c;
		k++;
	}
	if (cap)
		out[k < cap ? k : cap - 1] = '\0';
	return k;
}

/* ---- markers ------------------------------------------------------------ */

static const struct {
	const char *name;
	size_t off; /* offsetof the value in struct pep508_env */
} vars[] = {
	/* packaging's VARIABLE token; "." spellings are PEP 345's. */
	{"python_version", offsetof(struct pep508_env, python_version)},
	{"python_full_version", offsetof(struct pep508_env, python_full_version)},
	{"os_name", offsetof(struct pep508_env, os_name)},
	{"os.name", offsetof(struct pep508_env, os_name)},
	{"sys_platform", offsetof(struct pep508_env, sys_platform)},
	{"sys.platform", offsetof(struct pep508_env, sys_platform)},
	{"platform_release", offsetof(struct pep508_env, platform_release)},
	{"platform_system", offsetof(struct pep508_env, platform_system)},
	{"platform_version", offsetof(struct pep508_env, platform_version)},
	{"platform.version", offsetof(struct pep508_env, platform_version)},
	{"platform_machine", offsetof(struct pep508_env, platform_machine)},
	{"platform.machine", offsetof(struct pep508_env, platform_machine)},
	{"platform_python_implementation",
	 offsetof(struct pep508_env, platform_python_implementation)},
	{"platform.python_implementation",
	 offsetof(struct pep508_env, platform_python_implementation)},
	{"python_implementation", offsetof(struct pep508_env, platform_python_implementation)},
	{"implementation_name", offsetof(struct pep508_env, implementation_name)},
	{"implementation_version", offsetof(struct pep508_env, implementation_version)},
	{"extra", offsetof(struct pep508_env, extra)},
};

/* One side of a comparison: a variable or a quoted string. */
struct operand {
	const char *s; /* NULL: unknown value */
	size_t n;
	int is_extra;
	int is_var;
};

static int take_operand(struct tok *t, struct operand *o)
{
	size_t k;
	int q = at(t, 0);

	memset(o, 0, sizeof(*o));
	if (q == '\'' || q == '"') {
		const char *end = memchr(t->p + t->i + 1, q, t->n - t->i - 1);
		if (!end)
			return fail(t, "a closing quote");
		o->s = t->p + t->i + 1;
		o->n = (size_t)(end - o->s);
		t->i = (size_t)(end - t->p) + 1;
		return 0;
	}
	for (k = 0; k < sizeof(vars) / sizeof(vars[0]); k++) {
		if (!keyword(t, vars[k].name))
			continue;
		o->is_var = 1;
		o->is_extra = !strcmp(vars[k].name, "extra");
		if (t->env) {
			o->s = *(const char *const *)((const char *)t->env + vars[k].off);
			if (!o->s && o->is_extra)
				o->s = "";
			if (o->is_extra && t->env->extra_unknown)
				o->s = NULL;
			o->n = o->s ? strlen(o->s) : 0;
		}
		t->i += strlen(vars[k].name);
		return 0;
	}
	return fail(t, "a marker variable or quoted string");
}

enum mop { MOP_VERSION, MOP_IN, MOP_NOT_IN };

static int take_op(struct tok *t, enum mop *kind, char *op, size_t cap)
{
	static const char *const vops[] = {"===", "==", "~=", "!=", "<=", ">=", "<", ">"};
	size_t k;

	if (keyword(t, "in")) {
		t->i += 2;
		*kind = MOP_IN;
		return 0;
	}
	if (keyword(t, "not")) {
		t->i += 3;
		if (at(t, 0) != ' ' && at(t, 0) != '\t')
			return fail(t, "whitespace after 'not'");
		ws(t);
		if (!keyword(t, "in"))
			return fail(t, "'in' after 'not'");
		t->i += 2;
		*kind = MOP_NOT_IN;
		return 0;
	}
	for (k = 0; k < sizeof(vops) / sizeof(vops[0]); k++) {
		size_t m = strlen(vops[k]);
		if (t->n - t->i >= m && !memcmp(t->p + t->i, vops[k], m)) {
			t->i += m;
			*kind = MOP_VERSION;
			str_copy(op, cap, vops[k]);
			return 0;
		}
	}
	return fail(t, "a marker operator");
}

/* packaging.markers._eval_op: a version comparison when op + rhs is a valid
 * specifier (the left side must then be a valid version), else strings. */
static int compare(struct operand *l, enum mop kind, const char *op, struct operand *r)
{
	char ls[PEP508_INPUT_MAX], rs[PEP508_INPUT_MAX], spec[PEP508_INPUT_MAX];
	struct pep440_spec sp;
	struct pep440_version v;
	int c;

	if (!l->s || !r->s)
		return PEP508_UNKNOWN;
	if (l->is_extra || r->is_extra) {
		pep508_normalize(l->s, l->n, ls, sizeof(ls));
		pep508_normalize(r->s, r->n, rs, sizeof(rs));
	} else {
		str_ncopy(ls, sizeof(ls), l->s, l->n);
		str_ncopy(rs, sizeof(rs), r->s, r->n);
	}
	if (kind == MOP_IN)
		return strstr(rs, ls) != NULL;
	if (kind == MOP_NOT_IN)
		return strstr(rs, ls) == NULL;
	if (strlen(op) + strlen(rs) < sizeof(spec)) {
		memcpy(spec, op, strlen(op) + 1);
		memcpy(spec + strlen(op), rs, strlen(rs) + 1);
		if (pep440_spec_parse(spec, strlen(spec), &sp) == 0) {
			if (pep440_parse(ls, strlen(ls), &v))
				return PEP508_UNKNOWN; /* packaging raises InvalidVersion */
			return pep440_spec_contains(&sp, &v, PEP440_PRE_INCLUDE);
		}
	}
	c = strcmp(ls, rs);
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return (c == 0) == (op[0] == '=');
	if (!strcmp(op, "<"))
		return c < 0;
	if (!strcmp(op, "<="))
		return c <= 0;
	if (!strcmp(op, ">"))
		return c > 0;
	if (!strcmp(op, ">="))
		return c >= 0;
	return PEP508_UNKNOWN; /* ~= and === on strings: undefined */
}

static int and3(int a, int b)
{
	if (a == PEP508_FALSE || b == PEP508_FALSE)
		return PEP508_FALSE;
	return a == PEP508_UNKNOWN || b == PEP508_UNKNOWN ? PEP508_UNKNOWN : PEP508_TRUE;
}

static int or3(int a, int b)
{
	if (a == PEP508_TRUE || b == PEP508_TRUE)
		return PEP508_TRUE;
	return a == PEP508_UNKNOWN || b == PEP508_UNKNOWN ? PEP508_UNKNOWN : PEP508_FALSE;
}

static int marker_expr(struct tok *t, int depth);

static int marker_item(struct tok *t)
{
	struct operand l, r;
	enum mop kind = MOP_VERSION;
	char op[4] = "";

	ws(t);
	take_operand(t, &l);
	ws(t);
	if (!t->failed)
		take_op(t, &kind, op, sizeof(op));
	ws(t);
	if (!t->failed)
		take_operand(t, &r);
	ws(t);
	if (t->failed)
		return PEP508_UNKNOWN;
	if (!t->env)
		return PEP508_UNKNOWN;
	if (!l.is_var && !r.is_var)
		return PEP508_UNKNOWN; /* two literals: packaging rejects this at evaluation */
	return compare(&l, kind, op, &r);
}

static int marker_atom(struct tok *t, int depth)
{
	int v;

	ws(t);
	if (at(t, 0) == '(') {
		if (depth >= PEP508_DEPTH_MAX) {
			t->failed = 1;
			t->code = CD_ERANGE;
			err_set(t->err, CD_ERANGE, "marker nested deeper than %d",
				PEP508_DEPTH_MAX);
			return PEP508_UNKNOWN;
		}
		t->i++;
		ws(t);
		v = marker_expr(t, depth + 1);
		ws(t);
		if (!t->failed && at(t, 0) != ')')
			return fail(t, "')'");
		t->i++;
	} else {
		v = marker_item(t);
	}
	ws(t);
	return v;
}

/* atom (("and" | "or") atom)*: "and" groups bind tighter than "or". */
static int marker_expr(struct tok *t, int depth)
{
	int any = PEP508_FALSE, all = marker_atom(t, depth);

	while (!t->failed) {
		if (keyword(t, "and")) {
			t->i += 3;
			all = and3(all, marker_atom(t, depth));
		} else if (keyword(t, "or")) {
			t->i += 2;
			any = or3(any, all);
			all = marker_atom(t, depth);
		} else {
			break;
		}
	}
	return or3(any, all);
}

int pep508_marker_eval(const char *p, size_t n, const struct pep508_env *env, struct cd_err *err)
{
	struct tok t = {p, n, 0, 0, 0, err, env};
	int v;

	if (!p || n > PEP508_INPUT_MAX)
		return err_set(err, CD_ERANGE, "marker longer than %d bytes", PEP508_INPUT_MAX);
	v = marker_expr(&t, 0);
	if (!t.failed && t.i != t.n)
		fail(&t, "'and', 'or' or the end of the marker");
	if (t.failed)
		return t.code;
	return v;
}

/* ---- requirements ------------------------------------------------------- */

static int copy_ident(struct tok *t, size_t len, char *out, size_t cap)
{
	if (len >= cap) {
		t->failed = 1;
		t->code = CD_ERANGE;
		err_set(t->err, CD_ERANGE, "name longer than %zu bytes", cap - 1);
		return -1;
	}
	str_ncopy(out, cap, t->p + t->i, len);
	t->i += len;
	return 0;
}

/* '[' extra (',' extra)* ']' with optional white space; "[]" is allowed. */
static void take_extras(struct tok *t, struct pep508_req *r)
{
	size_t len;

	if (at(t, 0) != '[')
		return;
	t->i++;
	ws(t);
	if ((len = ident_len(t))) {
		for (;;) {
			if (r->n_extras == PEP508_EXTRAS_MAX) {
				t->failed = 1;
				t->code = CD_ERANGE;
				err_set(t->err, CD_ERANGE, "more than %d extras",
					PEP508_EXTRAS_MAX);
				return;
			}
			if (copy_ident(t, len, r->extras[r->n_extras++], PEP508_NAME_MAX))
				return;
			ws(t);
			if (ident_len(t)) {
				fail(t, "a comma between extra names");
				return;
			}
			if (at(t, 0) != ',')
				break;
			t->i++;
			ws(t);
			if (!(len = ident_len(t))) {
				fail(t, "an extra name after a comma");
				return;
			}
		}
	}
	ws(t);
	if (at(t, 0) != ']')
		fail(t, "']' closing the extras");
	else
		t->i++;
}

/* The extent of one specifier clause at the cursor (packaging's SPECIFIER
 * token): an operator, white space, then the version's characters. A clause
 * that does not parse fails the whole requirement, as in packaging. */
static size_t clause_len(const struct tok *t)
{
	static const char *const ops[] = {"===", "~=", "==", "!=", "<=", ">=", "<", ">"};
	size_t k, e = t->i, m = 0;

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]) && !m; k++)
		if (t->n - t->i >= strlen(ops[k]) && !memcmp(t->p + t->i, ops[k], strlen(ops[k])))
			m = strlen(ops[k]);
	if (!m)
		return 0;
	e += m;
	while (e < t->n && (t->p[e] == ' ' || t->p[e] == '\t'))
		e++;
	if (m == 3) {
		while (e < t->n && t->p[e] != ' ' && t->p[e] != '\t' && t->p[e] != ';' &&
		       t->p[e] != ')' && t->p[e] != '\n' && t->p[e] != '\r')
			e++;
		return e - t->i;
	}
	while (e < t->n && (is_word((unsigned char)t->p[e]) || strchr(".!+*-", t->p[e])))
		e++;
	return e - t->i;
}

static void take_specifiers(struct tok *t, struct pep508_req *r)
{
	int paren = at(t, 0) == '(';
	size_t len;

	if (paren) {
		t->i++;
		ws(t);
	}
	while ((len = clause_len(t))) {
		if (r->spec.n == PEP440_SPECS_MAX) {
			t->failed = 1;
			t->code = CD_ERANGE;
			err_set(t->err, CD_ERANGE, "more than %d version clauses",
				PEP440_SPECS_MAX);
			return;
		}
		if (pep440_spec_parse(t->p + t->i, len, &r->spec.specs[r->spec.n])) {
			fail(t, "a valid version specifier");
			return;
		}
		r->spec.n++;
		t->i += len;
		ws(t);
		if (at(t, 0) != ',')
			break;
		t->i++;
		ws(t);
	}
	if (paren) {
		ws(t);
		if (at(t, 0) != ')')
			fail(t, "')' closing the version specifier");
		else
			t->i++;
	}
}

static void take_marker(struct tok *t, struct pep508_req *r)
{
	struct tok m;

	if (at(t, 0) != ';') {
		fail(t, "';' before the marker, or the end");
		return;
	}
	t->i++;
	r->marker_off = t->i;
	m = *t;
	m.env = NULL;
	marker_expr(&m, 0);
	t->i = m.i;
	t->failed = m.failed;
	t->code = m.code;
	r->marker_len = t->i - r->marker_off;
	ws(t);
}

static void take_url(struct tok *t, struct pep508_req *r)
{
	size_t start;

	t->i++;
	ws(t);
	start = t->i;
	while (t->i < t->n && t->p[t->i] != ' ' && t->p[t->i] != '\t')
		t->i++;
	if (t->i == start) {
		fail(t, "a URL after '@'");
		return;
	}
	r->has_url = 1;
	if (t->i == t->n)
		return;
	ws(t);
	if (t->i < t->n)
		take_marker(t, r);
}

int pep508_parse(const char *p, size_t n, struct pep508_req *out, struct cd_err *err)
{
	struct tok t = {p, n, 0, 0, 0, err, NULL};
	size_t len;

	memset(out, 0, sizeof(*out));
	if (!p || n > PEP508_INPUT_MAX)
		return err_set(err, CD_ERANGE, "requirement longer than %d bytes",
			       PEP508_INPUT_MAX);
	ws(&t);
	if (!(len = ident_len(&t)))
		return fail(&t, "a package name"), CD_EFORMAT;
	if (copy_ident(&t, len, out->name, sizeof(out->name)))
		return t.code;
	pep508_normalize(out->name, strlen(out->name), out->key, sizeof(out->key));
	ws(&t);
	take_extras(&t, out);
	ws(&t);
	if (!t.failed && at(&t, 0) == '@') {
		take_url(&t, out);
	} else if (!t.failed) {
		take_specifiers(&t, out);
		ws(&t);
		if (!t.failed && t.i < t.n)
			take_marker(&t, out);
	}
	if (!t.failed && t.i != t.n)
		fail(&t, "the end of the requirement");
	return t.failed ? t.code : 0;
}

int pep508_req_applies(const struct pep508_req *r, const char *text, const struct pep508_env *env)
{
	if (!r->marker_len)
		return PEP508_TRUE;
	return pep508_marker_eval(text + r->marker_off, r->marker_len, env, NULL);
}
