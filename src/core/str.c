/* str: see str.h. */
#include "core/str.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

/* The first len bytes of src, truncated to fit; returns len. */
static size_t copy_len(char *dst, size_t cap, const char *src, size_t len)
{
	if (cap) {
		size_t k = len < cap - 1 ? len : cap - 1;
		memcpy(dst, src, k);
		dst[k] = '\0';
	}
	return len;
}

size_t str_ncopy(char *dst, size_t cap, const char *src, size_t n)
{
	return copy_len(dst, cap, src, strnlen(src, n));
}

size_t str_copy(char *dst, size_t cap, const char *src)
{
	return copy_len(dst, cap, src, strlen(src));
}

int str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

char *str_trim(char *s)
{
	char *b = s, *e;

	while (*b && isspace((unsigned char)*b))
		b++;
	e = b + strlen(b);
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	memmove(s, b, (size_t)(e - b));
	s[e - b] = '\0';
	return s;
}

int str_to_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return CD_EFORMAT;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return CD_ERANGE;
	if (*end)
		return CD_EFORMAT;
	*out = v;
	return 0;
}

int str_to_int(const char *s, int min, int max, int *out)
{
	long v;
	char *end;

	if (!s || !*s)
		return CD_EFORMAT;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || end == s)
		return CD_EFORMAT;
	if (errno == ERANGE || v < min || v > max)
		return CD_ERANGE;
	*out = (int)v;
	return 0;
}

/* Read one numeric component; stops at '.', end, or a non-digit. */
static const char *ver_next(const char *s, unsigned long long *v)
{
	*v = 0;
	while (isdigit((unsigned char)*s)) {
		if (*v < 1000000000ULL)
			*v = *v * 10 + (unsigned)(*s - '0');
		s++;
	}
	while (*s && *s != '.')
		s++; /* ignore suffixes such as "+cu130" or "rc1" */
	return *s == '.' ? s + 1 : s;
}

int ver_cmp(const char *a, const char *b)
{
	unsigned long long x, y;

	while (*a || *b) {
		a = ver_next(a, &x);
		b = ver_next(b, &y);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

int ver_cuda_int(const char *s)
{
	unsigned long long major, minor;
	const char *p;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	p = ver_next(s, &major);
	if (*p && !isdigit((unsigned char)*p))
		return -1;
	ver_next(p, &minor);
	if (major > 1000 || minor > 99)
		return -1;
	return (int)(major * 1000 + minor * 10);
}

void ver_cuda_str(int v, char *out, size_t cap)
{
	snprintf(out, cap, "%d.%d", v / 1000, (v % 1000) / 10);
}

const char *str_bytes(char *buf, size_t cap, int64_t b)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)b;
	size_t u = 0;
	char *dot;

	if (b < 0) {
		snprintf(buf, cap, "unknown");
		return buf;
	}
	if (b < 1024) {
		snprintf(buf, cap, "%lld B", (long long)b);
		return buf;
	}
	v /= 1024.0;
	while (v >= 1023.95 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, cap, "%.1f %s", v, unit[u]);
	dot = strstr(buf, ".0 ");
	if (dot)
		memmove(dot, dot + 2, strlen(dot + 2) + 1);
	return buf;
}

uint64_t str_fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

int str_parse_bytes(const char *s, int64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {{"", 1},
		     {"K", 1ULL << 10},
		     {"KiB", 1ULL << 10},
		     {"KB", 1000},
		     {"M", 1ULL << 20},
		     {"MiB", 1ULL << 20},
		     {"MB", 1000000},
		     {"G", 1ULL << 30},
		     {"GiB", 1ULL << 30},
		     {"GB", 1000000000},
		     {"T", 1ULL << 40},
		     {"TiB", 1ULL << 40},
		     {"TB", 1000000000000ULL}};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v >= 0) || s[0] == '-' || s[0] == '+')
		return CD_EFORMAT;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			double b = v * (double)units[i].mult;
			if (b >= 9.2e18)
				return CD_EFORMAT;
			*out = (int64_t)b;
			return 0;
		}
	return CD_EFORMAT;
}
