/* elfhash: see elfhash.h.
 *
 * GNU hash section (binutils bfd/elflink.c, glibc elf/dl-setup_hash.c):
 *   u32 nbuckets, u32 symoffset, u32 bloom_size, u32 bloom_shift,
 *   ElfW(Addr) bloom[bloom_size], u32 buckets[nbuckets],
 *   u32 chain[n_syms - symoffset]
 * Lookup (glibc elf/dl-lookup.c do_lookup_x): h = dl_new_hash(name); the
 * bloom word bloom[(h / W) % bloom_size] must have bits h % W and
 * (h >> bloom_shift) % W set (W = 32 or 64); then from buckets[h % nbuckets]
 * walk the chain while ((chain ^ h) >> 1) == 0 is tested, the low bit
 * marking the chain's last entry.
 * SysV hash section (gABI): u32 nbucket, u32 nchain, u32 bucket[nbucket],
 * u32 chain[nchain]; index 0 (STN_UNDEF) ends a chain. */
#include "format/elfhash.h"

#include <string.h>

/* A field in the object's byte order (core/span.h's reader). */
static uint64_t rd(const struct elfhash *h, struct cd_span s, uint64_t off, unsigned size)
{
	return span_uint(s, off, size, h->be);
}

uint32_t elfhash_gnu(const char *name)
{
	uint32_t h = 5381;
	const unsigned char *s = (const unsigned char *)name;

	for (; *s; s++)
		h = h * 33 + *s;
	return h;
}

uint32_t elfhash_sysv(const char *name)
{
	uint32_t h = 0, g;
	const unsigned char *s = (const unsigned char *)name;

	for (; *s; s++) {
		h = (h << 4) + *s;
		g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

/* .dynsym (the hash section's sh_link) and its string table. */
static int symtabs(const struct elf_file *e, const struct elf_shdr *hs, struct elfhash *h,
		   struct cd_err *err)
{
	struct elf_shdr ds, ss;

	if (elf_shdr_get(e, hs->link, &ds) || ds.type != ELF_SHT_DYNSYM)
		return err_set(err, CD_EFORMAT, "hash section: sh_link names no .dynsym");
	if (elf_shdr_get(e, ds.link, &ss) || ss.type != ELF_SHT_STRTAB)
		return err_set(err, CD_EFORMAT, ".dynsym: sh_link names no string table");
	if (elf_section_data(e, &ds, &h->dynsym) || elf_section_data(e, &ss, &h->dynstr))
		return err_set(err, CD_ERANGE, ".dynsym or .dynstr outside the file");
	h->entsize = e->is64 ? 24 : 16;
	h->n_syms = h->dynsym.n / h->entsize;
	if (h->n_syms > ELF_MAX_SYMBOLS)
		return err_set(err, CD_EFORMAT, ".dynsym: %llu symbols",
			       (unsigned long long)h->n_syms);
	return 0;
}

static int open_gnu(struct elfhash *h, struct cd_err *err)
{
	uint64_t word = h->is64 ? 8 : 4, bloom_bytes, bucket_bytes;

	if (!span_ok(h->hash.n, 0, 16))
		return err_set(err, CD_ERANGE, ".gnu.hash: header past the section");
	h->nbuckets = (uint32_t)rd(h, h->hash, 0, 4);
	h->symoffset = (uint32_t)rd(h, h->hash, 4, 4);
	h->bloom_size = (uint32_t)rd(h, h->hash, 8, 4);
	h->bloom_shift = (uint32_t)rd(h, h->hash, 12, 4);
	bloom_bytes = (uint64_t)h->bloom_size * word;
	bucket_bytes = (uint64_t)h->nbuckets * 4;
	if (!h->nbuckets || !h->bloom_size || h->bloom_shift >= word * 8)
		return err_set(err, CD_EFORMAT, ".gnu.hash: %u buckets, %u bloom words, shift %u",
			       h->nbuckets, h->bloom_size, h->bloom_shift);
	if (!span_ok(h->hash.n, 16, bloom_bytes) ||
	    !span_ok(h->hash.n, 16 + bloom_bytes, bucket_bytes))
		return err_set(err, CD_ERANGE, ".gnu.hash: tables past the section");
	h->buckets_off = 16 + bloom_bytes;
	h->chain_off = h->buckets_off + bucket_bytes;
	if (h->symoffset > h->n_syms)
		return err_set(err, CD_EFORMAT, ".gnu.hash: symoffset %u past %llu symbols",
			       h->symoffset, (unsigned long long)h->n_syms);
	return 0;
}

static int open_sysv(struct elfhash *h, struct cd_err *err)
{
	if (!span_ok(h->hash.n, 0, 8))
		return err_set(err, CD_ERANGE, ".hash: header past the section");
	h->nbucket = (uint32_t)rd(h, h->hash, 0, 4);
	h->nchain = (uint32_t)rd(h, h->hash, 4, 4);
	if (!h->nbucket || !span_ok(h->hash.n, 8, ((uint64_t)h->nbucket + h->nchain) * 4))
		return err_set(err, CD_ERANGE, ".hash: %u buckets and %u chains past the section",
			       h->nbucket, h->nchain);
	return 0;
}

int elfhash_open(const struct elf_file *e, struct elfhash *h, struct cd_err *err)
{
	struct elf_shdr hs;
	int rc;

	memset(h, 0, sizeof(*h));
	h->is64 = e->is64;
	h->be = e->be;
	if (elf_section_by_type(e, ELF_SHT_GNU_HASH, &hs) == 0)
		h->kind = ELFHASH_GNU;
	else if (elf_section_by_type(e, ELF_SHT_HASH, &hs) == 0)
		h->kind = ELFHASH_SYSV;
	else
		return err_set(err, CD_ENOENT, "no .gnu.hash or .hash section");
	if (elf_section_data(e, &hs, &h->hash))
		return err_set(err, CD_ERANGE, "hash section outside the file");
	rc = symtabs(e, &hs, h, err);
	if (!rc)
		rc = h->kind == ELFHASH_GNU ? open_gnu(h, err) : open_sysv(h, err);
	if (rc)
		h->kind = ELFHASH_NONE;
	return rc;
}

/* Symbol i is called name and is defined. */
static int sym_is(const struct elfhash *h, uint64_t i, const char *name)
{
	uint64_t off = i * h->entsize, name_off;
	uint16_t shndx;
	const char *s;

	if (i >= h->n_syms || !span_ok(h->dynsym.n, off, h->entsize))
		return 0;
	name_off = rd(h, h->dynsym, off, 4);
	shndx = (uint16_t)rd(h, h->dynsym, off + (h->is64 ? 6 : 14), 2);
	if (!shndx || span_cstr(h->dynstr, name_off, &s, NULL))
		return 0;
	return strcmp(s, name) == 0;
}

static int gnu_defines(const struct elfhash *h, const char *name)
{
	uint32_t hv = elfhash_gnu(name), c;
	unsigned bits = h->is64 ? 64 : 32;
	uint64_t word, mask, i, steps;

	word = rd(h, h->hash, 16 + (uint64_t)((hv / bits) % h->bloom_size) * (bits / 8), bits / 8);
	mask = ((uint64_t)1 << (hv % bits)) | ((uint64_t)1 << ((hv >> h->bloom_shift) % bits));
	if ((word & mask) != mask)
		return 0;
	i = rd(h, h->hash, h->buckets_off + (uint64_t)(hv % h->nbuckets) * 4, 4);
	if (i < h->symoffset)
		return 0;
	for (steps = 0; i < h->n_syms && steps < h->n_syms; i++, steps++) {
		uint64_t at = h->chain_off + (i - h->symoffset) * 4;
		if (!span_ok(h->hash.n, at, 4))
			return 0;
		c = (uint32_t)rd(h, h->hash, at, 4);
		if (((c ^ hv) >> 1) == 0 && sym_is(h, i, name))
			return 1;
		if (c & 1)
			return 0;
	}
	return 0;
}

static int sysv_defines(const struct elfhash *h, const char *name)
{
	uint64_t i, steps;

	i = rd(h, h->hash, 8 + (uint64_t)(elfhash_sysv(name) % h->nbucket) * 4, 4);
	for (steps = 0; i && i < h->nchain && steps <= h->nchain; steps++) {
		if (sym_is(h, i, name))
			return 1;
		i = rd(h, h->hash, 8 + ((uint64_t)h->nbucket + i) * 4, 4);
	}
	return 0;
}

int elfhash_defines(const struct elfhash *h, const char *name)
{
	if (!name || !*name)
		return 0;
	if (h->kind == ELFHASH_GNU)
		return gnu_defines(h, name);
	if (h->kind == ELFHASH_SYSV)
		return sysv_defines(h, name);
	return 0;
}
