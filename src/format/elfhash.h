/* elfhash: "does this shared object export symbol NAME?" answered as the
 * dynamic loader answers it, through the object's own hash table (.gnu.hash,
 * else the SysV .hash) and .dynsym/.dynstr, so a lookup costs a few page
 * touches even in libtorch_cpu.so's 20 MB string table: no symbol table is
 * read in full and nothing is allocated. The table borrows the caller's
 * buffer. Corrupt tables fail elfhash_open (CD_EFORMAT / CD_ERANGE); a lookup
 * on a table that passed never reads outside it (chains are bounded by the
 * symbol count). Formats: the gABI "Hash Table" section and the GNU hash
 * section as written by binutils (bfd/elflink.c) and read by glibc
 * (elf/dl-lookup.c do_lookup_x, elf/dl-setup_hash.c). */
#ifndef CD_ELFHASH_H
#define CD_ELFHASH_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/span.h"
#include "format/elf.h"

enum { ELFHASH_NONE = 0, ELFHASH_GNU = 1, ELFHASH_SYSV = 2 };

#define ELF_SHT_HASH	 5u
#define ELF_SHT_GNU_HASH 0x6ffffff6u

struct elfhash {
	int kind; /* ELFHASH_GNU or ELFHASH_SYSV */
	int is64, be;
	struct cd_span hash, dynsym, dynstr;
	uint64_t n_syms; /* .dynsym entries */
	unsigned entsize;
	/* GNU */
	uint32_t nbuckets, symoffset, bloom_size, bloom_shift;
	uint64_t buckets_off, chain_off; /* inside hash */
	/* SysV */
	uint32_t nbucket, nchain;
};

/* The object's hash table: .gnu.hash when present, else .hash; CD_ENOENT
 * when it has neither (or no section headers). */
CD_WUR int elfhash_open(const struct elf_file *e, struct elfhash *h, struct cd_err *err);
/* 1 when name is defined in .dynsym (st_shndx != SHN_UNDEF), else 0. */
int elfhash_defines(const struct elfhash *h, const char *name);

/* The two hash functions (exposed for tests). */
uint32_t elfhash_gnu(const char *name);
uint32_t elfhash_sysv(const char *name);

#endif
