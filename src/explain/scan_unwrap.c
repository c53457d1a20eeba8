/* scan_unwrap: a log pasted in another form, read as the lines it was: a
 * JSON string or a Python repr (the log's line breaks as literal "\n", or
 * "\\n" when escaped twice; its quotes as \" and ANSI codes as \u001b) is
 * unescaped line by line; a markdown quote ("> " before every line) or a
 * line-number gutter ("  12 | ", "12\t") is taken off every line when the
 * first lines of the input have one. In place: the text only shrinks, in
 * one pass, with no copy of the log. */
#include <ctype.h>
#include <string.h>

#include "explain/scan_int.h"

#define XS_PREFIX_LINES 64 /* lines the prefix of an input is judged on */

/* An escaped line break that ends a line of text: the next byte starts a
 * line (blank, indentation, a capital, a digit, a bracket, a quote, another
 * escape) or the string ends. A Windows path ("C:\dir\nvcc") has a lower-
 * case letter after its "\n". */
static int strong_after(const uint8_t *p, size_t i, size_t n)
{
	unsigned char c;

	if (i >= n)
		return 1;
	c = p[i];
	return c == ' ' || c == '\t' || c == '\\' || c == '"' || c == '\'' || isupper(c) ||
	       isdigit(c) || strchr("[(<-=*#>|", c) != NULL;
}

/* 0: not a paste; 1: escaped once; 2: escaped twice. */
static int paste_level(const uint8_t *p, size_t n)
{
	size_t i, one = 0, two = 0;

	for (i = 0; i + 1 < n; i++) {
		size_t bs = 0;
		if (p[i] != '\\')
			continue;
		while (i + bs < n && p[i + bs] == '\\')
			bs++;
		if (i + bs < n && p[i + bs] == 'n' && strong_after(p, i + bs + 1, n)) {
			if (bs % 2)
				one++;
			else if (bs == 2)
				two++;
		}
		i += bs - 1;
	}
	if (two >= 2 && two >= one)
		return 2;
	return one >= 2 ? 1 : 0;
}

static int hexval(unsigned char c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* One level of JSON / Python escapes, p[0, n) into o (o <= p); returns the
 * length written. An escape it does not know stays as it is. */
static size_t unescape(uint8_t *o, const uint8_t *p, size_t n)
{
	size_t i = 0, w = 0;

	while (i < n) {
		unsigned char c = i + 1 < n && p[i] == '\\' ? p[i + 1] : 0;
		const char *map = strchr("n\nr\rt\t\"\"''\\\\//", c ? c : 1);
		if (c && map && (map - "n\nr\rt\t\"\"''\\\\//") % 2 == 0) {
			o[w++] = (uint8_t)map[1];
			i += 2;
		} else if ((c == 'u' && i + 5 < n && p[i + 2] == '0' && p[i + 3] == '0' &&
			    hexval(p[i + 4]) >= 0 && hexval(p[i + 5]) >= 0) ||
			   (c == 'x' && i + 3 < n && hexval(p[i + 2]) >= 0 &&
			    hexval(p[i + 3]) >= 0)) {
			size_t h = c == 'u' ? i + 4 : i + 2; /* \u00XX, \xXX: one byte */
			o[w++] = (uint8_t)(hexval(p[h]) << 4 | hexval(p[h + 1]));
			i = h + 2;
		} else if (c == '0' && i + 3 < n && p[i + 2] == '3' && p[i + 3] == '3') {
			o[w++] = 0x1b; /* \033 */
			i += 4;
		} else {
			o[w++] = p[i++];
		}
	}
	return w;
}

/* The next "\\n" in p[r, n): memchr finds the backslashes (at memory
 * speed; memmem of two bytes is several times slower on a log without
 * any). */
static const uint8_t *find_escaped_break(const uint8_t *p, size_t r, size_t n)
{
	while (r + 1 < n) {
		const uint8_t *q = memchr(p + r, '\\', n - r - 1);
		if (!q)
			return NULL;
		if (q[1] == 'n')
			return q;
		r = (size_t)(q - p) + 1;
	}
	return NULL;
}

size_t xs_unwrap_escapes(uint8_t *p, size_t n, size_t from)
{
	size_t r = from, w = from;

	while (r < n) {
		const uint8_t *q = find_escaped_break(p, r, n);
		size_t ls, le;
		int level;
		if (!q) {
			memmove(p + w, p + r, n - r);
			w += n - r;
			break;
		}
		for (ls = (size_t)(q - p); ls > r && !xs_is_break(p[ls - 1]);)
			ls--;
		le = (size_t)(q - p);
		while (le < n && !xs_is_break(p[le]))
			le++;
		memmove(p + w, p + r, ls - r);
		w += ls - r;
		level = paste_level(p + ls, le - ls);
		if (!level) {
			memmove(p + w, p + ls, le - ls);
			w += le - ls;
		} else {
			size_t k = unescape(p + w, p + ls, le - ls);
			if (level == 2)
				k = unescape(p + w, p + w, k);
			w += k;
		}
		r = le;
	}
	return w;
}

/* The length of a line's quote or gutter prefix, 0 if it has none. */
static size_t prefix_len(const uint8_t *p, size_t n, int kind)
{
	size_t i = 0, d;

	while (i < n && i < 4 && p[i] == ' ')
		i++;
	if (kind == XS_PREFIX_QUOTE) {
		if (i >= n || p[i] != '>')
			return 0;
		while (i < n && p[i] == '>') { /* "> > " nested; the indentation after stays */
			i++;
			if (i < n && p[i] == ' ')
				i++;
		}
		return i;
	}
	while (i < n && p[i] == ' ')
		i++;
	for (d = i; i < n && isdigit(p[i]) && i - d < 7; i++)
		;
	if (i == d || i >= n)
		return 0;
	if (p[i] == '\t')
		return i + 1;
	while (i < n && p[i] == ' ')
		i++;
	if (i + 3 <= n && !memcmp(p + i, "\xe2\x94\x82", 3)) /* "│" */
		i += 3;
	else if (i < n && (p[i] == '|' || p[i] == ':'))
		i++;
	else
		return 0;
	return i < n && p[i] == ' ' ? i + 1 : i;
}

int xs_prefix_kind(const uint8_t *p, size_t n)
{
	size_t pos = 0, lines = 0, quote = 0, gutter = 0;

	while (pos < n && lines < XS_PREFIX_LINES) {
		const uint8_t *e = memchr(p + pos, '\n', n - pos);
		size_t len = e ? (size_t)(e - (p + pos)) : n - pos;
		if (len) {
			lines++;
			quote += prefix_len(p + pos, len, XS_PREFIX_QUOTE) > 0;
			gutter += prefix_len(p + pos, len, XS_PREFIX_GUTTER) > 0;
		}
		pos += len + 1;
	}
	if (lines < 2)
		return XS_PREFIX_NONE;
	if (quote * 10 >= lines * 9)
		return XS_PREFIX_QUOTE;
	return gutter * 10 >= lines * 9 ? XS_PREFIX_GUTTER : XS_PREFIX_NONE;
}

size_t xs_unwrap_prefix(uint8_t *p, size_t n, size_t from, int kind)
{
	size_t r = from, w = from;

	while (r < n) {
		const uint8_t *e = memchr(p + r, '\n', n - r);
		size_t len = e ? (size_t)(e - (p + r)) + 1 : n - r;
		size_t k = (r == 0 || p[r - 1] == '\n') ? prefix_len(p + r, len, kind) : 0;
		memmove(p + w, p + r + k, len - k);
		w += len - k;
		r += len;
	}
	return w;
}
