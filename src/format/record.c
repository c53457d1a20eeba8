/* record: see record.h. A field ends at ',' or at the end of the line
 * outside quotes; a quoted field may hold ',' and (doubled) '"'. Line ends
 * are "\n" or "\r\n" (Python's csv writer uses "\r\n"; pip writes "\n"). */
#include "format/record.h"

/* The first field of the row at *off into out; *off moves past the row.
 * 1 when a path was read, 0 for an empty or unusable row. */
static int first_field(const uint8_t *p, size_t n, size_t *off, char *out, size_t *len)
{
	size_t i = *off, k = 0;
	int quoted = 0, bad = 0, done = 0;

	if (i < n && p[i] == '"') {
		quoted = 1;
		i++;
	}
	for (; i < n; i++) {
		uint8_t c = p[i];
		if (quoted) {
			if (c == '"' && i + 1 < n && p[i + 1] == '"') {
				i++;
			} else if (c == '"') {
				quoted = 0;
				continue;
			}
		} else if (c == ',' || c == '\n' || c == '\r') {
			break;
		}
		if (done)
			continue;
		if (k + 1 >= RECORD_PATH_MAX || c == 0)
			bad = 1, done = 1;
		else
			out[k++] = (char)c;
	}
	/* the rest of the row */
	while (i < n && p[i] != '\n')
		i++;
	*off = i < n ? i + 1 : n;
	out[k] = '\0';
	*len = k;
	return !bad && !quoted && k > 0;
}

int record_each(const uint8_t *p, size_t n, record_fn fn, void *ctx, size_t *skipped)
{
	char path[RECORD_PATH_MAX];
	size_t off = 0, len, rows = 0;
	int rc;

	if (skipped)
		*skipped = 0;
	while (off < n && rows++ < RECORD_ROWS_MAX) {
		size_t start = off;
		if (!first_field(p, n, &off, path, &len)) {
			if (skipped &&
			    !(off - start <= 2 && (p[start] == '\n' || p[start] == '\r')))
				++*skipped;
			continue;
		}
		if ((rc = fn(path, len, ctx)) != 0)
			return rc;
	}
	return 0;
}
