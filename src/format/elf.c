/* elf: see elf.h. Layouts are those of the System V gABI (ELF header,
 * program and section headers, dynamic section, symbol table) and of the
 * GNU symbol-versioning sections (.gnu.version, .gnu.version_d,
 * .gnu.version_r). Every record is first cut out as a span with span_sub;
 * fields are then read with elf_field(), which yields 0 for bytes outside the
 * record, so a wrong layout constant can misread but never overrun. */
#include "format/elf.h"

#include <stdio.h>
#include <string.h>

#define EHDR32	   52
#define EHDR64	   64
#define PHDR32	   32
#define PHDR64	   56
#define SHDR32	   40
#define SHDR64	   64
#define PN_XNUM	   0xffffu
#define SHN_XINDEX 0xffffu

uint64_t elf_field(const struct elf_file *e, struct cd_span r, uint64_t off, unsigned size)
{
	return span_uint(r, off, size, e->be);
}

/* A field whose width is 4 in ELF32 and 8 in ELF64 ("word or xword"). */
static uint64_t fldw(const struct elf_file *e, struct cd_span r, uint64_t off32, uint64_t off64)
{
	return e->is64 ? elf_field(e, r, off64, 8) : elf_field(e, r, off32, 4);
}

static uint64_t f16(const struct elf_file *e, struct cd_span r, uint64_t off)
{
	return elf_field(e, r, off, 2);
}

static uint64_t f32(const struct elf_file *e, struct cd_span r, uint64_t off)
{
	return elf_field(e, r, off, 4);
}

/* Read section 0, which carries the extended counts of large files. */
static int ext_counts(struct elf_file *e, uint16_t e_phnum, uint16_t e_shnum, uint16_t e_shstrndx,
		      struct cd_err *err)
{
	struct cd_span r;

	e->phnum = e_phnum;
	e->shnum = e_shnum;
	e->shstrndx = e_shstrndx;
	if (e->shoff == 0) {
		if (e_phnum == PN_XNUM || e_shstrndx == SHN_XINDEX)
			return err_set(err, CD_EFORMAT, "extended header counts without sections");
		e->shnum = 0;
		e->shstrndx = 0;
		return 0;
	}
	if (e->shentsize != (e->is64 ? SHDR64 : SHDR32))
		return err_set(err, CD_EFORMAT, "section header size %u is not the ELF%d size",
			       e->shentsize, e->is64 ? 64 : 32);
	if (span_sub(e->s, e->shoff, e->shentsize, &r))
		return err_set(err, CD_ERANGE, "section header table outside the file");
	if (e_shnum == 0)
		e->shnum = (uint32_t)(fldw(e, r, 20, 32) > ELF_MAX_SECTIONS ? ELF_MAX_SECTIONS + 1
									    : fldw(e, r, 20, 32));
	if (e_shstrndx == SHN_XINDEX)
		e->shstrndx = (uint32_t)f32(e, r, e->is64 ? 40 : 24);
	if (e_phnum == PN_XNUM)
		e->phnum = (uint32_t)f32(e, r, e->is64 ? 44 : 28);
	return 0;
}

static int check_tables(struct elf_file *e, struct cd_err *err)
{
	if (e->phnum) {
		if (e->phentsize != (e->is64 ? PHDR64 : PHDR32))
			return err_set(err, CD_EFORMAT,
				       "program header size %u is not the ELF%d size", e->phentsize,
				       e->is64 ? 64 : 32);
		if (!span_ok(e->s.n, e->phoff, (uint64_t)e->phnum * e->phentsize))
			return err_set(err, CD_ERANGE,
				       "program headers (%u at %llu) outside the file", e->phnum,
				       (unsigned long long)e->phoff);
	}
	if (e->shnum) {
		if (e->shnum > ELF_MAX_SECTIONS)
			return err_set(err, CD_EFORMAT, "%u sections: more than %u", e->shnum,
				       ELF_MAX_SECTIONS);
		if (!span_ok(e->s.n, e->shoff, (uint64_t)e->shnum * e->shentsize))
			return err_set(err, CD_ERANGE,
				       "section headers (%u at %llu) outside the file", e->shnum,
				       (unsigned long long)e->shoff);
		if (e->shstrndx >= e->shnum)
			e->shstrndx_bad = 1;
	}
	return 0;
}

int elf_parse(const uint8_t *p, size_t n, struct elf_file *e, struct cd_err *err)
{
	struct cd_span h;
	uint16_t phnum, shnum, shstrndx;

	memset(e, 0, sizeof(*e));
	e->s.p = p;
	e->s.n = n;
	if (n < 16 || memcmp(p, "\177ELF", 4) != 0)
		return err_set(err, CD_EFORMAT, "not an ELF file");
	if (p[4] != 1 && p[4] != 2)
		return err_set(err, CD_EFORMAT, "ELF class %u is neither 32 nor 64 bit", p[4]);
	if (p[5] != 1 && p[5] != 2)
		return err_set(err, CD_EFORMAT, "ELF data encoding %u is unknown", p[5]);
	if (p[6] != 1)
		return err_set(err, CD_EFORMAT, "ELF version %u is not 1", p[6]);
	e->is64 = p[4] == 2;
	e->be = p[5] == 2;
	e->osabi = p[7];
	e->abiversion = p[8];
	if (span_sub(e->s, 0, e->is64 ? EHDR64 : EHDR32, &h))
		return err_set(err, CD_ERANGE, "ELF header truncated (%zu bytes)", n);
	e->type = (uint16_t)f16(e, h, 16);
	e->machine = (uint16_t)f16(e, h, 18);
	e->entry = fldw(e, h, 24, 24);
	e->phoff = fldw(e, h, 28, 32);
	e->shoff = fldw(e, h, 32, 40);
	e->flags = (uint32_t)f32(e, h, e->is64 ? 48 : 36);
	e->phentsize = (uint16_t)f16(e, h, e->is64 ? 54 : 42);
	phnum = (uint16_t)f16(e, h, e->is64 ? 56 : 44);
	e->shentsize = (uint16_t)f16(e, h, e->is64 ? 58 : 46);
	shnum = (uint16_t)f16(e, h, e->is64 ? 60 : 48);
	shstrndx = (uint16_t)f16(e, h, e->is64 ? 62 : 50);
	if (f32(e, h, 20) != 1)
		return err_set(err, CD_EFORMAT, "e_version is not 1");
	if (ext_counts(e, phnum, shnum, shstrndx, err))
		return err ? err->code : CD_EFORMAT;
	return check_tables(e, err);
}

int elf_phdr_get(const struct elf_file *e, uint32_t i, struct elf_phdr *out)
{
	struct cd_span r;

	if (i >= e->phnum ||
	    span_sub(e->s, e->phoff + (uint64_t)i * e->phentsize, e->phentsize, &r))
		return CD_ERANGE;
	out->type = (uint32_t)f32(e, r, 0);
	out->flags = (uint32_t)f32(e, r, e->is64 ? 4 : 24);
	out->offset = fldw(e, r, 4, 8);
	out->vaddr = fldw(e, r, 8, 16);
	out->filesz = fldw(e, r, 16, 32);
	out->memsz = fldw(e, r, 20, 40);
	out->align = fldw(e, r, 28, 48);
	return 0;
}

static void shdr_fill(const struct elf_file *e, struct cd_span r, struct elf_shdr *out,
		      uint32_t *name_off)
{
	*name_off = (uint32_t)f32(e, r, 0);
	out->name = NULL;
	out->type = (uint32_t)f32(e, r, 4);
	out->flags = fldw(e, r, 8, 8);
	out->addr = fldw(e, r, 12, 16);
	out->offset = fldw(e, r, 16, 24);
	out->size = fldw(e, r, 20, 32);
	out->link = (uint32_t)f32(e, r, e->is64 ? 40 : 24);
	out->info = (uint32_t)f32(e, r, e->is64 ? 44 : 28);
	out->addralign = fldw(e, r, 32, 48);
	out->entsize = fldw(e, r, 36, 56);
}

static int shdr_raw(const struct elf_file *e, uint32_t i, struct elf_shdr *out, uint32_t *name_off)
{
	struct cd_span r;

	if (i >= e->shnum ||
	    span_sub(e->s, e->shoff + (uint64_t)i * e->shentsize, e->shentsize, &r))
		return CD_ERANGE;
	shdr_fill(e, r, out, name_off);
	return 0;
}

/* The section-name string table, or an empty span when it is unusable. */
static struct cd_span shstrtab(const struct elf_file *e)
{
	struct elf_shdr sh;
	struct cd_span s = {NULL, 0};
	uint32_t dummy;

	if (e->shstrndx_bad || e->shstrndx == 0 || shdr_raw(e, e->shstrndx, &sh, &dummy) ||
	    sh.type != ELF_SHT_STRTAB || elf_section_data(e, &sh, &s))
		s.n = 0;
	return s;
}

int elf_shdr_get(const struct elf_file *e, uint32_t i, struct elf_shdr *out)
{
	struct cd_span names = shstrtab(e);
	uint32_t name_off;
	int rc = shdr_raw(e, i, out, &name_off);

	if (rc)
		return rc;
	if (names.n && span_cstr(names, name_off, &out->name, NULL))
		out->name = NULL;
	return 0;
}

int elf_section_by_type(const struct elf_file *e, uint32_t type, struct elf_shdr *out)
{
	uint32_t i;

	for (i = 1; i < e->shnum; i++)
		if (elf_shdr_get(e, i, out) == 0 && out->type == type)
			return 0;
	return CD_ENOENT;
}

int elf_section_find(const struct elf_file *e, const char *name, struct elf_shdr *out)
{
	struct cd_span names = shstrtab(e);
	size_t want = strlen(name);
	uint32_t i, off;

	if (!names.n)
		return CD_ENOENT;
	for (i = 1; i < e->shnum; i++) {
		if (shdr_raw(e, i, out, &off))
			return CD_ERANGE;
		/* Compare in place: the name and its NUL must lie inside the table. */
		if (span_ok(names.n, off, want + 1) && !memcmp(names.p + off, name, want) &&
		    names.p[off + want] == '\0') {
			out->name = (const char *)names.p + off;
			return 0;
		}
	}
	return CD_ENOENT;
}

int elf_section_data(const struct elf_file *e, const struct elf_shdr *sh, struct cd_span *out)
{
	if (sh->type == ELF_SHT_NOBITS) {
		out->p = e->s.p;
		out->n = 0;
		return 0;
	}
	return span_sub(e->s, sh->offset, sh->size, out);
}

int elf_vaddr_to_offset(const struct elf_file *e, uint64_t vaddr, uint64_t size, uint64_t *off)
{
	struct elf_phdr ph;
	uint32_t i;

	for (i = 0; i < e->phnum; i++) {
		if (elf_phdr_get(e, i, &ph) || ph.type != ELF_PT_LOAD)
			continue;
		/* Inside this segment's file image, written without overflow. */
		if (vaddr < ph.vaddr || !span_ok(ph.filesz, vaddr - ph.vaddr, size))
			continue;
		if (ph.offset > UINT64_MAX - (vaddr - ph.vaddr))
			return CD_ERANGE;
		*off = ph.offset + (vaddr - ph.vaddr);
		return span_ok(e->s.n, *off, size) ? 0 : CD_ERANGE;
	}
	return CD_ENOENT;
}

int elf_interp(const struct elf_file *e, const char **out)
{
	struct elf_phdr ph;
	struct cd_span s;
	uint32_t i;

	for (i = 0; i < e->phnum; i++) {
		if (elf_phdr_get(e, i, &ph) || ph.type != ELF_PT_INTERP)
			continue;
		if (span_sub(e->s, ph.offset, ph.filesz, &s) || span_cstr(s, 0, out, NULL))
			return CD_ERANGE;
		return 0;
	}
	return CD_ENOENT;
}

const char *elf_machine_name(uint16_t machine, char *buf, size_t cap)
{
	switch (machine) {
	case ELF_EM_386: return "i386";
	case ELF_EM_PPC64: return "ppc64";
	case ELF_EM_ARM: return "arm";
	case ELF_EM_X86_64: return "x86_64";
	case ELF_EM_AARCH64: return "aarch64";
	case ELF_EM_CUDA: return "cuda";
	case ELF_EM_RISCV: return "riscv";
	default: snprintf(buf, cap, "machine-%u", machine); return buf;
	}
}
