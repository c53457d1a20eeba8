/* kv: the record protocol between an isolated child and its parent.
 * One record per line: KEY '=' VALUE '\n'. KEY is 1..63 bytes of [A-Za-z0-9_.-];
 * VALUE is printable ASCII (0x20..0x7e) where '\' starts an escape: "\\",
 * "\n" or "\xHH"; every other byte is written as "\xHH". A decoded NUL is
 * rejected, so values are C strings. Nothing here allocates; the reader
 * decodes into caller buffers and fails a line with CD_EFORMAT, never more. */
#ifndef CD_KV_H
#define CD_KV_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define KV_KEY_MAX  64	 /* including the NUL */
#define KV_VAL_MAX  1024 /* decoded, including the NUL */
#define KV_LINE_MAX 4200 /* longest encoded line a reader accepts */

/* Encode one record into out (cap bytes, NUL-terminated). Returns the length
 * without the NUL, or 0 when the key is invalid or the record does not fit. */
size_t kv_encode(char *out, size_t cap, const char *key, const char *val);

struct kv_reader {
	const uint8_t *p;
	size_t n;
	size_t off;
	size_t records; /* good records returned so far */
	size_t bad;	/* malformed lines skipped so far */
};

void kv_reader_init(struct kv_reader *r, const uint8_t *p, size_t n);
/* Decode the next line: 1 with key and val filled, 0 at the end, CD_EFORMAT
 * for a malformed or unterminated line (it is skipped; call again). */
CD_WUR int kv_next(struct kv_reader *r, char key[KV_KEY_MAX], char val[KV_VAL_MAX]);

#endif
