/* pep440: see pep440.h. The grammar is the one of PEP 440 Appendix B's
 * regular expression (case-insensitive, optional separators, implicit
 * numbers), written as a scanner; the comparison and specifier semantics
 * follow PEP 440 "Version specifiers" and packaging.specifiers, which pip
 * uses: prefix matching pads the candidate's release with zeros, `<V` does not
 * admit pre-releases of V, `>V` does not admit post-releases or local versions
 * of V, and clauses without a local label ignore the candidate's. This file
 * parses versions and specifiers; pep440_match.c orders versions, formats
 * them and decides what a specifier admits. */
#include "format/pep440.h"

#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "format/pep440_int.h"

struct scan {
	const char *p;
	size_t n, i;
};

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_alnum_lc(char c)
{
	return pep440_is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int peek(const struct scan *s, size_t k)
{
	return s->i + k < s->n ? s->p[s->i + k] : -1;
}

/* Case-insensitive match of a lower-case word at the cursor; advances on match. */
static int take_word(struct scan *s, const char *w)
{
	size_t k, m = strlen(w);

	if (s->n - s->i < m)
		return 0;
	for (k = 0; k < m; k++)
		if (pep440_lc(s->p[s->i + k]) != w[k])
			return 0;
	s->i += m;
	return 1;
}

static int take_sep(struct scan *s)
{
	int c = peek(s, 0);

	if (c == '-' || c == '_' || c == '.') {
		s->i++;
		return 1;
	}
	return 0;
}

/* Digits into *v: 0 ok, 1 no digit here, CD_ERANGE on overflow. */
static int take_num(struct scan *s, uint64_t *v)
{
	size_t start = s->i;

	*v = 0;
	while (s->i < s->n && pep440_is_digit(s->p[s->i])) {
		unsigned d = (unsigned)(s->p[s->i] - '0');
		if (*v > (UINT64_MAX - d) / 10)
			return CD_ERANGE;
		*v = *v * 10 + d;
		s->i++;
	}
	return s->i == start ? 1 : 0;
}

/* [-_.]? WORD [-_.]? N?, WORD the first of words[n] that matches at the
 * cursor (list longer spellings before their prefixes). Returns the word's
 * index, or -1 with the cursor restored when none is there. *rc is 0, or
 * CD_ERANGE when N overflows; a missing N leaves *num 0. */
static int take_tagged(struct scan *s, const char *const *words, size_t n, uint64_t *num, int *rc)
{
	size_t save = s->i, k;

	*rc = 0;
	take_sep(s);
	for (k = 0; k < n; k++)
		if (take_word(s, words[k]))
			break;
	if (k == n) {
		s->i = save;
		return -1;
	}
	/* The regex takes an optional separator and optional digits greedily:
	 * "1.0a." and "1.0a-" are 1.0a0. */
	take_sep(s);
	*rc = take_num(s, num);
	if (*rc > 0)
		*rc = 0;
	return (int)k;
}

/* [-_.]? (alpha|a|beta|b|preview|pre|c|rc) [-_.]? N? */
static int take_pre(struct scan *s, struct pep440_version *v)
{
	static const char *const words[] = {"alpha", "a", "beta", "b", "preview", "pre", "c", "rc"};
	static const enum pep440_pre kinds[] = {PEP440_PRE_A,  PEP440_PRE_A,  PEP440_PRE_B,
						PEP440_PRE_B,  PEP440_PRE_RC, PEP440_PRE_RC,
						PEP440_PRE_RC, PEP440_PRE_RC};
	int rc, k = take_tagged(s, words, sizeof(words) / sizeof(words[0]), &v->pre, &rc);

	if (k < 0)
		return 1;
	v->pre_kind = kinds[k];
	return rc;
}

/* -N | [-_.]? (post|rev|r) [-_.]? N? */
static int take_post(struct scan *s, struct pep440_version *v)
{
	static const char *const words[] = {"post", "rev", "r"};
	int rc;

	if (peek(s, 0) == '-' && pep440_is_digit((char)peek(s, 1))) {
		s->i++;
		v->has_post = 1;
		return take_num(s, &v->post);
	}
	if (take_tagged(s, words, sizeof(words) / sizeof(words[0]), &v->post, &rc) < 0)
		return 1;
	v->has_post = 1;
	return rc;
}

/* [-_.]? dev [-_.]? N? */
static int take_dev(struct scan *s, struct pep440_version *v)
{
	static const char *const words[] = {"dev"};
	int rc;

	if (take_tagged(s, words, 1, &v->dev, &rc) < 0)
		return 1;
	v->has_dev = 1;
	return rc;
}

/* Append one local part, numeric parts without leading zeros. */
static int local_part(struct pep440_version *v, const char *p, size_t n)
{
	size_t len = strlen(v->local), k, digits = 1;

	for (k = 0; k < n; k++)
		if (!pep440_is_digit(p[k]))
			digits = 0;
	if (digits)
		while (n > 1 && p[0] == '0')
			p++, n--;
	if (len + (len ? 1 : 0) + n >= sizeof(v->local))
		return CD_ERANGE;
	if (len)
		v->local[len++] = '.';
	for (k = 0; k < n; k++)
		v->local[len++] = pep440_lc(p[k]);
	v->local[len] = '\0';
	return 0;
}

/* '+' [a-z0-9]+ ([-_.][a-z0-9]+)* */
static int take_local(struct scan *s, struct pep440_version *v)
{
	if (peek(s, 0) != '+')
		return 1;
	s->i++;
	for (;;) {
		size_t start = s->i;
		int rc;
		while (s->i < s->n && is_alnum_lc(s->p[s->i]))
			s->i++;
		if (s->i == start)
			return CD_EFORMAT;
		rc = local_part(v, s->p + start, s->i - start);
		if (rc)
			return rc;
		if (!(peek(s, 0) == '-' || peek(s, 0) == '_' || peek(s, 0) == '.') ||
		    !is_alnum_lc((char)peek(s, 1)))
			return 0;
		s->i++;
	}
}

static int take_release(struct scan *s, struct pep440_version *v)
{
	for (;;) {
		int rc;
		if (v->n_release == PEP440_RELEASE_MAX)
			return CD_ERANGE;
		rc = take_num(s, &v->release[v->n_release]);
		if (rc)
			return rc == 1 ? CD_EFORMAT : rc;
		v->n_release++;
		if (peek(s, 0) != '.' || !pep440_is_digit((char)peek(s, 1)))
			return 0;
		s->i++;
	}
}

/* [N!]: the epoch when one is there; 0, or CD_ERANGE when it overflows. */
static int take_epoch(struct scan *s, struct pep440_version *v)
{
	size_t save = s->i;
	uint64_t num;
	int rc = take_num(s, &num);

	if (rc < 0)
		return rc;
	if (rc == 0 && peek(s, 0) == '!') {
		v->epoch = num;
		s->i++;
	} else {
		s->i = save;
	}
	return 0;
}

/* The body of a version after the optional 'v': epoch, release, suffixes. */
static int take_version(struct scan *s, struct pep440_version *v)
{
	int rc;

	if ((rc = take_epoch(s, v)) || (rc = take_release(s, v)))
		return rc;
	if ((rc = take_pre(s, v)) < 0 || (rc = take_post(s, v)) < 0 || (rc = take_dev(s, v)) < 0)
		return rc;
	rc = take_local(s, v);
	return rc < 0 ? rc : 0;
}

/* Leading and trailing white space is not part of a version or specifier. */
static void trim(struct scan *s)
{
	while (s->n && is_ws(s->p[s->n - 1]))
		s->n--;
	while (s->i < s->n && is_ws(s->p[s->i]))
		s->i++;
}

int pep440_parse(const char *p, size_t n, struct pep440_version *out)
{
	struct scan s = {p, n, 0};
	int rc;

	memset(out, 0, sizeof(*out));
	if (!p || n > PEP440_INPUT_MAX)
		return CD_ERANGE;
	trim(&s);
	if (peek(&s, 0) == 'v' || peek(&s, 0) == 'V')
		s.i++;
	rc = take_version(&s, out);
	if (rc)
		return rc;
	return s.i == s.n ? 0 : CD_EFORMAT;
}

/* ---- specifiers --------------------------------------------------------- */

static const struct {
	const char *s;
	enum pep440_op op;
} ops[] = {
	/* Longest first, so "===" is not read as "==" and "<=" not as "<". */
	{"===", PEP440_OP_ARBITRARY}, {"~=", PEP440_OP_COMPAT}, {"==", PEP440_OP_EQ},
	{"!=", PEP440_OP_NE},	      {"<=", PEP440_OP_LE},	{">=", PEP440_OP_GE},
	{"<", PEP440_OP_LT},	      {">", PEP440_OP_GT},
};

const char *pep440_op_str(enum pep440_op op)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			return ops[i].s;
	return "?";
}

/* The version part of a clause, with the per-operator restrictions of
 * packaging's specifier regex: wildcards and local labels only after == and
 * !=, a wildcard only after a bare release, ~= needs two release components. */
static int spec_version(struct scan *s, struct pep440_spec *out)
{
	struct pep440_version *v = &out->v;
	int rc, eq = out->op == PEP440_OP_EQ || out->op == PEP440_OP_NE;

	if (peek(s, 0) == 'v' || peek(s, 0) == 'V')
		s->i++;
	if ((rc = take_epoch(s, v)) || (rc = take_release(s, v)))
		return rc;
	if (eq && s->n - s->i == 2 && s->p[s->i] == '.' && s->p[s->i + 1] == '*') {
		out->wildcard = 1;
		s->i += 2;
		return 0;
	}
	if (out->op == PEP440_OP_COMPAT && v->n_release < 2)
		return CD_EFORMAT;
	if ((rc = take_pre(s, v)) < 0 || (rc = take_post(s, v)) < 0 || (rc = take_dev(s, v)) < 0)
		return rc;
	if (eq && (rc = take_local(s, v)) < 0)
		return rc;
	return s->i == s->n ? 0 : CD_EFORMAT;
}

int pep440_spec_parse(const char *p, size_t n, struct pep440_spec *out)
{
	struct scan s = {p, n, 0};
	size_t i, k;

	memset(out, 0, sizeof(*out));
	if (!p || n > PEP440_INPUT_MAX)
		return CD_ERANGE;
	trim(&s);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (s.n - s.i >= strlen(ops[i].s) && !memcmp(s.p + s.i, ops[i].s, strlen(ops[i].s)))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return CD_EFORMAT;
	out->op = ops[i].op;
	s.i += strlen(ops[i].s);
	while (s.i < s.n && is_ws(s.p[s.i]))
		s.i++;
	str_ncopy(out->text, sizeof(out->text), s.p + s.i, s.n - s.i);
	if (out->op == PEP440_OP_ARBITRARY) {
		/* Anything but white space, ';' and ')'; compared as text. */
		for (k = s.i; k < s.n; k++)
			if (is_ws(s.p[k]) || s.p[k] == ';' || s.p[k] == ')')
				return CD_EFORMAT;
		if (pep440_parse(s.p + s.i, s.n - s.i, &out->v))
			memset(&out->v, 0, sizeof(out->v));
		return 0;
	}
	return spec_version(&s, out);
}

int pep440_specset_parse(const char *p, size_t n, struct pep440_specset *out)
{
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (!p || n > PEP440_INPUT_MAX * PEP440_SPECS_MAX)
		return CD_ERANGE;
	while (i < n) {
		const char *comma = memchr(p + i, ',', n - i);
		size_t end = comma ? (size_t)(comma - p) : n, a = i, b = end;
		int rc;
		while (a < b && is_ws(p[a]))
			a++;
		while (b > a && is_ws(p[b - 1]))
			b--;
		if (a < b) {
			if (out->n == PEP440_SPECS_MAX)
				return CD_ERANGE;
			rc = pep440_spec_parse(p + a, b - a, &out->specs[out->n]);
			if (rc)
				return rc;
			out->n++;
		}
		i = end + 1;
	}
	return 0;
}

/* The default of packaging's Specifier.prereleases: a clause that names a
 * pre-release with ==, >=, <=, ~= or === lets pre-releases in. */
