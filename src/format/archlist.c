/* archlist: see archlist.h. The tables are torch 2.11's
 * torch/utils/cpp_extension.py _get_cuda_arch_flags (named_arches,
 * supported_arches); the replacement and split reproduce its
 * `.replace(' ', ';')`, `.replace(named, value)` in order and `.split(';')`. */
#include "format/archlist.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"

/* Order matters: combined names first, or "Ampere" would eat "Ampere+Tegra". */
static const char *const named[][2] = {
	{"Kepler+Tesla", "3.7"},
	{"Kepler", "3.5+PTX"},
	{"Maxwell+Tegra", "5.3"},
	{"Maxwell", "5.0;5.2+PTX"},
	{"Pascal", "6.0;6.1+PTX"},
	{"Volta+Tegra", "7.2"},
	{"Volta", "7.0+PTX"},
	{"Turing", "7.5+PTX"},
	{"Ampere+Tegra", "8.7"},
	{"Ampere", "8.0;8.6+PTX"},
	{"Ada", "8.9+PTX"},
	{"Hopper", "9.0+PTX"},
	{"Blackwell+Tegra", "11.0"}, /* 10.1 before the CUDA 13 rename of sm_101 */
	{"Blackwell", "10.0;10.3;12.0;12.1+PTX"},
};

/* supported_arches of torch 2.11; each may carry "+PTX". */
static const char *const supported[] = {
	"3.5",	 "3.7",	 "5.0",	  "5.2",  "5.3",   "6.0",  "6.1",   "6.2",  "7.0",
	"7.2",	 "7.5",	 "8.0",	  "8.6",  "8.7",   "8.9",  "9.0",   "9.0a", "10.0",
	"10.0a", "11.0", "11.0a", "10.3", "10.3a", "12.0", "12.0a", "12.1", "12.1a",
};

/* Accepted by torch 2.7-2.8 only: CUDA 13.0 renamed sm_101 (Thor) to sm_110. */
static const char *const legacy[][2] = {{"10.1", "11.0"}, {"10.1a", "11.0a"}};

const char *archlist_kind_name(enum archlist_kind k)
{
	switch (k) {
	case ARCHLIST_EMPTY: return "empty";
	case ARCHLIST_LEGACY: return "legacy";
	case ARCHLIST_FAMILY: return "family";
	case ARCHLIST_SPELLING: return "spelling";
	case ARCHLIST_UNKNOWN: return "unknown";
	default: return "ok";
	}
}

static int in_supported(const char *base)
{
	size_t i;

	for (i = 0; i < sizeof(supported) / sizeof(supported[0]); i++)
		if (!strcmp(base, supported[i]))
			return 1;
	return 0;
}

int archlist_valid(const char *entry)
{
	char base[ARCHLIST_ENTRY_MAX];
	size_t n = strlen(entry);

	if (n >= sizeof(base))
		return 0;
	memcpy(base, entry, n + 1);
	if (n > 4 && !strcmp(base + n - 4, "+PTX"))
		base[n - 4] = '\0';
	return in_supported(base);
}

/* Python's str.replace of every non-overlapping occurrence, into dst. */
static int replace_all(const char *src, const char *from, const char *to, char *dst, size_t cap)
{
	size_t flen = strlen(from), tlen = strlen(to), k = 0;

	while (*src) {
		if (!strncmp(src, from, flen)) {
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
static int respell(const char *e, char *out, size_t cap, int *family)
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
	if (!in_supported(out))
		return -1;
	*family = suffix == 'f';
	if (ptx && strlen(out) + 4 < cap)
		memcpy(out + strlen(out), "+PTX", 5);
	return 0;
}

static void classify(const char *e, struct archlist_bad *b)
{
	char base[ARCHLIST_ENTRY_MAX];
	size_t i, n = strlen(e);
	int ptx = 0, family = 0;

	str_copy(b->entry, sizeof(b->entry), e);
	b->suggest[0] = '\0';
	if (!*e) {
		b->kind = ARCHLIST_EMPTY;
		return;
	}
	str_copy(base, sizeof(base), e);
	if (n > 4 && n < sizeof(base) && !strcmp(base + n - 4, "+PTX")) {
		ptx = 1;
		base[n - 4] = '\0';
	}
	for (i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		if (!strcmp(base, legacy[i][0])) {
			b->kind = ARCHLIST_LEGACY;
			snprintf(b->suggest, sizeof(b->suggest), "%s%s", legacy[i][1],
				 ptx ? "+PTX" : "");
			return;
		}
	}
	if (n < sizeof(base) && respell(e, b->suggest, sizeof(b->suggest), &family) == 0) {
		b->kind = family ? ARCHLIST_FAMILY : ARCHLIST_SPELLING;
		return;
	}
	b->suggest[0] = '\0';
	b->kind = ARCHLIST_UNKNOWN;
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

size_t archlist_parse(const char *value, size_t len, struct archlist_result *r)
{
	char a[ARCHLIST_MAX_INPUT * 4], b[ARCHLIST_MAX_INPUT * 4];
	char *cur, *p;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (value)
		len = strnlen(value, len); /* an environment value ends at its NUL */
	if (!value || len == 0 || (len == 6 && !memcmp(value, "native", 6))) {
		r->is_auto = 1;
		return 0;
	}
	if (len > ARCHLIST_MAX_INPUT) {
		r->too_long = 1;
		return 0;
	}
	for (i = 0; i < len; i++)
		a[i] = value[i] == ' ' ? ';' : value[i];
	a[len] = '\0';
	cur = a;
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		char *dst = cur == a ? b : a;
		if (replace_all(cur, named[i][0], named[i][1], dst, sizeof(a)) != 0) {
			r->too_long = 1; /* cannot happen: each name expands < 3x */
			return 0;
		}
		cur = dst;
	}
	for (p = cur;; p++) {
		char *semi = strchr(p, ';');
		struct archlist_bad tmp, *bad;

		if (semi)
			*semi = '\0';
		r->n_entries++;
		if (archlist_valid(p)) {
			fixed_add(r, p);
		} else {
			bad = r->n_bad_kept < ARCHLIST_MAX_BAD ? &r->bad[r->n_bad_kept++] : &tmp;
			classify(p, bad);
			fixed_add(r, bad->suggest);
			r->n_bad++;
		}
		if (!semi)
			break;
		p = semi;
	}
	return r->n_bad;
}
