/* scan_text: the text of a line as the scanner reads it: ANSI escapes
 * removed, line breaks, the rank tags of launchers, the source lines of a
 * Python traceback (which quote error text without being errors), and the
 * copies kept of a line. */
#include <string.h>

#include "explain/scan_int.h"

/* ECMA-48: CSI is ESC '[' params (0x30-0x3F)* intermediates (0x20-0x2F)*
 * final (0x40-0x7E); OSC is ESC ']' ... BEL or ESC '\'; other escapes are
 * ESC intermediates* final. A sequence never swallows a line break. */
static size_t esc_len(const uint8_t *p, size_t n)
{
	size_t i = 1;

	if (n < 2)
		return 1;
	if (p[1] == '[') {
		for (i = 2; i < n && p[i] >= 0x30 && p[i] <= 0x3F; i++)
			;
		for (; i < n && p[i] >= 0x20 && p[i] <= 0x2F; i++)
			;
		return i < n && p[i] >= 0x40 && p[i] <= 0x7E ? i + 1 : i;
	}
	if (p[1] == ']') {
		for (i = 2; i < n && i < 512 && p[i] != '\n'; i++) {
			if (p[i] == 0x07)
				return i + 1;
			if (p[i] == 0x1b && i + 1 < n && p[i + 1] == '\\')
				return i + 2;
		}
		return 2;
	}
	for (; i < n && p[i] >= 0x20 && p[i] <= 0x2F; i++)
		;
	return i < n && p[i] >= 0x30 && p[i] <= 0x7E ? i + 1 : i;
}

size_t xs_strip_ansi(uint8_t *p, size_t n)
{
	size_t r = 0, w = 0;

	while (r < n) {
		const uint8_t *e = memchr(p + r, 0x1b, n - r);
		size_t k = e ? (size_t)(e - (p + r)) : n - r;
		memmove(p + w, p + r, k);
		w += k;
		r += k;
		if (r < n)
			r += esc_len(p + r, n - r);
	}
	return w;
}
/* "[rank3]:", "[default3]:" (torchrun), "[1,3]<stderr>:" (mpirun), possibly
 * after a host name; -1 if none. */
int xs_parse_rank(const uint8_t *p, size_t n)
{
	static const char *const tags[] = {"[rank", "[default", NULL};
	size_t lim = n < 64 ? n : 64, i, k;

	for (i = 0; i < lim; i++) {
		if (p[i] != '[')
			continue;
		for (k = 0; tags[k]; k++) {
			size_t t = strlen(tags[k]), j = i + t;
			unsigned v = 0;
			if (j >= n || memcmp(p + i, tags[k], t))
				continue;
			if (j < n && p[j] == '-') /* "[rank-3]" is not a rank tag */
				continue;
			while (j < n && p[j] >= '0' && p[j] <= '9' && v < XS_RANKS)
				v = v * 10 + (unsigned)(p[j++] - '0');
			if (j < n && p[j] == ']' && j > i + t)
				return v < XS_RANKS ? (int)v : -1;
		}
		if (i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') { /* [job,rank] */
			size_t j = i + 1;
			unsigned v = 0;
			while (j < n && p[j] >= '0' && p[j] <= '9')
				j++;
			if (j >= n || p[j] != ',')
				continue;
			for (j++; j < n && p[j] >= '0' && p[j] <= '9' && v < XS_RANKS; j++)
				v = v * 10 + (unsigned)(p[j] - '0');
			if (j + 1 < n && p[j] == ']' && p[j + 1] == '<')
				return v < XS_RANKS ? (int)v : -1;
		}
	}
	return -1;
}

/* A Python traceback frame line, `  File "x.py", line 3, in f`, after any
 * prefix (a rank tag, a logger's timestamp): the line after it is source
 * code, which quotes error text without being an error. *col is where the
 * blanks before "File" start, *blanks how many there are. Frames of frozen
 * or generated code (File "<frozen importlib._bootstrap>") show no source. */
static int is_file_line(const uint8_t *p, size_t n, size_t *col, size_t *blanks)
{
	const uint8_t *q = n >= 14 ? memmem(p, n < 256 ? n : 256, "File \"", 6) : NULL;
	size_t at, b = 0;

	if (!q)
		return 0;
	at = (size_t)(q - p);
	if (at + 6 >= n || p[at + 6] == '<' ||
	    !memmem(q, n - at < 4096 ? n - at : 4096, "\", line ", 8))
		return 0;
	while (b < at && (p[at - b - 1] == ' ' || p[at - b - 1] == '\t'))
		b++;
	if (!b && at) /* "xFile": not a frame */
		return 0;
	*col = at - b;
	*blanks = b;
	return 1;
}

/* Source code under a frame is indented deeper than the frame at the same
 * column; the exception that ends a traceback is not. */
static int is_code_line(const uint8_t *p, size_t n, size_t col, size_t blanks)
{
	size_t j;

	if (n <= col + blanks)
		return 0;
	for (j = col; j <= col + blanks; j++)
		if (p[j] != ' ' && p[j] != '\t')
			return 0;
	return 1;
}

/* A line of a rich (boxed) traceback: "│ ❱ 424 │ raise ...". */
static int is_box_line(const uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n && i < 64 && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i + 3 <= n && p[i] == 0xe2 && p[i + 1] == 0x94 && p[i + 2] == 0x82;
}

/* Is the segment starting at s the source line of a traceback frame? */
int xs_in_code(const struct xs_scanner *sc, size_t s, size_t se)
{
	const uint8_t *c = sc->c;
	size_t e = s, b, col, blanks;

	if (is_box_line(c + s, se - s))
		return 1;
	if (s == 0)
		return sc->prev_file && is_code_line(c, se, sc->prev_col, sc->prev_blanks);
	if (c[e - 1] == '\n') {
		e--;
		if (e && c[e - 1] == '\r')
			e--;
	} else {
		e--;
	}
	b = e;
	while (b > 0 && !xs_is_break(c[b - 1]) && e - b < 4096)
		b--;
	return is_file_line(c + b, e - b, &col, &blanks) &&
	       is_code_line(c + s, se - s, col, blanks);
}

/* Copy with control bytes made visible as '?' (a tab becomes a space). */
char *xs_clean_copy(struct cd_arena *a, const uint8_t *p, size_t n)
{
	char *s = arena_alloc(a, n + 1);
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++)
		s[i] = p[i] == '\t' ? ' ' : (p[i] < 0x20 || p[i] == 0x7f) ? '?' : (char)p[i];
	s[n] = '\0';
	return s;
}

/* Is the last line of buf[0, m) (which ends at a break) a traceback frame? */
int xs_tail_is_file(const uint8_t *p, size_t m, size_t *col, size_t *blanks)
{
	size_t e = m, b;

	while (e > 0 && xs_is_break(p[e - 1]) && m - e < 2)
		e--;
	b = e;
	while (b > 0 && !xs_is_break(p[b - 1]) && e - b < 4096)
		b--;
	return is_file_line(p + b, e - b, col, blanks);
}
