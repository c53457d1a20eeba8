/* pep440_match: the order of PEP 440 versions ("1.0.dev0" < "1.0a1" < "1.0" <
 * "1.0+x" < "1.0.post1"), their normalised text, and what a specifier admits,
 * as packaging.specifiers (which pip uses) decides it; see pep440.c for the
 * parsers and pep440.h for the interface. */
#include "format/pep440.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "format/pep440_int.h"

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
			da &= pep440_is_digit(a[k]);
		for (k = 0; k < lb; k++)
			db &= pep440_is_digit(b[k]);
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
			if (pep440_lc(text[k]) != pep440_lc(s->text[k]))
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
