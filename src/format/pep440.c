/* pep440: see pep440.h. The grammar is the one of PEP 440 Appendix B's
 * regular expression (case-insensitive, optional separators, implicit
 * numbers), written as a scanner; the comparison and specifier semantics
 * follow PEP 440 "Version specifiers" and packaging.specifiers, which pip
 * uses: prefix matching pads the candidate's release with zeros, `<V` does not
 * admit pre-releases of V, `>V` does not admit post-releases or local versions
 * of V, and clauses without a local label ignore the candidate's. */
#include "format/pep440.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"

struct scan {
	const char *p;
	size_t n, i;
};

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_alnum_lc(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char lc(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
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
		if (lc(s->p[s->i + k]) != w[k])
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
	while (s->i < s->n && is_digit(s->p[s->i])) {
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

	if (peek(s, 0) == '-' && is_digit((char)peek(s, 1))) {
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
		if (!is_digit(p[k]))
			digits = 0;
	if (digits)
		while (n > 1 && p[0] == '0')
			p++, n--;
	if (len + (len ? 1 : 0) + n >= sizeof(v->local))
		return CD_ERANGE;
	if (len)
		v->local[len++] = '.';
	for (k = 0; k < n; k++)
		v->local[len++] = lc(p[k]);
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
		if (peek(s, 0) != '.' || !is_digit((char)peek(s, 1)))
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

int pep440_is_prerelease(const struct pep440_version *v)
{
	return v->pre_kind != PEP440_PRE_NONE || v->has_dev;
}

int pep440_is_postrelease(const struct pep440_version *v)
{
	return v->has_post;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Release segments compare with trailing zeros ignored ("1.0" == "1"). */
static int cmp_release(const struct pep440_version *a, const struct pep440_version *b)
{
	size_t i, n = a->n_release > b->n_release ? a->n_release : b->n_release;

	for (i = 0; i < n; i++) {
		uint64_t x = i < a->n_release ? a->release[i] : 0;
		uint64_t y = i < b->n_release ? b->release[i] : 0;
		if (x != y)
			return cmp_u64(x, y);
	}
	return 0;
}

/* Pre-release key: a dev release of the final (no pre, no post) sorts before
 * every pre-release; no pre-release sorts after them all. */
static int pre_rank(const struct pep440_version *v, int *kind, uint64_t *num)
{
	*num = v->pre;
	if (v->pre_kind == PEP440_PRE_NONE && !v->has_post && v->has_dev)
		*kind = -1;
	else if (v->pre_kind == PEP440_PRE_NONE)
		*kind = 99;
	else
		*kind = (int)v->pre_kind;
	return 0;
}

/* Local labels: part by part; numeric parts compare as numbers and sort above
 * alphanumeric ones; a shorter label that is a prefix sorts first. */
static int cmp_local(const char *a, const char *b)
{
	if (!*a || !*b)
		return (*a != 0) - (*b != 0);
	for (;;) {
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		int da = la > 0, db = lb > 0, c;
		size_t k;
		for (k = 0; k < la; k++)
			da &= is_digit(a[k]);
		for (k = 0; k < lb; k++)
			db &= is_digit(b[k]);
		if (da != db)
			return da - db;
		if (da && la != lb)
			return la < lb ? -1 : 1; /* no leading zeros: longer is larger */
		c = strncmp(a, b, la < lb ? la : lb);
		if (c)
			return c < 0 ? -1 : 1;
		if (la != lb)
			return la < lb ? -1 : 1;
		a += la;
		b += lb;
		if (!*a || !*b)
			return (*a != 0) - (*b != 0);
		a++;
		b++;
	}
}

int pep440_cmp(const struct pep440_version *a, const struct pep440_version *b)
{
	int ka, kb, c;
	uint64_t na, nb;

	if ((c = cmp_u64(a->epoch, b->epoch)) || (c = cmp_release(a, b)))
		return c;
	pre_rank(a, &ka, &na);
	pre_rank(b, &kb, &nb);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ka > 0 && ka < 99 && (c = cmp_u64(na, nb)))
		return c;
	if (a->has_post != b->has_post)
		return a->has_post ? 1 : -1;
	if ((c = cmp_u64(a->post, b->post)))
		return c;
	if (a->has_dev != b->has_dev)
		return a->has_dev ? -1 : 1;
	if ((c = cmp_u64(a->dev, b->dev)))
		return c;
	return cmp_local(a->local, b->local);
}

size_t pep440_format(const struct pep440_version *v, char *out, size_t cap)
{
	static const char *const pre[] = {"", "a", "b", "rc"};
	char buf[512];
	size_t n = 0, i;

#define PUT(...) n += (size_t)snprintf(buf + n, n < sizeof(buf) ? sizeof(buf) - n : 0, __VA_ARGS__)
	if (v->epoch)
		PUT("%llu!", (unsigned long long)v->epoch);
	for (i = 0; i < v->n_release; i++)
		PUT("%s%llu", i ? "." : "", (unsigned long long)v->release[i]);
	if (v->pre_kind != PEP440_PRE_NONE)
		PUT("%s%llu", pre[v->pre_kind], (unsigned long long)v->pre);
	if (v->has_post)
		PUT(".post%llu", (unsigned long long)v->post);
	if (v->has_dev)
		PUT(".dev%llu", (unsigned long long)v->dev);
	if (v->local[0])
		PUT("+%s", v->local);
#undef PUT
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	str_ncopy(out, cap, buf, n);
	return n;
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
static int spec_admits_pre(const struct pep440_spec *s)
{
	switch (s->op) {
	case PEP440_OP_EQ:
	case PEP440_OP_GE:
	case PEP440_OP_LE:
	case PEP440_OP_COMPAT:
	case PEP440_OP_ARBITRARY: return pep440_is_prerelease(&s->v);
	default: return 0;
	}
}

static void public_of(const struct pep440_version *v, struct pep440_version *out)
{
	*out = *v;
	out->local[0] = '\0';
}

static int same_base(const struct pep440_version *a, const struct pep440_version *b)
{
	return a->epoch == b->epoch && cmp_release(a, b) == 0;
}

/* ==V.* : the candidate's release, padded with zeros, starts with V's. */
static int prefix_match(const struct pep440_version *v, const struct pep440_version *spec,
			size_t n_release)
{
	size_t i;

	if (v->epoch != spec->epoch)
		return 0;
	for (i = 0; i < n_release; i++)
		if ((i < v->n_release ? v->release[i] : 0) != spec->release[i])
			return 0;
	return 1;
}

static int op_eq(const struct pep440_spec *s, const struct pep440_version *v)
{
	struct pep440_version pub;

	if (s->wildcard)
		return prefix_match(v, &s->v, s->v.n_release);
	if (s->v.local[0])
		return pep440_cmp(v, &s->v) == 0;
	public_of(v, &pub);
	return pep440_cmp(&pub, &s->v) == 0;
}

static int op_apply(const struct pep440_spec *s, const struct pep440_version *v)
{
	struct pep440_version pub;
	char text[PEP440_INPUT_MAX];
	size_t k;

	public_of(v, &pub);
	switch (s->op) {
	case PEP440_OP_EQ: return op_eq(s, v);
	case PEP440_OP_NE: return !op_eq(s, v);
	case PEP440_OP_LE: return pep440_cmp(&pub, &s->v) <= 0;
	case PEP440_OP_GE: return pep440_cmp(&pub, &s->v) >= 0;
	case PEP440_OP_COMPAT:
		return pep440_cmp(&pub, &s->v) >= 0 && prefix_match(v, &s->v, s->v.n_release - 1);
	case PEP440_OP_LT:
		if (pep440_cmp(v, &s->v) >= 0)
			return 0;
		/* <V excludes pre-releases of V itself unless V is one. */
		return !(!pep440_is_prerelease(&s->v) && pep440_is_prerelease(v) &&
			 same_base(v, &s->v));
	case PEP440_OP_GT:
		if (pep440_cmp(v, &s->v) <= 0)
			return 0;
		/* >V excludes post-releases of V unless V is one, and V+local. */
		if (!pep440_is_postrelease(&s->v) && pep440_is_postrelease(v) &&
		    same_base(v, &s->v))
			return 0;
		return !(v->local[0] && same_base(v, &s->v));
	case PEP440_OP_ARBITRARY:
		pep440_format(v, text, sizeof(text));
		if (strlen(text) != strlen(s->text))
			return 0;
		for (k = 0; text[k]; k++)
			if (lc(text[k]) != lc(s->text[k]))
				return 0;
		return 1;
	}
	return 0;
}

int pep440_spec_contains(const struct pep440_spec *s, const struct pep440_version *v,
			 enum pep440_prerelease pre)
{
	int allow = pre == PEP440_PRE_DEFAULT ? spec_admits_pre(s) : pre == PEP440_PRE_INCLUDE;

	if (!allow && pep440_is_prerelease(v))
		return 0;
	return op_apply(s, v);
}

int pep440_specset_contains(const struct pep440_specset *s, const struct pep440_version *v,
			    enum pep440_prerelease pre)
{
	int allow = pre == PEP440_PRE_INCLUDE;
	size_t i;

	if (pre == PEP440_PRE_DEFAULT)
		for (i = 0; i < s->n; i++)
			allow |= spec_admits_pre(&s->specs[i]);
	if (!allow && pep440_is_prerelease(v))
		return 0;
	for (i = 0; i < s->n; i++)
		if (!op_apply(&s->specs[i], v))
			return 0;
	return 1;
}

size_t pep440_specset_format(const struct pep440_specset *s, char *out, size_t cap)
{
	size_t i, n = 0;

	if (cap)
		out[0] = '\0';
	for (i = 0; i < s->n; i++) {
		int k = snprintf(out + (n < cap ? n : cap), n < cap ? cap - n : 0, "%s%s%s",
				 i ? "," : "", pep440_op_str(s->specs[i].op), s->specs[i].text);
		n += k > 0 ? (size_t)k : 0;
	}
	return n;
}
