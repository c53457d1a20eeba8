/* osrel: see osrel.h. The value grammar follows os-release(5): "Variable
 * assignment values must be enclosed in double or single quotes if they
 * include spaces, semicolons or other special characters ... Shell special
 * characters ("$", quotes, backslash, backtick) must be escaped with
 * backslashes, following shell style." */
#include "format/osrel.h"

#include <string.h>

#include "core/err.h"
#include "core/span.h"

/* Decode the value in [p, e) (one line) into out. Returns the decoded length,
 * or -1 when the line is malformed or the value does not fit. */
static long decode(const uint8_t *p, const uint8_t *e, char *out, size_t cap)
{
	size_t k = 0;
	uint8_t q = 0; /* the open quote, 0 outside quotes */

	while (p < e) {
		uint8_t c = *p++;
		if (!q && (c == ' ' || c == '\t'))
			break; /* unquoted blank ends the word; the rest is ignored */
		if (!q && (c == '"' || c == '\'')) {
			q = c;
			continue;
		}
		if (q && c == q) {
			q = 0;
			continue;
		}
		if (c == '\\' && q != '\'') {
			if (p == e)
				return -1;
			c = *p++;
			if (q == '"' && c && !strchr("$\"\\`", c)) {
				if (k + 1 >= cap)
					return -1;
				out[k++] = '\\'; /* inside "...", other escapes stay literal */
			}
		}
		if (c == '\0')
			return -1;
		if (k + 1 >= cap)
			return -1;
		out[k++] = (char)c;
	}
	if (q)
		return -1;
	out[k] = '\0';
	return (long)k;
}

int osrel_get(const uint8_t *p, size_t n, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key), off = 0;
	struct cd_span l;
	int found = 0, toolong = 0;
	char tmp[1024];

	if (!cap || n > OSREL_MAX_BYTES)
		return CD_ENOENT;
	while (span_line(p, n, &off, 1, &l)) {
		const uint8_t *line = l.p, *e = l.p + l.n;
		long got;

		while (line < e && (*line == ' ' || *line == '\t'))
			line++;
		if ((size_t)(e - line) <= klen || memcmp(line, key, klen) || line[klen] != '=')
			continue;
		got = decode(line + klen + 1, e, tmp, sizeof(tmp));
		if (got < 0)
			continue;
		if ((size_t)got >= cap) {
			found = 0; /* this later assignment wins, and it does not fit */
			toolong = 1;
			continue;
		}
		memcpy(out, tmp, (size_t)got + 1);
		found = 1;
		toolong = 0;
	}
	if (found)
		return 0;
	return toolong ? CD_ERANGE : CD_ENOENT;
}
