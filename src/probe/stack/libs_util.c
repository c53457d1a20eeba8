/* libs_util: see libs_util.h. */
#include "probe/stack/libs_util.h"

#include <string.h>

#include "core/str.h"
#include "kb/nvlibs.h"

int libs_file_version(const char *base, char *out, size_t cap)
{
	const char *v = base ? strstr(base, ".so.") : NULL;
	int parts = 0, digits = 0;
	size_t i;

	if (cap)
		out[0] = '\0';
	if (!v)
		return 0;
	v += 4;
	for (i = 0; v[i]; i++) {
		if (v[i] >= '0' && v[i] <= '9') {
			digits++;
		} else if (v[i] == '.' && digits) {
			parts++;
			digits = 0;
		} else {
			return 0;
		}
	}
	if (!digits)
		return 0;
	str_copy(out, cap, v);
	return parts + 1;
}

int libs_versions_differ(const char *a, const char *b)
{
	if (!a || !b)
		return 0;
	for (;;) {
		size_t la = strspn(a, "0123456789"), lb = strspn(b, "0123456789");
		if (!la || !lb)
			return 0;
		while (la > 1 && *a == '0')
			a++, la--;
		while (lb > 1 && *b == '0')
			b++, lb--;
		if (la != lb || memcmp(a, b, la))
			return 1;
		a += la;
		b += lb;
		if (*a != '.' || *b != '.' || (a[1] < '0' || a[1] > '9') ||
		    (b[1] < '0' || b[1] > '9'))
			return 0;
		a++;
		b++;
	}
}

int libs_is_cuda_name(const char *base)
{
	return nvlibs_is_nvidia(base);
}

static int hex8(const char *s, size_t n)
{
	size_t i;

	if (n != 8)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

int libs_copy_matches(const char *soname, const char *file)
{
	const char *so = strstr(soname, ".so"), *tail;
	size_t n = strlen(soname), stem;

	if (!so || !file)
		return 0;
	if (!strcmp(file, soname))
		return 1;
	if (!strncmp(file, soname, n) && file[n] == '.' && file[n + 1] >= '0' && file[n + 1] <= '9')
		return 1;
	/* vendored: stem, '.' or '-', 8 hex digits, then the soname's ".so..." */
	stem = (size_t)(so - soname);
	if (strncmp(file, soname, stem) || (file[stem] != '.' && file[stem] != '-'))
		return 0;
	tail = strstr(file + stem + 1, ".so");
	return tail && hex8(file + stem + 1, (size_t)(tail - (file + stem + 1))) &&
	       !strcmp(tail, so);
}

int libs_glob(const char *pat, const char *name)
{
	if (!strcmp(pat, "[0-9]"))
		return name[0] >= '0' && name[0] <= '9' && name[1] == '\0';
	if (*pat == '*') {
		for (;; name++) {
			if (libs_glob(pat + 1, name))
				return 1;
			if (!*name)
				return 0;
		}
	}
	if (!*pat)
		return !*name;
	return *pat == *name && libs_glob(pat + 1, name + 1);
}

static size_t trimmed(const char *s, size_t n)
{
	while (n > 1 && s[n - 1] == '/')
		n--;
	return n;
}

size_t libs_ldpath_without(const char *value, const char *const *drop, size_t n, char *out,
			   size_t cap)
{
	const char *p = value ? value : "";
	size_t len = 0, i;

	if (cap)
		out[0] = '\0';
	for (;;) {
		size_t el = strcspn(p, ":"), t = trimmed(p, el);
		int skip = 0;
		for (i = 0; i < n && el; i++)
			skip |= drop[i] && strlen(drop[i]) == t && !strncmp(drop[i], p, t);
		if (!skip && el && len + el + 2 < cap) {
			if (len)
				out[len++] = ':';
			memcpy(out + len, p, el);
			len += el;
			out[len] = '\0';
		}
		if (!p[el])
			break;
		p += el + 1;
	}
	return len;
}

void libs_dist_name(const char *file, char *out, size_t cap)
{
	size_t i, n = strcspn(file, ".");

	if (!cap)
		return;
	if (n >= cap)
		n = cap - 1;
	for (i = 0; i < n; i++) {
		char c = file[i];
		out[i] = c == '_' ? '-' : (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	out[n] = '\0';
}
