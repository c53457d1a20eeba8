/* archlist: see archlist.h. The replacement and split reproduce
 * _get_cuda_arch_flags' `.replace(' ', ';')`, `.replace(named, value)` for
 * each name in table order, and `.split(';')`; an entry is valid when it is
 * one of supported_arches, or one of them followed by "+PTX". The tables are
 * the caller's. */
#include "format/archlist.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"

#define WORK (ARCHLIST_MAX_INPUT * 4) /* room for the expanded list */

const char *archlist_kind_name(enum archlist_kind k)
{
	switch (k) {
	case ARCHLIST_EMPTY: return "empty";
	case ARCHLIST_RENAMED: return "renamed";
	case ARCHLIST_FAMILY: return "family";
	case ARCHLIST_SPELLING: return "spelling";
	case ARCHLIST_UNKNOWN: return "unknown";
	default: return "ok";
	}
}

static int in_supported(const struct archlist_rules *rules, const char *base)
{
	size_t i;

	for (i = 0; i < rules->n_arches; i++)
		if (rules->arches[i] && !strcmp(base, rules->arches[i]))
			return 1;
	return 0;
}

int archlist_base(const char *entry, char *out, size_t cap)
{
	size_t n = strlen(entry);
	int ptx = n > 4 && !strcmp(entry + n - 4, "+PTX");

	str_ncopy(out, cap, entry, ptx ? n - 4 : n);
	return ptx;
}

int archlist_accepts(const struct archlist_rules *rules, const char *entry)
{
	char base[ARCHLIST_ENTRY_MAX];

	if (strlen(entry) >= sizeof(base))
		return 0;
	archlist_base(entry, base, sizeof(base));
	return in_supported(rules, base);
}

/* Python's str.replace of every non-overlapping occurrence, into dst. */
static int replace_all(const char *src, const char *from, const char *to, char *dst, size_t cap)
{
	size_t flen = strlen(from), tlen = strlen(to), k = 0;

	while (*src) {
		if (flen && !strncmp(src, from, flen)) {
			if (k + tlen >= cap)
				return -1;
			memcpy(dst + k, to, tlen);
			k += tlen;
			src += flen;
			continue;
		}
		if (k + 1 >= cap)
			return -1;
		dst[k++] = *src++;
	}
	dst[k] = '\0';
	return 0;
}

/* Normalise a mis-spelled entry ("sm_90", "90", "9.0A+ptx", " 8.6") into
 * out ("9.0", "9.0a+PTX"); sets *family when it ends in 'f'. 0 on success. */
static int respell(const struct archlist_rules *rules, const char *e, char *out, size_t cap,
		   int *family)
{
	char num[16], low[ARCHLIST_ENTRY_MAX];
	size_t i, n = 0, digits = 0;
	int ptx = 0, dot = 0;
	char suffix = 0;
	const char *s = low;

	*family = 0;
	for (i = 0; e[i] && n + 1 < sizeof(low); i++)
		if (!isspace((unsigned char)e[i]))
			low[n++] = (char)tolower((unsigned char)e[i]);
	low[n] = '\0';
	while (n > 4 && !strcmp(low + n - 4, "+ptx")) { /* "Hopper+PTX" -> "9.0+PTX+PTX" */
		ptx = 1;
		n -= 4;
		low[n] = '\0';
	}
	if (!strncmp(s, "compute_", 8))
		s += 8;
	else if (!strncmp(s, "sm_", 3))
		s += 3;
	else if (!strncmp(s, "sm", 2))
		s += 2;
	for (n = 0; *s && n + 1 < sizeof(num); s++) {
		if (isdigit((unsigned char)*s)) {
			num[n++] = *s;
			digits++;
		} else if (*s == '.' && !dot && digits) {
			num[n++] = *s;
			dot = 1;
		} else {
			break;
		}
	}
	num[n] = '\0';
	if ((*s == 'a' || *s == 'f') && !s[1])
		suffix = *s;
	else if (*s)
		return -1;
	if (!dot) { /* "90" -> "9.0", "100" -> "10.0" */
		if (digits != 2 && digits != 3)
			return -1;
		num[n + 1] = '\0';
		num[n] = num[n - 1];
		num[n - 1] = '.';
	}
	if (snprintf(out, cap, "%s%s", num, suffix == 'a' ? "a" : "") >= (int)cap)
		return -1;
	if (!in_supported(rules, out))
		return -1;
	*family = suffix == 'f';
	if (ptx && strlen(out) + 4 < cap)
		memcpy(out + strlen(out), "+PTX", 5);
	return 0;
}

/* Was base an old name of an architecture these tables know by another? */
static int renamed(const struct archlist_rules *rules, const char *base, int ptx,
		   struct archlist_entry *x)
{
	size_t i;

	for (i = 0; rules->renames && i < rules->n_renames; i++) {
		if (strcmp(base, rules->renames[i].name))
			continue;
		x->kind = ARCHLIST_RENAMED;
		snprintf(x->suggest, sizeof(x->suggest), "%s%s", rules->renames[i].value,
			 ptx ? "+PTX" : "");
		return 1;
	}
	return 0;
}

/* "X.Y", "X.Ya", each optionally "+PTX": the numbers (torch's own split). */
static void numbers(const char *e, struct archlist_entry *x)
{
	size_t k, len = strlen(e);
	const char *d;

	x->major = x->minor = -1;
	x->ptx = len >= 4 && !strcmp(e + len - 4, "+PTX");
	if (x->ptx)
		len -= 4;
	d = memchr(e, '.', len);
	if (!d || d == e || (size_t)(d - e) > 2 || (size_t)(d + 1 - e) >= len ||
	    !isdigit((unsigned char)d[1]))
		return;
	for (k = 0; e + k < d; k++)
		if (!isdigit((unsigned char)e[k]))
			return;
	x->major = e[0] - '0';
	if (d - e == 2)
		x->major = x->major * 10 + (e[1] - '0');
	x->minor = d[1] - '0';
	x->arch_specific = (size_t)(d + 2 - e) < len && d[2] == 'a';
}

static void classify(const struct archlist_rules *rules, const char *e, struct archlist_entry *x)
{
	char base[ARCHLIST_ENTRY_MAX];
	size_t n = strlen(e);
	int ptx, family = 0;

	memset(x, 0, sizeof(*x));
	str_copy(x->text, sizeof(x->text), e);
	numbers(e, x);
	if (archlist_accepts(rules, e)) {
		x->kind = ARCHLIST_OK;
		x->valid = 1;
		return;
	}
	if (!*e) {
		x->kind = ARCHLIST_EMPTY;
		return;
	}
	if (n >= sizeof(base)) {
		x->kind = ARCHLIST_UNKNOWN;
		return;
	}
	ptx = archlist_base(e, base, sizeof(base));
	if (renamed(rules, base, ptx, x))
		return;
	if (respell(rules, e, x->suggest, sizeof(x->suggest), &family) == 0) {
		x->kind = family ? ARCHLIST_FAMILY : ARCHLIST_SPELLING;
		return;
	}
	x->suggest[0] = '\0';
	x->kind = ARCHLIST_UNKNOWN;
}

static void fixed_add(struct archlist_result *r, const char *e)
{
	size_t k = strlen(r->fixed), m = strlen(e);

	if (!m || k + m + 2 > sizeof(r->fixed))
		return;
	if (k)
		r->fixed[k++] = ';';
	memcpy(r->fixed + k, e, m + 1);
}

/* Blanks to ';', then every name replaced in order; NULL when the expansion
 * does not fit (a table whose values are far longer than its names). */
static char *expand(const char *v, size_t len, const struct archlist_rules *rules, char *a, char *b)
{
	char *cur = a;
	size_t i;

	for (i = 0; i < len; i++)
		a[i] = v[i] == ' ' ? ';' : v[i];
	a[len] = '\0';
	for (i = 0; i < rules->n_names; i++) {
		char *dst = cur == a ? b : a;
		if (!rules->names[i].name || !rules->names[i].value ||
		    replace_all(cur, rules->names[i].name, rules->names[i].value, dst, WORK) != 0)
			return NULL;
		cur = dst;
	}
	return cur;
}

size_t archlist_parse(const uint8_t *p, size_t n, const struct archlist_rules *rules,
		      struct archlist_result *r)
{
	char a[WORK], b[WORK];
	const char *value = (const char *)p;
	const uint8_t *nul;
	char *cur, *s;

	memset(r, 0, sizeof(*r));
	if (p && (nul = memchr(p, '\0', n)))
		n = (size_t)(nul - p); /* an environment value ends at its NUL */
	if (!p || n == 0 || (n == 6 && !memcmp(value, "native", 6))) {
		r->is_auto = 1;
		return 0;
	}
	if (n > ARCHLIST_MAX_INPUT || !(cur = expand(value, n, rules, a, b))) {
		r->too_long = 1;
		return 0;
	}
	for (s = cur;; s++) {
		char *semi = strchr(s, ';');
		struct archlist_entry tmp, *x;

		if (semi)
			*semi = '\0';
		x = r->n_kept < ARCHLIST_MAX_ENTRIES ? &r->entries[r->n_kept++] : &tmp;
		r->n_entries++;
		classify(rules, s, x);
		if (x->valid) {
			fixed_add(r, s);
		} else {
			if (!r->n_bad++)
				str_copy(r->first_bad, sizeof(r->first_bad), s);
			fixed_add(r, x->suggest);
		}
		if (!semi)
			break;
		s = semi;
	}
	return r->n_bad;
}
