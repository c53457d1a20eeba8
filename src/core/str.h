/* str: small string helpers that never overflow their destination.
 * Functions writing into a caller buffer always NUL-terminate and return the
 * length they wanted to write (so truncation is detectable, like snprintf).
 * Version helpers compare dotted numeric strings ("580.159.04"). */
#ifndef CD_STR_H
#define CD_STR_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

size_t str_copy(char *dst, size_t cap, const char *src);
size_t str_ncopy(char *dst, size_t cap, const char *src, size_t n);
int str_has_prefix(const char *s, const char *prefix);
int str_has_suffix(const char *s, const char *suffix);
/* Trim ASCII whitespace in place; returns s. */
char *str_trim(char *s);
/* Strict decimal parse of the whole string: 0, or CD_EFORMAT / CD_ERANGE. */
CD_WUR int str_to_u64(const char *s, uint64_t *out);
CD_WUR int str_to_int(const char *s, int min, int max, int *out);

/* Compare dotted numeric versions component by component ("12.10" > "12.9");
 * a missing component counts as 0; non-digit suffixes are ignored.
 * Returns <0, 0, >0. */
int ver_cmp(const char *a, const char *b);
/* Parse "MAJOR.MINOR" (extra components ignored) into major*1000+minor*10,
 * the encoding of cudaDriverGetVersion (13.0 -> 13000). -1 on failure. */
CD_WUR int ver_cuda_int(const char *s);
/* Format a cudaDriverGetVersion-style integer as "13.0". */
void ver_cuda_str(int v, char *out, size_t cap);

/* The one byte formatter: binary units with one decimal, dropped when it is
 * 0 ("17 B", "3.2 KiB", "64 MiB", "140.4 GiB"); "unknown" for a negative
 * value (CD_UNK). Returns buf. */
const char *str_bytes(char *buf, size_t cap, int64_t b);

/* A byte size as people write it: "80GiB", "80G" and "81920M" (binary),
 * "80GB" (decimal), "1.5TiB", "85899345920"; 0, or CD_EFORMAT (no number, an
 * unknown unit, a sign, 2^63 bytes or more; strtod's forms, hex included). */
int str_parse_bytes(const char *s, int64_t *out);

/* FNV-1a over n bytes, continuing from h (start with STR_FNV_SEED). */
#define STR_FNV_SEED 0xcbf29ce484222325ULL
uint64_t str_fnv1a(uint64_t h, const void *p, size_t n);

#endif
