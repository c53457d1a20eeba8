/* jscan: a small pull scanner over untrusted JSON bytes (RFC 8259), for
 * formats whose schema is fixed and shallow (the safetensors header). It never
 * recurses: skipping a value counts brackets up to JSCAN_DEPTH_MAX, so a deeply
 * nested input is a format error, not a stack overflow. Strings are copied,
 * unescaped and NUL-terminated into the caller's arena (jscan_string_ref
 * copies only those with escapes). Errors are CD_EFORMAT
 * (or CD_ENOMEM from the arena) with the byte offset in err. */
#ifndef CD_JSCAN_H
#define CD_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define JSCAN_DEPTH_MAX 64

struct jscan {
	const uint8_t *p;
	size_t n;
	size_t pos;
	struct cd_err *err;
};

void jscan_init(struct jscan *j, const uint8_t *p, size_t n, struct cd_err *err);
/* 0 when all n bytes are valid UTF-8 (no overlongs, no surrogates). */
CD_WUR int jscan_utf8_ok(const uint8_t *p, size_t n);
/* Skip whitespace; the next byte, or -1 at the end. */
int jscan_peek(struct jscan *j);
/* Consume the byte c (after whitespace), else CD_EFORMAT. */
CD_WUR int jscan_expect(struct jscan *j, char c);
/* After whitespace: consume c and return 1 if it is next, else 0. */
int jscan_accept(struct jscan *j, char c);
/* A string value into the arena (NUL-terminated); *len excludes the NUL. */
CD_WUR int jscan_string(struct jscan *j, struct cd_arena *a, const char **out, size_t *len);
/* A string value without a copy where it can: *out points into the input
 * (not NUL-terminated: *len bytes) when the string holds no escape, else to
 * its unescaped, NUL-terminated arena copy. For names kept by the million. */
CD_WUR int jscan_string_ref(struct jscan *j, struct cd_arena *a, const char **out, size_t *len);
/* A non-negative integer without sign, fraction or exponent that fits 64 bits. */
CD_WUR int jscan_u64(struct jscan *j, uint64_t *out);
/* Skip one value of any type, iteratively, at most JSCAN_DEPTH_MAX deep. */
CD_WUR int jscan_skip(struct jscan *j);
/* Only whitespace may remain. */
CD_WUR int jscan_end(struct jscan *j);

#endif
