/* jscan: see jscan.h. Grammar from RFC 8259; the scanner reads only what the
 * caller asks for, so a schema mismatch is reported where it happens. */
#include "format/jscan.h"

#include <stdio.h>
#include <string.h>

void jscan_init(struct jscan *j, const uint8_t *p, size_t n, struct cd_err *err)
{
	j->p = p;
	j->n = n;
	j->pos = 0;
	j->err = err;
}

static int fail(struct jscan *j, const char *what)
{
	return err_set(j->err, CD_EFORMAT, "JSON: %s at byte %zu", what, j->pos);
}

/* Length of the UTF-8 sequence at p (1-4), or 0 when it is not valid. */
static size_t utf8_len(const uint8_t *p, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2, cp = p[0] & 0x1Fu;
	else if ((p[0] & 0xF0) == 0xE0)
		len = 3, cp = p[0] & 0x0Fu;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		len = 4, cp = p[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3Fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return len;
}

int jscan_utf8_ok(const uint8_t *p, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		k = utf8_len(p + i, n - i);
		if (!k)
			return CD_EFORMAT;
		i += k;
	}
	return 0;
}

int jscan_peek(struct jscan *j)
{
	while (j->pos < j->n) {
		uint8_t c = j->p[j->pos];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return c;
		j->pos++;
	}
	return -1;
}

int jscan_expect(struct jscan *j, char c)
{
	char what[24];

	if (jscan_peek(j) != (unsigned char)c) {
		snprintf(what, sizeof(what), "expected '%c'", c);
		return fail(j, what);
	}
	j->pos++;
	return 0;
}

int jscan_accept(struct jscan *j, char c)
{
	if (jscan_peek(j) != (unsigned char)c)
		return 0;
	j->pos++;
	return 1;
}

static int hex4(const uint8_t *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		uint8_t c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xC0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xE0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* An escape after the backslash at p[*i]; appends to o, advances *i. */
static int unescape(const uint8_t *p, size_t n, size_t *i, char *o, size_t *olen)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	uint32_t cp, lo;
	const char *k;

	if (*i + 1 >= n)
		return -1;
	k = memchr(from, p[*i + 1], sizeof(from) - 1);
	if (k && p[*i + 1]) {
		o[(*olen)++] = to[k - from];
		*i += 2;
		return 0;
	}
	if (p[*i + 1] != 'u' || *i + 6 > n || hex4(p + *i + 2, &cp))
		return -1;
	*i += 6;
	if (cp >= 0xD800 && cp <= 0xDBFF) { /* a surrogate pair */
		if (*i + 6 > n || p[*i] != '\\' || p[*i + 1] != 'u' || hex4(p + *i + 2, &lo) ||
		    lo < 0xDC00 || lo > 0xDFFF)
			return -1;
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		*i += 6;
	} else if (cp >= 0xDC00 && cp <= 0xDFFF) {
		return -1;
	}
	*olen += put_utf8(o + *olen, cp);
	return 0;
}

int jscan_string(struct jscan *j, struct cd_arena *a, const char **out, size_t *len)
{
	size_t start, end, i, olen = 0;
	char *o;

	if (jscan_expect(j, '"'))
		return CD_EFORMAT;
	start = j->pos;
	for (end = start; end < j->n && j->p[end] != '"'; end++) {
		if (j->p[end] == '\\')
			end++; /* the escaped byte cannot close the string */
		else if (j->p[end] < 0x20)
			return fail(j, "control character in a string");
	}
	if (end >= j->n)
		return fail(j, "unterminated string");
	/* Unescaped output is never longer than the escaped input. */
	o = arena_alloc(a, end - start + 1);
	if (!o)
		return err_set(j->err, CD_ENOMEM, "JSON: out of memory for a string");
	for (i = start; i < end;) {
		if (j->p[i] != '\\') {
			o[olen++] = (char)j->p[i++];
			continue;
		}
		if (unescape(j->p, end, &i, o, &olen)) {
			j->pos = i;
			return fail(j, "bad escape in a string");
		}
	}
	o[olen] = '\0';
	j->pos = end + 1;
	*out = o;
	if (len)
		*len = olen;
	return 0;
}

int jscan_string_ref(struct jscan *j, struct cd_arena *a, const char **out, size_t *len)
{
	size_t at, end;

	if (jscan_peek(j) != '"')
		return jscan_expect(j, '"');
	at = j->pos;
	for (end = at + 1; end < j->n && j->p[end] != '"' && j->p[end] != '\\'; end++)
		if (j->p[end] < 0x20)
			break; /* jscan_string says what is wrong */
	if (end >= j->n || j->p[end] != '"') {
		j->pos = at;
		return jscan_string(j, a, out, len);
	}
	*out = (const char *)j->p + at + 1;
	*len = end - at - 1;
	j->pos = end + 1;
	return 0;
}

int jscan_u64(struct jscan *j, uint64_t *out)
{
	uint64_t v = 0;
	size_t start;
	int c = jscan_peek(j);

	if (c < '0' || c > '9')
		return fail(j, "expected a non-negative integer");
	start = j->pos;
	while (j->pos < j->n && j->p[j->pos] >= '0' && j->p[j->pos] <= '9') {
		unsigned d = (unsigned)(j->p[j->pos] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return fail(j, "integer larger than 64 bits");
		v = v * 10 + d;
		j->pos++;
	}
	if (j->p[start] == '0' && j->pos - start > 1)
		return fail(j, "integer with a leading zero");
	if (j->pos < j->n && (j->p[j->pos] == '.' || j->p[j->pos] == 'e' || j->p[j->pos] == 'E'))
		return fail(j, "expected an integer, found a fraction or exponent");
	*out = v;
	return 0;
}

static int digits(struct jscan *j)
{
	size_t start = j->pos;

	while (j->pos < j->n && j->p[j->pos] >= '0' && j->p[j->pos] <= '9')
		j->pos++;
	return j->pos > start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int skip_number(struct jscan *j)
{
	if (j->p[j->pos] == '-')
		j->pos++;
	if (j->pos < j->n && j->p[j->pos] == '0')
		j->pos++;
	else if (!digits(j))
		return fail(j, "bad number");
	if (j->pos < j->n && j->p[j->pos] == '.' && (j->pos++, !digits(j)))
		return fail(j, "bad number");
	if (j->pos < j->n && (j->p[j->pos] == 'e' || j->p[j->pos] == 'E')) {
		j->pos++;
		if (j->pos < j->n && (j->p[j->pos] == '+' || j->p[j->pos] == '-'))
			j->pos++;
		if (!digits(j))
			return fail(j, "bad number");
	}
	return 0;
}

/* Skip a scalar (string, number, literal) starting at the current byte. */
static int skip_scalar(struct jscan *j, int c)
{
	static const char *const lits[] = {"true", "false", "null"};
	size_t i;

	if (c == '"') {
		for (j->pos++; j->pos < j->n && j->p[j->pos] != '"'; j->pos++) {
			if (j->p[j->pos] < 0x20)
				return fail(j, "control character in a string");
			if (j->p[j->pos] == '\\')
				j->pos++;
		}
		if (j->pos >= j->n)
			return fail(j, "unterminated string");
		j->pos++;
		return 0;
	}
	for (i = 0; i < 3; i++) {
		size_t l = strlen(lits[i]);
		if (j->n - j->pos >= l && !memcmp(j->p + j->pos, lits[i], l)) {
			j->pos += l;
			return 0;
		}
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return skip_number(j);
	return fail(j, "unexpected character");
}

/* Validate and skip one value without recursion: a stack of the open
 * containers, and whether an object key must come next. */
int jscan_skip(struct jscan *j)
{
	char stack[JSCAN_DEPTH_MAX];
	int depth = 0, c, want_key = 0;

	for (;;) {
		if (want_key) {
			if (jscan_peek(j) != '"' || skip_scalar(j, '"') || jscan_expect(j, ':'))
				return fail(j, "expected a \"key\": in an object");
			want_key = 0;
		}
		c = jscan_peek(j);
		if (c < 0)
			return fail(j, "unexpected end of input");
		if (c == '{' || c == '[') {
			if (depth == JSCAN_DEPTH_MAX)
				return fail(j, "nesting deeper than 64 levels");
			stack[depth++] = (char)c;
			j->pos++;
			if (!jscan_accept(j, c == '{' ? '}' : ']')) {
				want_key = c == '{';
				continue; /* the first member follows */
			}
			depth--;
		} else if (skip_scalar(j, c)) {
			return CD_EFORMAT;
		}
		for (;;) { /* a value ended: a separator, or close containers */
			if (!depth)
				return 0;
			if (jscan_accept(j, ',')) {
				want_key = stack[depth - 1] == '{';
				break;
			}
			if (!jscan_accept(j, stack[depth - 1] == '{' ? '}' : ']'))
				return fail(j, "expected ',' or a closing bracket");
			depth--;
		}
	}
}

int jscan_end(struct jscan *j)
{
	return jscan_peek(j) < 0 ? 0 : fail(j, "trailing characters after the value");
}
