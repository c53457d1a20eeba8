/* inflate: a raw DEFLATE (RFC 1951) decoder for the members of a zip
 * archive (a wheel). The whole input is in memory (a mapped file); the
 * output streams through a sink in pieces of at most INFLATE_CHUNK bytes, so
 * a member of a gigabyte is read in a 64 KiB window and never stored. The
 * decoder's state (192 KiB) is allocated and freed within the call. Errors:
 * CD_EFORMAT for a malformed stream, CD_ERANGE when it runs past the input
 * or the output exceeds max_out; a sink's non-zero return stops it and is
 * returned; CD_ENOMEM. */
#ifndef CD_INFLATE_H
#define CD_INFLATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define INFLATE_CHUNK 32768u

typedef int (*inflate_sink)(const uint8_t *p, size_t n, void *ctx);

/* Decode in[0..n) to the end of its final block. *used (optional) gets the
 * input bytes consumed, *produced the output bytes. */
int inflate_raw(const uint8_t *in, size_t n, uint64_t max_out, inflate_sink sink, void *ctx,
		size_t *used, uint64_t *produced, struct cd_err *err);

#endif
