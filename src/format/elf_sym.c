/* elf_sym: .dynsym with GNU symbol versions. Version indexes come from
 * .gnu.version (one Elf_Half per symbol; bit 15 = hidden), their names from
 * .gnu.version_d (Elf_Verdef/Elf_Verdaux: defined versions) and
 * .gnu.version_r (Elf_Verneed/Elf_Vernaux: required versions). A version
 * section that does not check out leaves versions NULL; it never fails the
 * symbol read. */
#include <string.h>

#include "format/elf.h"

#define VERSYM_HIDDEN 0x8000u
#define VERSYM_MAX    0x7fffu

struct vtab {
	const char **name; /* indexed by version index; NULL when unknown */
	uint32_t n;
};

static int linked_strtab(const struct elf_file *e, const struct elf_shdr *sh, struct cd_span *out)
{
	struct elf_shdr st;

	if (elf_shdr_get(e, sh->link, &st) || st.type != ELF_SHT_STRTAB)
		return CD_EFORMAT;
	return elf_section_data(e, &st, out);
}

static void vset(struct vtab *v, uint64_t idx, struct cd_span str, uint64_t name_off)
{
	const char *s;

	idx &= VERSYM_MAX;
	if (v->name && idx < v->n && span_cstr(str, name_off, &s, NULL) == 0)
		v->name[idx] = s;
}

/* Walk verdef (def=1) or verneed records. With v->name NULL it only finds
 * the largest index, so the table can be sized. Records are followed by
 * their vd_next / vn_next links, at most sh_info of them, each link moving
 * forward so the walk ends even on a cyclic file. */
static void walk_versions(const struct elf_file *e, const struct elf_shdr *sh, int def,
			  struct vtab *v, uint32_t *max)
{
	struct cd_span sec, str;
	uint64_t off = 0, aux, next, idx;
	uint32_t i, k, cnt;

	if (elf_section_data(e, sh, &sec) || linked_strtab(e, sh, &str))
		return;
	for (i = 0; i < sh->info && span_ok(sec.n, off, def ? 20 : 16); i++) {
		if (def) {
			idx = elf_field(e, sec, off + 4, 2);
			aux = off + elf_field(e, sec, off + 12, 4);
			if (span_ok(sec.n, aux, 8))
				vset(v, idx, str, elf_field(e, sec, aux, 4));
			if ((idx & VERSYM_MAX) > *max)
				*max = (uint32_t)(idx & VERSYM_MAX);
			next = elf_field(e, sec, off + 16, 4);
		} else {
			cnt = (uint32_t)elf_field(e, sec, off + 2, 2);
			aux = off + elf_field(e, sec, off + 8, 4);
			for (k = 0; k < cnt && span_ok(sec.n, aux, 16); k++) {
				idx = elf_field(e, sec, aux + 6, 2);
				vset(v, idx, str, elf_field(e, sec, aux + 8, 4));
				if ((idx & VERSYM_MAX) > *max)
					*max = (uint32_t)(idx & VERSYM_MAX);
				if (elf_field(e, sec, aux + 12, 4) == 0)
					break;
				aux += elf_field(e, sec, aux + 12, 4);
			}
			next = elf_field(e, sec, off + 12, 4);
		}
		if (next == 0)
			break;
		off += next;
	}
}

static void versions_load(const struct elf_file *e, struct cd_arena *a, struct vtab *v)
{
	struct elf_shdr def, need;
	int has_def = elf_section_by_type(e, ELF_SHT_GNU_VERDEF, &def) == 0;
	int has_need = elf_section_by_type(e, ELF_SHT_GNU_VERNEED, &need) == 0;
	uint32_t max = 0;

	memset(v, 0, sizeof(*v));
	if (has_def)
		walk_versions(e, &def, 1, v, &max);
	if (has_need)
		walk_versions(e, &need, 0, v, &max);
	if (!max)
		return;
	v->name = arena_calloc(a, (size_t)max + 1, sizeof(*v->name));
	if (!v->name)
		return;
	v->n = max + 1;
	if (has_def)
		walk_versions(e, &def, 1, v, &max);
	if (has_need)
		walk_versions(e, &need, 0, v, &max);
}

static void sym_fill(const struct elf_file *e, struct cd_span r, struct elf_sym *s,
		     uint32_t *name_off)
{
	uint8_t info;

	*name_off = (uint32_t)elf_field(e, r, 0, 4);
	if (e->is64) {
		info = (uint8_t)elf_field(e, r, 4, 1);
		s->visibility = (uint8_t)(elf_field(e, r, 5, 1) & 3);
		s->shndx = (uint16_t)elf_field(e, r, 6, 2);
		s->value = elf_field(e, r, 8, 8);
		s->size = elf_field(e, r, 16, 8);
	} else {
		s->value = elf_field(e, r, 4, 4);
		s->size = elf_field(e, r, 8, 4);
		info = (uint8_t)elf_field(e, r, 12, 1);
		s->visibility = (uint8_t)(elf_field(e, r, 13, 1) & 3);
		s->shndx = (uint16_t)elf_field(e, r, 14, 2);
	}
	s->type = info & 0xf;
	s->bind = info >> 4;
	s->defined = s->shndx != 0;
}

static void sym_version(const struct elf_file *e, const struct cd_span *versym,
			const struct vtab *v, uint64_t i, struct elf_sym *s)
{
	uint64_t vi;

	if (!versym->n || !v->name || !span_ok(versym->n, i * 2, 2))
		return;
	vi = elf_field(e, *versym, i * 2, 2);
	s->version_hidden = (vi & VERSYM_HIDDEN) != 0;
	vi &= VERSYM_MAX;
	if (vi >= 2 && vi < v->n) /* 0 local, 1 global: no name */
		s->version = v->name[vi];
}

int elf_dynsym_open(const struct elf_file *e, struct cd_arena *a, struct elf_dynsym_iter *it,
		    struct cd_err *err)
{
	struct elf_shdr sh, vs;
	struct vtab v;
	uint64_t want = e->is64 ? 24 : 16;

	memset(it, 0, sizeof(*it));
	it->e = e;
	it->i = 1; /* the null symbol is skipped */
	if (elf_section_by_type(e, ELF_SHT_DYNSYM, &sh))
		return CD_ENOENT;
	if (sh.entsize != want)
		return err_set(err, CD_EFORMAT, ".dynsym entry size %llu, expected %llu",
			       (unsigned long long)sh.entsize, (unsigned long long)want);
	if (elf_section_data(e, &sh, &it->tab) || linked_strtab(e, &sh, &it->str))
		return err_set(err, CD_ERANGE, ".dynsym or its strings outside the file");
	it->count = it->tab.n / want;
	if (it->count > ELF_MAX_SYMBOLS)
		return err_set(err, CD_EFORMAT, "%llu dynamic symbols: more than %u",
			       (unsigned long long)it->count, ELF_MAX_SYMBOLS);
	if (it->count < 2)
		return 0;
	if (elf_section_by_type(e, ELF_SHT_GNU_VERSYM, &vs) == 0 &&
	    elf_section_data(e, &vs, &it->versym) == 0 && it->versym.n / 2 >= it->count) {
		versions_load(e, a, &v);
		it->vname = v.name;
		it->n_vname = v.n;
	} else {
		it->versym.n = 0;
	}
	return 0;
}

int elf_dynsym_next(struct elf_dynsym_iter *it, struct elf_sym *out, struct cd_err *err)
{
	uint64_t want = it->e->is64 ? 24 : 16;
	struct vtab v = {it->vname, it->n_vname};
	struct cd_span r;
	uint32_t name_off;

	if (it->i >= it->count || span_sub(it->tab, it->i * want, want, &r))
		return 0;
	memset(out, 0, sizeof(*out));
	sym_fill(it->e, r, out, &name_off);
	if (span_cstr(it->str, name_off, &out->name, NULL))
		return err_set(err, CD_ERANGE, "symbol %llu: name outside its string table",
			       (unsigned long long)it->i);
	sym_version(it->e, &it->versym, &v, it->i, out);
	it->i++;
	return 1;
}

int elf_dynsyms(const struct elf_file *e, struct cd_arena *a, struct elf_sym **out, size_t *n,
		struct cd_err *err)
{
	struct elf_dynsym_iter it;
	int rc;

	*out = NULL;
	*n = 0;
	rc = elf_dynsym_open(e, a, &it, err);
	if (rc || it.count < 2)
		return rc;
	*out = arena_calloc(a, (size_t)it.count - 1, sizeof(**out));
	if (!*out)
		return err_set(err, CD_ENOMEM, "out of memory for %llu symbols",
			       (unsigned long long)it.count);
	while ((rc = elf_dynsym_next(&it, &(*out)[*n], err)) == 1)
		(*n)++;
	return rc;
}
