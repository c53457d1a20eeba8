/* ldcache: a reader of glibc's /etc/ld.so.cache in both formats - the old
 * "ld.so-1.7.0" table (with the new table appended after it, as ldconfig
 * wrote by default before glibc 2.32) and the new "glibc-ld.so.cache1.1"
 * table alone - and the loader's lookup of a SONAME in it.
 * The cache struct borrows the caller's bytes; entry strings point into
 * them. Nothing allocates. A header or table outside the buffer fails the
 * parse; a bad string in one entry fails only that entry. */
#ifndef CD_LDCACHE_H
#define CD_LDCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/span.h"

#define LDC_MAGIC_OLD "ld.so-1.7.0"
#define LDC_MAGIC_NEW "glibc-ld.so.cache1.1"

/* Entry flags (glibc sysdeps/generic/ldconfig.h): the low byte is the type,
 * the next byte the ABI the object needs. */
#define LDC_FLAG_TYPE_MASK     0x00ff
#define LDC_FLAG_ELF	       0x0001
#define LDC_FLAG_ELF_LIBC5     0x0002
#define LDC_FLAG_ELF_LIBC6     0x0003
#define LDC_FLAG_REQUIRED_MASK 0xff00
#define LDC_FLAG_SPARC_LIB64   0x0100
#define LDC_FLAG_IA64_LIB64    0x0200
#define LDC_FLAG_X8664_LIB64   0x0300
#define LDC_FLAG_S390_LIB64    0x0400
#define LDC_FLAG_POWERPC_LIB64 0x0500
#define LDC_FLAG_MIPS64_LIBN32 0x0600
#define LDC_FLAG_MIPS64_LIBN64 0x0700
#define LDC_FLAG_X8664_LIBX32  0x0800
#define LDC_FLAG_ARM_LIBHF     0x0900
#define LDC_FLAG_AARCH64_LIB64 0x0a00
#define LDC_FLAG_ARM_LIBSF     0x0b00
#define LDC_FLAG_RISCV_DOUBLE  0x1000

/* hwcap bit 62 marks a glibc-hwcaps subdirectory entry (glibc 2.33+). */
#define LDC_HWCAP_EXTENSION (1ull << 62)

enum ldc_format { LDC_FMT_OLD = 1, LDC_FMT_NEW = 2, LDC_FMT_COMPAT = 3 /* old + new */ };

struct ldc_cache {
	struct cd_span s;
	enum ldc_format format;
	int be;		  /* byte order of the table in use */
	int is_new;	  /* lookups use the new table */
	uint64_t table;	  /* offset of the first entry of the table in use */
	uint64_t strings; /* string offsets are relative to this */
	uint32_t n;	  /* entries in the table in use */
	uint32_t entsize; /* 12 (old) or 24 (new) */
};

struct ldc_entry {
	int32_t flags;
	const char *key;   /* the SONAME, e.g. "libcudart.so.13" */
	const char *value; /* the path */
	uint32_t osversion;
	uint64_t hwcap;
};

CD_WUR int ldc_parse(const uint8_t *p, size_t n, struct ldc_cache *c, struct cd_err *err);
CD_WUR int ldc_entry_get(const struct ldc_cache *c, uint32_t i, struct ldc_entry *out);

/* The loader's choice for soname among entries whose flags equal want
 * (ldc_flags_for), in file order. Entries for glibc-hwcaps subdirectories
 * are skipped and counted in *hwcaps_skipped (optional): which one the
 * loader takes depends on the CPU. CD_ENOENT when there is none. */
CD_WUR int ldc_lookup(const struct ldc_cache *c, const char *soname, int32_t want,
		      struct ldc_entry *out, unsigned *hwcaps_skipped);

/* The flags glibc's loader accepts for objects of this ELF machine / class
 * (_DL_CACHE_DEFAULT_ID); -1 when cuda-doctor does not know the ABI. For
 * i386 glibc also takes plain LDC_FLAG_ELF entries: ldc_flags_ok says so. */
int32_t ldc_flags_for(uint16_t machine, int is64);
int ldc_flags_ok(int32_t flags, int32_t want);

/* The "(libc6,x86-64)" text of ldconfig -p, without the parentheses. */
void ldc_flags_text(int32_t flags, char *buf, size_t cap);

#endif
