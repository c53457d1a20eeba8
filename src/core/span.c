/* span: see span.h. */
#include "core/span.h"

#include <string.h>

#include "core/err.h"

int span_u8(struct cd_span s, uint64_t off, uint8_t *out)
{
	if (!span_ok(s.n, off, 1))
		return CD_ERANGE;
	*out = s.p[off];
	return 0;
}

static uint64_t load(const uint8_t *p, unsigned size, int big_endian)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < size; i++) {
		unsigned k = big_endian ? i : size - 1 - i;
		v = (v << 8) | p[k];
	}
	return v;
}

int span_u16(struct cd_span s, uint64_t off, int big_endian, uint16_t *out)
{
	if (!span_ok(s.n, off, 2))
		return CD_ERANGE;
	*out = (uint16_t)load(s.p + off, 2, big_endian);
	return 0;
}

int span_u32(struct cd_span s, uint64_t off, int big_endian, uint32_t *out)
{
	if (!span_ok(s.n, off, 4))
		return CD_ERANGE;
	*out = (uint32_t)load(s.p + off, 4, big_endian);
	return 0;
}

int span_u64(struct cd_span s, uint64_t off, int big_endian, uint64_t *out)
{
	if (!span_ok(s.n, off, 8))
		return CD_ERANGE;
	*out = load(s.p + off, 8, big_endian);
	return 0;
}

int span_sub(struct cd_span s, uint64_t off, uint64_t size, struct cd_span *out)
{
	if (!span_ok(s.n, off, size))
		return CD_ERANGE;
	out->p = s.p + off;
	out->n = (size_t)size;
	return 0;
}

int span_cstr(struct cd_span s, uint64_t off, const char **out, size_t *len)
{
	const uint8_t *nul;

	if (off >= s.n)
		return CD_ERANGE;
	nul = memchr(s.p + off, 0, s.n - (size_t)off);
	if (!nul)
		return CD_ERANGE;
	*out = (const char *)(s.p + off);
	if (len)
		*len = (size_t)(nul - (s.p + off));
	return 0;
}

int span_line(const uint8_t *p, size_t n, size_t *pos, int crlf, struct cd_span *line)
{
	const uint8_t *s, *nl;
	size_t len;

	if (*pos >= n)
		return 0;
	s = p + *pos;
	nl = memchr(s, '\n', n - *pos);
	len = nl ? (size_t)(nl - s) : n - *pos;
	*pos += len + (nl ? 1 : 0);
	if (crlf && len && s[len - 1] == '\r')
		len--;
	line->p = s;
	line->n = len;
	return nl ? 1 : 2;
}

uint64_t span_uint(struct cd_span s, uint64_t off, unsigned size, int big_endian)
{
	if (size < 1 || size > 8 || !span_ok(s.n, off, size))
		return 0;
	return load(s.p + off, size, big_endian);
}
