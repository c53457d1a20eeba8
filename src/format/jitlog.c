/* jitlog: failed-build logs (see jitparse.h). The lines recognised are those
 * gcc, clang, cudafe++, nvcc and GNU ld print for the failures a JIT build
 * hits most. */
#include <ctype.h>
#include <string.h>

#include "core/err.h"
#include "core/span.h"
#include "core/str.h"
#include "format/jitparse.h"

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
	struct cd_span ln;

	while (count < max && span_line(p, n, &pos, 0, &ln)) {
		const char *l = (const char *)ln.p;
		size_t len = ln.n;
		struct jp_diag d;
		int dup = 0;

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
