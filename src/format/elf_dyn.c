/* elf_dyn: the dynamic section, read the way the loader reads it (PT_DYNAMIC,
 * then DT_STRTAB through the PT_LOAD segments; section headers only when
 * there is no PT_DYNAMIC), and the dynamic symbol table with GNU versions.
 * For tags that occur more than once the last one counts, as in glibc's
 * elf_get_dynamic_info. */
#include <string.h>

#include "format/elf.h"

struct dyn_src {
	struct cd_span dyn;    /* the array of Elf_Dyn */
	struct cd_span strtab; /* empty until found */
	int from_sections;     /* no PT_DYNAMIC: .dynamic and its sh_link */
	uint32_t strtab_link;  /* sh_link of .dynamic when from_sections */
};

static unsigned dyn_size(const struct elf_file *e)
{
	return e->is64 ? 16 : 8;
}

static int dyn_entry(const struct elf_file *e, const struct dyn_src *d, uint64_t i, int64_t *tag,
		     uint64_t *val)
{
	unsigned w = e->is64 ? 8 : 4;
	uint64_t off = i * dyn_size(e);

	if (!span_ok(d->dyn.n, off, dyn_size(e)))
		return CD_ERANGE;
	*tag = (int64_t)elf_field(e, d->dyn, off, w);
	if (!e->is64) /* d_tag is a signed 32-bit value in ELF32 */
		*tag = (int32_t)(uint32_t)*tag;
	*val = elf_field(e, d->dyn, off + w, w);
	return 0;
}

static int find_dynamic(const struct elf_file *e, struct dyn_src *d, struct cd_err *err)
{
	struct elf_phdr ph;
	struct elf_shdr sh;
	uint32_t i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < e->phnum; i++) {
		if (elf_phdr_get(e, i, &ph) || ph.type != ELF_PT_DYNAMIC)
			continue;
		if (span_sub(e->s, ph.offset, ph.filesz, &d->dyn))
			return err_set(err, CD_ERANGE, "PT_DYNAMIC outside the file");
		return 0;
	}
	for (i = 1; i < e->shnum; i++) {
		if (elf_shdr_get(e, i, &sh) || sh.type != ELF_SHT_DYNAMIC)
			continue;
		if (elf_section_data(e, &sh, &d->dyn))
			return err_set(err, CD_ERANGE, ".dynamic outside the file");
		d->from_sections = 1;
		d->strtab_link = sh.link;
		return 0;
	}
	return CD_ENOENT;
}

/* The string table: DT_STRTAB/DT_STRSZ mapped through PT_LOAD, else the
 * section that .dynamic links to. */
static int find_strtab(const struct elf_file *e, struct dyn_src *d, struct cd_err *err)
{
	uint64_t i, val, addr = 0, size = 0, off;
	int64_t tag;
	int have_addr = 0;
	struct elf_shdr sh;

	for (i = 0; dyn_entry(e, d, i, &tag, &val) == 0 && tag != ELF_DT_NULL; i++) {
		if (i == ELF_MAX_DYNAMIC) /* the later passes stop where this one does */
			return err_set(err, CD_EFORMAT,
				       "more than %u dynamic entries before DT_NULL",
				       ELF_MAX_DYNAMIC);
		if (tag == ELF_DT_STRTAB) {
			addr = val;
			have_addr = 1;
		} else if (tag == ELF_DT_STRSZ) {
			size = val;
		}
	}
	if (!d->from_sections && have_addr && size && elf_vaddr_to_offset(e, addr, size, &off) == 0)
		return span_sub(e->s, off, size, &d->strtab);
	if (d->from_sections && d->strtab_link && elf_shdr_get(e, d->strtab_link, &sh) == 0 &&
	    sh.type == ELF_SHT_STRTAB && elf_section_data(e, &sh, &d->strtab) == 0)
		return 0;
	if (!have_addr)
		return 0; /* no strings at all: fine when no tag needs one */
	return err_set(err, CD_ERANGE, "DT_STRTAB (0x%llx, %llu bytes) outside the file",
		       (unsigned long long)addr, (unsigned long long)size);
}

static int dyn_str(struct cd_arena *a, const struct dyn_src *d, uint64_t off, const char **out,
		   struct cd_err *err)
{
	const char *s;

	if (span_cstr(d->strtab, off, &s, NULL))
		return err_set(err, CD_ERANGE, "dynamic string at %llu outside DT_STRTAB",
			       (unsigned long long)off);
	*out = arena_strdup(a, s);
	return *out ? 0 : err_set(err, CD_ENOMEM, "out of memory");
}

static int count_needed(const struct elf_file *e, const struct dyn_src *d, size_t *n,
			struct cd_err *err)
{
	uint64_t i, val;
	int64_t tag;

	*n = 0;
	for (i = 0; dyn_entry(e, d, i, &tag, &val) == 0 && tag != ELF_DT_NULL; i++)
		if (tag == ELF_DT_NEEDED && ++*n > ELF_MAX_NEEDED)
			return err_set(err, CD_EFORMAT, "more than %u DT_NEEDED entries",
				       ELF_MAX_NEEDED);
	return 0;
}

int elf_dynamic_read(const struct elf_file *e, struct cd_arena *a, struct elf_dynamic *out,
		     struct cd_err *err)
{
	struct dyn_src d;
	uint64_t i, val;
	int64_t tag;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = find_dynamic(e, &d, err);
	if (rc == CD_ENOENT)
		return 0;
	if (rc || (rc = find_strtab(e, &d, err)) || (rc = count_needed(e, &d, &n, err)))
		return rc;
	out->present = 1;
	out->needed = n ? arena_calloc(a, n, sizeof(*out->needed)) : NULL;
	if (n && !out->needed)
		return err_set(err, CD_ENOMEM, "out of memory");
	for (i = 0; dyn_entry(e, &d, i, &tag, &val) == 0 && tag != ELF_DT_NULL; i++) {
		switch (tag) {
		case ELF_DT_NEEDED:
			rc = dyn_str(a, &d, val, &out->needed[out->n_needed++], err);
			break;
		case ELF_DT_SONAME: rc = dyn_str(a, &d, val, &out->soname, err); break;
		case ELF_DT_RPATH: rc = dyn_str(a, &d, val, &out->rpath, err); break;
		case ELF_DT_RUNPATH: rc = dyn_str(a, &d, val, &out->runpath, err); break;
		case ELF_DT_FLAGS: out->flags = val; break;
		case ELF_DT_FLAGS_1: out->flags_1 = val; break;
		default: break;
		}
		if (rc)
			return rc;
	}
	return 0;
}
