/* redact_addr: the address recognisers (@ipv4, @ipv6, @mac). A candidate
 * starts where the character before it could not continue it and must end
 * the same way, so the inside of a longer dotted or colon-separated run
 * (1.2.3.4.5, a PCI id, a time of day) is never taken. IPv6 follows RFC 4291
 * 2.2 (groups of 1-4 hex digits, one "::", a dotted IPv4 tail) and needs a
 * decimal digit, so C++ scopes such as c10::add are no address. */
#include <ctype.h>
#include <string.h>

#include "format/redact_int.h"

static int dig(char c)
{
	return isdigit((unsigned char)c);
}

static int hex(char c)
{
	return isxdigit((unsigned char)c);
}

static int word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A dotted quad at s[0..n) exactly: 0 or its length. */
static size_t quad(const char *s, size_t n)
{
	size_t j = 0, oct;

	for (oct = 0; oct < 4; oct++) {
		size_t k = j;
		unsigned v = 0;
		while (k < n && dig(s[k]) && k - j < 4)
			v = v * 10 + (unsigned)(s[k++] - '0');
		if (k == j || k - j > 3 || v > 255)
			return 0;
		j = k;
		if (oct < 3) {
			if (j >= n || s[j] != '.')
				return 0;
			j++;
		}
	}
	return j;
}

int rd_find_ipv4(const char *p, size_t n, size_t from, size_t *b, size_t *e)
{
	size_t i = from, j;

	while (i < n) {
		if (!dig(p[i]) || (i > 0 && (word(p[i - 1]) || p[i - 1] == '.'))) {
			i++;
			continue;
		}
		j = quad(p + i, n - i);
		if (j) {
			j += i;
			if (j == n ||
			    !(word(p[j]) || (p[j] == '.' && j + 1 < n && dig(p[j + 1])))) {
				*b = i;
				*e = j;
				return 1;
			}
		}
		while (i < n && (dig(p[i]) || p[i] == '.'))
			i++; /* not inside this run either */
	}
	return 0;
}

int rd_find_mac(const char *p, size_t n, size_t from, size_t *b, size_t *e)
{
	size_t i, g;

	for (i = from; i + 17 <= n; i++) {
		char sep = p[i + 2];
		int ok = sep == ':' || sep == '-';
		if (!hex(p[i]) || (i > 0 && (word(p[i - 1]) || strchr(":-.", p[i - 1]))))
			continue;
		for (g = 0; g < 6 && ok; g++) {
			size_t o = i + g * 3;
			ok = hex(p[o]) && hex(p[o + 1]) && (g == 5 || p[o + 2] == sep);
		}
		if (!ok)
			continue;
		if (i + 17 < n &&
		    (word(p[i + 17]) || (p[i + 17] == sep && i + 18 < n && hex(p[i + 18]))))
			continue; /* a longer run */
		*b = i;
		*e = i + 17;
		return 1;
	}
	return 0;
}

static int v6_char(char c)
{
	return hex(c) || c == ':' || c == '.';
}

/* One group of s: 1-4 hex digits, or (the last) a dotted quad, counting 2. */
static int group_len(const char *s, size_t n, int last, size_t *groups)
{
	size_t i;

	if (last && memchr(s, '.', n)) {
		*groups += 2;
		return quad(s, n) == n;
	}
	for (i = 0; i < n; i++)
		if (!hex(s[i]))
			return 0;
	*groups += 1;
	return n >= 1 && n <= 4;
}

static int v6_valid(const char *s, size_t n)
{
	const char *dbl = n >= 2 ? memmem(s, n, "::", 2) : NULL;
	size_t groups = 0, i = 0, j;
	int digit = 0;

	if (dbl && memmem(dbl + 1, n - (size_t)(dbl + 1 - s), "::", 2))
		return 0; /* two "::" (or ":::") */
	for (j = 0; j < n; j++)
		digit |= dig(s[j]);
	if (!digit || (!dbl && (s[0] == ':' || s[n - 1] == ':')))
		return 0;
	while (i < n) {
		if (s[i] == ':') {
			if (!dbl || s + i < dbl || s + i > dbl + 1)
				return 0; /* an empty group outside the "::" */
			i++;
			continue;
		}
		for (j = i; j < n && s[j] != ':'; j++)
			;
		if (!group_len(s + i, j - i, j == n, &groups))
			return 0;
		i = j < n && s[j] == ':' && !(dbl && s + j == dbl) ? j + 1 : j;
	}
	return dbl ? groups <= 7 : groups == 8;
}

/* The address in run [i, j) starting at k, if there is one: its end, or 0. */
static size_t v6_at(const char *p, size_t n, size_t k, size_t j)
{
	size_t end = j;

	while (end > k && p[end - 1] == '.')
		end--;
	if (end > k + 1 && p[end - 1] == ':' && p[end - 2] != ':')
		end--; /* "fe80::1: up" */
	if (end == k || !v6_valid(p + k, end - k))
		return 0;
	if (end == j && j < n && (word(p[j]) || p[j] == '('))
		return 0; /* c10::add(x) */
	return end;
}

/* A run of hex digits, colons and dots is tried from its start (unless a
 * word runs into it) and from after each single colon in it, so that
 * "ib0:fe80::1" gives fe80::1 and a time of day gives nothing. */
int rd_find_ipv6(const char *p, size_t n, size_t from, size_t *b, size_t *e)
{
	size_t i = from, j, k, end;

	while (i < n) {
		if (!v6_char(p[i]) || (i > 0 && v6_char(p[i - 1]) && i > from)) {
			i++;
			continue;
		}
		for (j = i; j < n && v6_char(p[j]); j++)
			;
		for (k = i; k < j; k++) {
			if (k == i ? i > 0 && word(p[i - 1])
				   : p[k - 1] != ':' || p[k] == ':' || (k >= 2 && p[k - 2] == ':'))
				continue;
			if ((end = v6_at(p, n, k, j))) {
				*b = k;
				*e = end;
				return 1;
			}
		}
		i = j;
	}
	return 0;
}
