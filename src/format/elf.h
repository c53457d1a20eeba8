/* elf: a bounds-checked reader of ELF files held in memory (ELF32 and ELF64,
 * either byte order), per the System V gABI and the GNU symbol-versioning
 * extensions. The caller maps or reads the file; only the headers and tables
 * asked for are touched, so a 450 MB library costs a few page faults.
 * elf_dynamic_read copies its strings into the caller's arena; symbol names
 * from elf_dynsyms point into the caller's buffer and live as long as it.
 * Corrupt input fails with CD_EFORMAT / CD_ERANGE and a message; nothing here
 * trusts a count, offset or size from the file without a range check. */
#ifndef CD_ELF_H
#define CD_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"
#include "core/span.h"

/* e_type */
enum { ELF_ET_REL = 1, ELF_ET_EXEC = 2, ELF_ET_DYN = 3, ELF_ET_CORE = 4 };

/* e_machine values cuda-doctor names (gABI "Machine" table). */
enum {
	ELF_EM_386 = 3,
	ELF_EM_PPC64 = 21,
	ELF_EM_ARM = 40,
	ELF_EM_X86_64 = 62,
	ELF_EM_AARCH64 = 183,
	ELF_EM_CUDA = 190,
	ELF_EM_RISCV = 243
};

/* p_type */
enum { ELF_PT_LOAD = 1, ELF_PT_DYNAMIC = 2, ELF_PT_INTERP = 3, ELF_PT_NOTE = 4, ELF_PT_PHDR = 6 };

/* sh_type */
enum {
	ELF_SHT_NULL = 0,
	ELF_SHT_PROGBITS = 1,
	ELF_SHT_SYMTAB = 2,
	ELF_SHT_STRTAB = 3,
	ELF_SHT_DYNAMIC = 6,
	ELF_SHT_NOBITS = 8,
	ELF_SHT_DYNSYM = 11,
	ELF_SHT_GNU_VERDEF = 0x6ffffffd,
	ELF_SHT_GNU_VERNEED = 0x6ffffffe,
	ELF_SHT_GNU_VERSYM = 0x6fffffff
};

/* d_tag values read by elf_dynamic_read. */
enum {
	ELF_DT_NULL = 0,
	ELF_DT_NEEDED = 1,
	ELF_DT_STRTAB = 5,
	ELF_DT_STRSZ = 10,
	ELF_DT_SONAME = 14,
	ELF_DT_RPATH = 15,
	ELF_DT_FLAGS = 30,
	ELF_DT_RUNPATH = 29,
	ELF_DT_FLAGS_1 = 0x6ffffffb
};

#define ELF_DF_1_NOW	  0x00000001u
#define ELF_DF_1_NODEFLIB 0x00000800u

/* Caps: more than this is treated as corrupt, not as work to do. */
#define ELF_MAX_SECTIONS (1u << 20)
#define ELF_MAX_NEEDED	 4096u
#define ELF_MAX_DYNAMIC	 (1u << 16) /* entries before DT_NULL; real files have < 100 */
#define ELF_MAX_SYMBOLS	 (1u << 24)

struct elf_file {
	struct cd_span s;
	int is64; /* ELFCLASS64 */
	int be;	  /* ELFDATA2MSB */
	uint8_t osabi;
	uint8_t abiversion;
	uint16_t type;
	uint16_t machine;
	uint32_t flags; /* e_flags */
	uint64_t entry;
	uint64_t phoff;
	uint32_t phnum; /* PN_XNUM resolved */
	uint16_t phentsize;
	uint64_t shoff;
	uint32_t shnum; /* SHN_UNDEF-extended count resolved */
	uint16_t shentsize;
	uint32_t shstrndx; /* SHN_XINDEX resolved; 0 when there is none */
	int shstrndx_bad;  /* shstrndx names no section: names are unknown */
};

struct elf_phdr {
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
};

struct elf_shdr {
	const char *name; /* into the buffer; NULL when .shstrtab is unusable */
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t addralign;
	uint64_t entsize;
};

/* The dynamic section as the loader reads it. Strings are arena copies;
 * NULL means the tag is absent. */
struct elf_dynamic {
	int present; /* 0 for a static or relocatable file */
	const char *soname;
	const char *rpath;
	const char *runpath;
	size_t n_needed;
	const char **needed;
	uint64_t flags;	  /* DT_FLAGS */
	uint64_t flags_1; /* DT_FLAGS_1 */
};

struct elf_sym {
	const char *name;    /* into the buffer */
	const char *version; /* "GLIBC_2.34"; NULL when unversioned or unknown */
	uint64_t value;
	uint64_t size;
	uint16_t shndx;
	uint8_t type; /* STT_* */
	uint8_t bind; /* STB_* */
	uint8_t visibility;
	uint8_t defined;	/* shndx != SHN_UNDEF */
	uint8_t version_hidden; /* "sym@VER" rather than "sym@@VER" */
};

/* An unsigned field of size bytes (1, 2, 4 or 8) at off inside r, in the
 * file's byte order; 0 when it does not lie inside r. */
uint64_t elf_field(const struct elf_file *e, struct cd_span r, uint64_t off, unsigned size);

/* Parse and check the ELF header and the extents of both header tables. */
CD_WUR int elf_parse(const uint8_t *p, size_t n, struct elf_file *e, struct cd_err *err);

CD_WUR int elf_phdr_get(const struct elf_file *e, uint32_t i, struct elf_phdr *out);
CD_WUR int elf_shdr_get(const struct elf_file *e, uint32_t i, struct elf_shdr *out);
/* The first section called name; CD_ENOENT if none. */
CD_WUR int elf_section_find(const struct elf_file *e, const char *name, struct elf_shdr *out);
/* The first section of type type (ELF_SHT_*); CD_ENOENT if none. */
CD_WUR int elf_section_by_type(const struct elf_file *e, uint32_t type, struct elf_shdr *out);
/* The bytes of a section (empty for SHT_NOBITS); CD_ERANGE outside the file. */
CD_WUR int elf_section_data(const struct elf_file *e, const struct elf_shdr *sh,
			    struct cd_span *out);
/* File offset of [vaddr, vaddr+size) through the PT_LOAD segments. */
CD_WUR int elf_vaddr_to_offset(const struct elf_file *e, uint64_t vaddr, uint64_t size,
			       uint64_t *off);
/* PT_INTERP's string, into the buffer; CD_ENOENT if none. */
CD_WUR int elf_interp(const struct elf_file *e, const char **out);

CD_WUR int elf_dynamic_read(const struct elf_file *e, struct cd_arena *a, struct elf_dynamic *d,
			    struct cd_err *err);

/* Every .dynsym entry but the null one, with GNU versions when the version
 * sections are sound. *out is an arena array of the table's count (up to
 * ELF_MAX_SYMBOLS); CD_ENOENT without .dynsym. */
CD_WUR int elf_dynsyms(const struct elf_file *e, struct cd_arena *a, struct elf_sym **out,
		       size_t *n, struct cd_err *err);

/* The same one symbol at a time, with nothing the size of the table built:
 * for a reader that looks at each symbol once. Only the version names go to
 * the arena. */
struct elf_dynsym_iter {
	const struct elf_file *e;
	struct cd_span tab, str, versym;
	const char **vname; /* by version index; NULL when the versions are unknown */
	uint32_t n_vname;
	uint64_t i;	/* the next symbol */
	uint64_t count; /* entries of .dynsym, the null one included */
};

/* The errors of elf_dynsyms before its first symbol. */
CD_WUR int elf_dynsym_open(const struct elf_file *e, struct cd_arena *a, struct elf_dynsym_iter *it,
			   struct cd_err *err);
/* 1 and the next symbol in *out; 0 after the last; CD_ERANGE when its name
 * lies outside its string table. */
CD_WUR int elf_dynsym_next(struct elf_dynsym_iter *it, struct elf_sym *out, struct cd_err *err);

/* "x86_64", "aarch64", ...; "machine-N" style text goes to buf for others. */
const char *elf_machine_name(uint16_t machine, char *buf, size_t cap);

#endif
