/* ldcache: see ldcache.h. Layout from glibc sysdeps/generic/dl-cache.h:
 *
 *   old: char magic[11] "ld.so-1.7.0"; u32 nlibs (at 12, after padding);
 *        nlibs x {i32 flags; u32 key, value} (12 bytes) from offset 16;
 *        string offsets are relative to the end of that table.
 *   new: char magic[17] "glibc-ld.so.cache"; char version[3] "1.1";
 *        u32 nlibs; u32 len_strings; u8 flags (byte order: 2 little,
 *        3 big, 0 unknown); 3 pad; u32 extension_offset; u32 unused[3];
 *        nlibs x {i32 flags; u32 key, value; u32 osversion; u64 hwcap}
 *        (24 bytes) from offset 48; string offsets are relative to the
 *        start of the new header.
 * In the compat layout the new header follows the old table, aligned to
 * the alignment of struct cache_file_new (8, or 4 on i386); the loader then
 * uses the new table. Lookup follows glibc elf/dl-cache.c search_cache:
 * entries with the same key are taken in file order and the first whose
 * flags the loader accepts wins; glibc-hwcaps entries need CPU facts. */
#include "format/ldcache.h"

#include <stdio.h>
#include <string.h>

#define OLD_HDR	    16u
#define OLD_ENTRY   12u
#define NEW_MAGIC_N 20u
#define NEW_HDR	    48u
#define NEW_ENTRY   24u

/* A field in the cache's byte order (core/span.h's reader). */
static uint64_t rd(const struct ldc_cache *c, uint64_t off, unsigned size)
{
	return span_uint(c->s, off, size, c->be);
}

static int is_new_at(const uint8_t *p, size_t n, uint64_t off)
{
	return span_ok(n, off, NEW_HDR) && memcmp(p + off, LDC_MAGIC_NEW, NEW_MAGIC_N) == 0;
}

static int new_table(struct ldc_cache *c, uint64_t at, struct cd_err *err)
{
	uint8_t order;

	c->is_new = 1;
	c->entsize = NEW_ENTRY;
	c->strings = at;
	c->table = at + NEW_HDR;
	order = c->s.p[at + 28] & 3;
	if (order == 1)
		return err_set(err, CD_EFORMAT, "ld.so.cache marked invalid by ldconfig");
	c->be = order == 3;
	c->n = (uint32_t)rd(c, at + NEW_MAGIC_N, 4);
	if (order == 0 && !span_ok(c->s.n - c->table, 0, (uint64_t)c->n * NEW_ENTRY)) {
		c->be = !c->be; /* no byte-order mark: take the order that fits */
		c->n = (uint32_t)rd(c, at + NEW_MAGIC_N, 4);
	}
	if (!span_ok(c->s.n - c->table, 0, (uint64_t)c->n * NEW_ENTRY))
		return err_set(err, CD_ERANGE, "ld.so.cache: %u entries run past the %zu-byte file",
			       c->n, c->s.n);
	return 0;
}

static int old_table(struct ldc_cache *c, struct cd_err *err)
{
	uint64_t end, at;

	/* The old format has no byte-order mark: take the order that fits. */
	c->be = 0;
	c->n = (uint32_t)rd(c, 12, 4);
	if (!span_ok(c->s.n - OLD_HDR, 0, (uint64_t)c->n * OLD_ENTRY)) {
		c->be = 1;
		c->n = (uint32_t)rd(c, 12, 4);
	}
	if (!span_ok(c->s.n - OLD_HDR, 0, (uint64_t)c->n * OLD_ENTRY))
		return err_set(err, CD_ERANGE, "ld.so.cache: %u old entries run past the file",
			       c->n);
	end = OLD_HDR + (uint64_t)c->n * OLD_ENTRY;
	for (at = end; at <= end + 7; at++) {
		if (at % 4 == 0 && is_new_at(c->s.p, c->s.n, at)) {
			c->format = LDC_FMT_COMPAT;
			return new_table(c, at, err);
		}
	}
	c->format = LDC_FMT_OLD;
	c->is_new = 0;
	c->entsize = OLD_ENTRY;
	c->table = OLD_HDR;
	c->strings = end;
	return 0;
}

int ldc_parse(const uint8_t *p, size_t n, struct ldc_cache *c, struct cd_err *err)
{
	memset(c, 0, sizeof(*c));
	c->s.p = p;
	c->s.n = n;
	if (is_new_at(p, n, 0)) {
		c->format = LDC_FMT_NEW;
		return new_table(c, 0, err);
	}
	if (n >= OLD_HDR && memcmp(p, LDC_MAGIC_OLD, sizeof(LDC_MAGIC_OLD) - 1) == 0)
		return old_table(c, err);
	return err_set(err, CD_EFORMAT, "not an ld.so.cache file (unknown magic)");
}

int ldc_entry_get(const struct ldc_cache *c, uint32_t i, struct ldc_entry *out)
{
	uint64_t off = c->table + (uint64_t)i * c->entsize;
	struct cd_span strs;

	if (i >= c->n || !span_ok(c->s.n, off, c->entsize))
		return CD_ERANGE;
	memset(out, 0, sizeof(*out));
	out->flags = (int32_t)(uint32_t)rd(c, off, 4);
	if (c->is_new) {
		out->osversion = (uint32_t)rd(c, off + 12, 4);
		out->hwcap = rd(c, off + 16, 8);
	}
	if (span_sub(c->s, c->strings, c->s.n - c->strings, &strs) ||
	    span_cstr(strs, rd(c, off + 4, 4), &out->key, NULL) ||
	    span_cstr(strs, rd(c, off + 8, 4), &out->value, NULL))
		return CD_ERANGE;
	return 0;
}

int ldc_flags_ok(int32_t flags, int32_t want)
{
	if (want < 0)
		return 0;
	if (flags == want)
		return 1;
	/* The generic rule of dl-cache.h, which i386 keeps: plain ELF is fine. */
	return want == LDC_FLAG_ELF_LIBC6 && flags == LDC_FLAG_ELF;
}

int ldc_lookup(const struct ldc_cache *c, const char *soname, int32_t want, struct ldc_entry *out,
	       unsigned *hwcaps_skipped)
{
	struct ldc_entry e;
	uint32_t i;

	if (hwcaps_skipped)
		*hwcaps_skipped = 0;
	for (i = 0; i < c->n; i++) {
		if (ldc_entry_get(c, i, &e) || strcmp(e.key, soname) != 0)
			continue;
		if (!ldc_flags_ok(e.flags, want))
			continue;
		if (e.hwcap & LDC_HWCAP_EXTENSION) {
			if (hwcaps_skipped)
				(*hwcaps_skipped)++;
			continue;
		}
		if (e.hwcap != 0) /* legacy hwcap subdirectory entry (glibc < 2.37) */
			continue;
		*out = e;
		return 0;
	}
	return CD_ENOENT;
}

int32_t ldc_flags_for(uint16_t machine, int is64)
{
	switch (machine) {
	case 62: return is64 ? LDC_FLAG_X8664_LIB64 | 3 : LDC_FLAG_X8664_LIBX32 | 3; /* x86-64 */
	case 183: return is64 ? LDC_FLAG_AARCH64_LIB64 | 3 : -1;		     /* AArch64 */
	case 3: return LDC_FLAG_ELF_LIBC6;					     /* i386 */
	case 21: return is64 ? LDC_FLAG_POWERPC_LIB64 | 3 : -1;			     /* ppc64 */
	case 22: return is64 ? LDC_FLAG_S390_LIB64 | 3 : -1;			     /* s390x */
	default: return -1;
	}
}

void ldc_flags_text(int32_t flags, char *buf, size_t cap)
{
	static const char *const abi[] = {"",
					  ",64bit",
					  ",IA-64",
					  ",x86-64",
					  ",64bit",
					  ",64bit",
					  ",N32",
					  ",64bit",
					  ",x32",
					  ",hard-float",
					  ",AArch64",
					  ",soft-float",
					  ",nan2008",
					  ",N32,nan2008",
					  ",64bit,nan2008",
					  ",soft-float",
					  ",double-float"};
	static const char *const type[] = {"libc4", "ELF", "libc5", "libc6"};
	unsigned t = (unsigned)flags & LDC_FLAG_TYPE_MASK;
	unsigned r = ((unsigned)flags & LDC_FLAG_REQUIRED_MASK) >> 8;

	if (r < sizeof(abi) / sizeof(abi[0]))
		snprintf(buf, cap, "%s%s", t < 4 ? type[t] : "unknown", abi[r]);
	else
		snprintf(buf, cap, "%s,%u", t < 4 ? type[t] : "unknown", r << 8);
}
