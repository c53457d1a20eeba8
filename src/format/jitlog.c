/* jitlog: TORCH_CUDA_ARCH_LIST and failed-build logs (see jitparse.h).
 * The arch list follows torch 2.11 torch/utils/cpp_extension.py
 * _get_cuda_arch_flags: ' ' -> ';', named architectures replaced in table
 * order (combined names first), split on ';' (so an empty entry is an error,
 * as it is for torch), each entry checked against supported_arches.
 * Build-log lines recognised are those gcc, clang, cudafe++, nvcc and GNU ld
 * print for the failures a JIT build hits most. */
#include <ctype.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "format/jitparse.h"

/* torch 2.11 named_arches, in its order (combined names before single). */
static const char *const named[][2] = {
	{"Kepler+Tesla", "3.7"},     {"Kepler", "3.5+PTX"},
	{"Maxwell+Tegra", "5.3"},    {"Maxwell", "5.0;5.2+PTX"},
	{"Pascal", "6.0;6.1+PTX"},   {"Volta+Tegra", "7.2"},
	{"Volta", "7.0+PTX"},	     {"Turing", "7.5+PTX"},
	{"Ampere+Tegra", "8.7"},     {"Ampere", "8.0;8.6+PTX"},
	{"Ada", "8.9+PTX"},	     {"Hopper", "9.0+PTX"},
	{"Blackwell+Tegra", "11.0"}, {"Blackwell", "10.0;10.3;12.0;12.1+PTX"},
};

/* torch 2.11 supported_arches. */
static const char *const supported[] = {"3.5",	"3.7",	 "5.0",	 "5.2",	  "5.3",   "6.0",  "6.1",
					"6.2",	"7.0",	 "7.2",	 "7.5",	  "8.0",   "8.6",  "8.7",
					"8.9",	"9.0",	 "9.0a", "10.0",  "10.0a", "11.0", "11.0a",
					"10.3", "10.3a", "12.0", "12.0a", "12.1",  "12.1a"};

#define ARCH_BUF 4096

/* Python's str.replace(from, to) of the whole buffer; CD_ERANGE on overflow. */
static int replace_all(char *buf, const char *from, const char *to)
{
	char tmp[ARCH_BUF];
	size_t fl = strlen(from), tl = strlen(to), o = 0;
	const char *s = buf, *hit;

	while ((hit = strstr(s, from))) {
		size_t pre = (size_t)(hit - s);
		if (o + pre + tl >= sizeof(tmp))
			return CD_ERANGE;
		memcpy(tmp + o, s, pre);
		memcpy(tmp + o + pre, to, tl);
		o += pre + tl;
		s = hit + fl;
	}
	if (o + strlen(s) >= sizeof(tmp))
		return CD_ERANGE;
	memcpy(tmp + o, s, strlen(s) + 1);
	memcpy(buf, tmp, strlen(tmp) + 1);
	return 0;
}

static void parse_entry(const char *e, struct jp_arch *a)
{
	size_t k, len = strlen(e);
	const char *d;

	memset(a, 0, sizeof(*a));
	str_copy(a->text, sizeof(a->text), e);
	a->major = a->minor = -1;
	if (len >= 4 && !strcmp(e + len - 4, "+PTX")) {
		a->ptx = 1;
		len -= 4;
	}
	for (k = 0; k < sizeof(supported) / sizeof(supported[0]); k++)
		if (strlen(supported[k]) == len && !strncmp(e, supported[k], len))
			a->valid = 1;
	d = memchr(e, '.', len);
	if (!d || d == e || (size_t)(d - e) > 2 || !isdigit((unsigned char)d[1]))
		return;
	for (k = 0; e + k < d; k++)
		if (!isdigit((unsigned char)e[k]))
			return;
	a->major = (int)(e[0] - '0');
	if (d - e == 2)
		a->major = a->major * 10 + (e[1] - '0');
	a->minor = d[1] - '0';
	a->arch_specific = (size_t)(d + 2 - e) < len && d[2] == 'a';
}

int jp_arch_list(const uint8_t *p, size_t n, struct jp_arch *out, size_t max, size_t *nout,
		 char *bad, size_t badcap)
{
	char buf[ARCH_BUF];
	char *s, *semi;
	size_t i, count = 0;
	int rc = 0;

	*nout = 0;
	if (badcap)
		bad[0] = '\0';
	if (n == 0)
		return 0;
	if (n >= 1024 || memchr(p, '\0', n))
		return CD_ERANGE;
	memcpy(buf, p, n);
	buf[n] = '\0';
	for (i = 0; i < n; i++)
		if (buf[i] == ' ')
			buf[i] = ';';
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (replace_all(buf, named[i][0], named[i][1]))
			return CD_ERANGE;
	for (s = buf;; s = semi + 1) {
		semi = strchr(s, ';');
		if (semi)
			*semi = '\0';
		if (count >= max || strlen(s) >= sizeof(out->text))
			return CD_ERANGE;
		parse_entry(s, &out[count]);
		if (!out[count].valid && rc == 0) {
			rc = CD_EFORMAT;
			str_copy(bad, badcap, s);
		}
		count++;
		*nout = count;
		if (!semi)
			break;
	}
	return rc;
}

/* ---- build logs -------------------------------------------------------- */

static void trim_copy(char *out, size_t cap, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	str_ncopy(out, cap, s, len);
}

/* Pointer just past the first `needle` in l[0..len), or NULL. */
static const char *after(const char *l, size_t len, const char *needle)
{
	size_t m = strlen(needle), i;

	for (i = 0; m && i + m <= len; i++)
		if (!memcmp(l + i, needle, m))
			return l + i + m;
	return NULL;
}

static int contains(const char *l, size_t len, const char *needle)
{
	return after(l, len, needle) != NULL;
}

/* The text between `open` and the next `close` after it, within the line. */
static int between(const char *l, size_t len, const char *open, const char *close, char *out,
		   size_t cap)
{
	const char *a = after(l, len, open), *b;

	if (!a)
		return 0;
	b = after(a, (size_t)(l + len - a), close);
	if (!b || b - strlen(close) == a)
		return 0;
	trim_copy(out, cap, a, (size_t)(b - strlen(close) - a));
	return 1;
}

/* The library name after "cannot find -l". */
static int lib_name(const char *l, size_t len, char *out, size_t cap)
{
	const char *a = after(l, len, "cannot find -l"), *e;

	if (!a)
		return 0;
	for (e = a; e < l + len && (isalnum((unsigned char)*e) || (*e && strchr("_.+-", *e))); e++)
		;
	if (e == a)
		return 0;
	str_ncopy(out, cap, a, (size_t)(e - a));
	return 1;
}

/* Classify one line; 1 when it is a diagnostic. */
static int classify(const char *l, size_t len, struct jp_diag *d)
{
	memset(d, 0, sizeof(*d));
	if (contains(l, len, "No such file or directory") &&
	    between(l, len, "fatal error: ", ": No such file", d->subject, sizeof(d->subject)))
		d->kind = JP_D_HEADER;
	else if (between(l, len, "cannot open source file \"", "\"", d->subject,
			 sizeof(d->subject)))
		d->kind = JP_D_HEADER;
	else if (contains(l, len, "unsupported GNU version"))
		d->kind = JP_D_COMPILER, str_copy(d->subject, sizeof(d->subject), "gcc");
	else if (contains(l, len, "unsupported clang version"))
		d->kind = JP_D_COMPILER, str_copy(d->subject, sizeof(d->subject), "clang");
	else if (between(l, len, "Unsupported gpu architecture '", "'", d->subject,
			 sizeof(d->subject)) ||
		 between(l, len, "Value '", "' is not defined for option 'gpu-", d->subject,
			 sizeof(d->subject)))
		d->kind = JP_D_ARCH;
	else if (lib_name(l, len, d->subject, sizeof(d->subject)))
		d->kind = JP_D_LIBRARY;
	else if (contains(l, len, "command not found") || contains(l, len, "cannot execute"))
		d->kind = JP_D_NOT_FOUND;
	else if (contains(l, len, "error:") || contains(l, len, "error :") ||
		 contains(l, len, "nvcc fatal"))
		d->kind = JP_D_OTHER_ERROR;
	else
		return 0;
	trim_copy(d->line, sizeof(d->line), l, len);
	return 1;
}

size_t jp_build_log(const uint8_t *p, size_t n, struct jp_diag *out, size_t max)
{
	size_t pos = 0, count = 0, k, others = 0;

	while (pos < n && count < max) {
		const char *l = (const char *)p + pos;
		const uint8_t *nl = memchr(p + pos, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - (p + pos)) : n - pos;
		struct jp_diag d;
		int dup = 0;

		pos += len + (nl ? 1 : 0);
		if (!classify(l, len, &d))
			continue;
		if (d.kind == JP_D_OTHER_ERROR && ++others > 4)
			continue;
		for (k = 0; k < count; k++)
			dup |= out[k].kind == d.kind && d.kind != JP_D_OTHER_ERROR &&
			       !strcmp(out[k].subject, d.subject);
		if (!dup)
			out[count++] = d;
	}
	return count;
}
