/* sha256: SHA-256 (FIPS 180-4) over bytes, for the fleet fingerprint of a
 * report. The context is plain caller storage; nothing is allocated and
 * nothing fails. sha256_hex writes 64 lower-case hex digits and a NUL. */
#ifndef CD_SHA256_H
#define CD_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST 32
#define SHA256_HEX    (2 * SHA256_DIGEST + 1)

struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed so far */
	uint8_t block[64];
	size_t fill; /* bytes waiting in block */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_DIGEST]);
/* The digest of n bytes as hex into out (SHA256_HEX bytes). */
void sha256_hex(const void *p, size_t n, char out[SHA256_HEX]);

#endif
