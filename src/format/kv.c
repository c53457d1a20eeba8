/* kv: see kv.h. The format is ours (docs/driver.md, "Record protocol"); it is
 * line-based so a child killed mid-write loses at most its last line. */
#include "format/kv.h"

#include <string.h>

#include "core/err.h"
#include "core/span.h"

static int key_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

static int key_ok(const char *k)
{
	size_t i;

	for (i = 0; k[i]; i++)
		if (i + 1 >= KV_KEY_MAX || !key_char((unsigned char)k[i]))
			return 0;
	return i > 0;
}

size_t kv_encode(char *out, size_t cap, const char *key, const char *val)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, k = strlen(key);
	const unsigned char *v = (const unsigned char *)val;

	if (!key_ok(key) || cap < k + 3)
		return 0;
	memcpy(out, key, k);
	o = k;
	out[o++] = '=';
	for (; *v; v++) {
		/* room for the longest escape, the newline and the NUL */
		if (o + 4 + 2 > cap)
			return 0;
		if (*v == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
		} else if (*v == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else if (*v >= 0x20 && *v <= 0x7e) {
			out[o++] = (char)*v;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*v >> 4];
			out[o++] = hex[*v & 15];
		}
	}
	if (o + 2 > cap)
		return 0;
	out[o++] = '\n';
	out[o] = '\0';
	return o;
}

void kv_reader_init(struct kv_reader *r, const uint8_t *p, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->n = n;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode the escaped value line[0..n) into val; 0 or CD_EFORMAT. */
static int decode_value(const uint8_t *s, size_t n, char val[KV_VAL_MAX])
{
	size_t i = 0, o = 0;

	while (i < n) {
		uint8_t c = s[i];
		if (o + 1 >= KV_VAL_MAX)
			return CD_EFORMAT;
		if (c < 0x20 || c > 0x7e)
			return CD_EFORMAT;
		if (c != '\\') {
			val[o++] = (char)c;
			i++;
			continue;
		}
		if (!span_ok(n, i, 2))
			return CD_EFORMAT;
		if (s[i + 1] == '\\' || s[i + 1] == 'n') {
			val[o++] = s[i + 1] == 'n' ? '\n' : '\\';
			i += 2;
			continue;
		}
		if (s[i + 1] != 'x' || !span_ok(n, i, 4))
			return CD_EFORMAT;
		{
			int hi = hexval(s[i + 2]), lo = hexval(s[i + 3]);
			if (hi < 0 || lo < 0 || (hi | lo) == 0)
				return CD_EFORMAT; /* bad digit, or an embedded NUL */
			val[o++] = (char)(hi << 4 | lo);
		}
		i += 4;
	}
	val[o] = '\0';
	return 0;
}

static int decode_line(const uint8_t *s, size_t n, char key[KV_KEY_MAX], char val[KV_VAL_MAX])
{
	size_t k = 0;

	while (k < n && s[k] != '=') {
		if (k + 1 >= KV_KEY_MAX || !key_char(s[k]))
			return CD_EFORMAT;
		k++;
	}
	if (k == 0 || k == n)
		return CD_EFORMAT;
	memcpy(key, s, k);
	key[k] = '\0';
	return decode_value(s + k + 1, n - k - 1, val);
}

int kv_next(struct kv_reader *r, char key[KV_KEY_MAX], char val[KV_VAL_MAX])
{
	struct cd_span l;
	int rc;

	key[0] = val[0] = '\0';
	rc = span_line(r->p, r->n, &r->off, 0, &l);
	if (!rc)
		return 0;
	if (rc == 2) { /* an unterminated last line: the writer was cut off */
		r->bad++;
		return CD_EFORMAT;
	}
	rc = l.n > KV_LINE_MAX ? CD_EFORMAT : decode_line(l.p, l.n, key, val);
	if (rc) {
		key[0] = val[0] = '\0';
		r->bad++;
		return CD_EFORMAT;
	}
	r->records++;
	return 1;
}
