/* inflate: raw DEFLATE (RFC 1951) for zip members: the input in memory, the
 * output streamed to a sink in pieces of at most INFLATE_CHUNK bytes (a 64 KiB
 * window; nothing stored). Its 192 KiB state lives within the call. CD_EFORMAT
 * for a malformed stream, CD_ERANGE past the input or max_out, CD_ENOMEM; a
 * sink's non-zero return stops it and is returned. */
#ifndef CD_INFLATE_H
#define CD_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define INFLATE_CHUNK 32768u

typedef int (*inflate_sink)(const uint8_t *p, size_t n, void *ctx);

/* Decode in[0..n) to the end of its final block. *used (optional) gets the
 * input bytes consumed, *produced the output bytes. */
CD_WUR int inflate_raw(const uint8_t *in, size_t n, uint64_t max_out, inflate_sink sink, void *ctx,
		       size_t *used, uint64_t *produced, struct cd_err *err);

#endif
