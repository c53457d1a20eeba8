/* span: bounds-checked reads from an untrusted byte buffer.
 * Every parser forms pointers only after span_ok(); the helpers below return
 * 0 on success and CD_ERANGE when the requested bytes are not all inside.
 * Nothing here allocates; a span borrows the caller's bytes. */
#ifndef CD_SPAN_H
#define CD_SPAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct cd_span {
	const uint8_t *p;
	size_t n;
};

/* The one range primitive: are [off, off+size) inside a buffer of len bytes?
 * Written so that no addition can overflow. */
static inline int span_ok(size_t len, uint64_t off, uint64_t size)
{
	return size <= len && off <= len - size;
}

CD_WUR int span_u8(struct cd_span s, uint64_t off, uint8_t *out);
CD_WUR int span_u16(struct cd_span s, uint64_t off, int big_endian, uint16_t *out);
CD_WUR int span_u32(struct cd_span s, uint64_t off, int big_endian, uint32_t *out);
CD_WUR int span_u64(struct cd_span s, uint64_t off, int big_endian, uint64_t *out);

/* The one integer reader: an unsigned integer of size bytes (1..8) at off, in
 * the given byte order, or 0 when it does not fit (or size is not 1..8): for
 * walkers whose every field is range-checked again by their caller. The
 * checked readers above and span_le0 are this one with a check or an order. */
uint64_t span_uint(struct cd_span s, uint64_t off, unsigned size, int big_endian);
/* span_uint, little-endian, over p[0, n). */
static inline uint64_t span_le0(const uint8_t *p, size_t n, uint64_t off, unsigned size)
{
	struct cd_span s = {p, n};

	return span_uint(s, off, size, 0);
}

/* A sub-span [off, off+size); CD_ERANGE when it does not fit. */
CD_WUR int span_sub(struct cd_span s, uint64_t off, uint64_t size, struct cd_span *out);

/* The one line splitter: the next line of p[0, n) from *pos, without its '\n'
 * (and without the '\r' before it when crlf is set); *pos moves past it.
 * 1 for a line that ends with '\n', 2 for a last line without one, 0 when
 * nothing is left. line points into p. */
int span_line(const uint8_t *p, size_t n, size_t *pos, int crlf, struct cd_span *line);

/* A NUL-terminated string starting at off whose NUL is inside the span.
 * *out points into the span; *len (optional) gets strlen. */
CD_WUR int span_cstr(struct cd_span s, uint64_t off, const char **out, size_t *len);

#endif
