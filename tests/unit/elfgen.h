/* elfgen: write small ELF shared objects for the tests - either class,
 * either byte order - with a chosen SONAME, DT_NEEDED list, RPATH, RUNPATH,
 * DT_FLAGS_1, PT_INTERP and one extra named section (a fake .nv_fatbin).
 * One PT_LOAD maps the whole file at vaddr 0, so every address equals its
 * file offset. Layout: ehdr, phdrs, .dynstr, .dynamic, extra, .shstrtab,
 * section headers. Header-only: each test includes it. */
#ifndef CD_TEST_ELFGEN_H
#define CD_TEST_ELFGEN_H

#include <stdint.h>
#include <string.h>

struct eg_spec {
	int is64, be;
	uint16_t machine; /* default 62 (x86-64) when 0 */
	uint16_t type;	  /* default 3 (ET_DYN) when 0 */
	const char *soname, *rpath, *runpath, *interp;
	const char *needed[8];
	uint64_t flags_1;
	const char *extra_name; /* a section with these bytes */
	const uint8_t *extra;
	size_t extra_n;
	uint32_t extra_type; /* default SHT_PROGBITS */
	uint32_t extra_link; /* 1 is .dynstr */
	uint64_t extra_entsize;
	int no_sections; /* omit the section header table */
};

struct eg_out {
	uint8_t *p;
	size_t n, cap;
	int is64, be;
};

static void eg_put(struct eg_out *o, size_t off, uint64_t v, unsigned size)
{
	unsigned i;

	for (i = 0; i < size && off + i < o->cap; i++)
		o->p[off + i] = (uint8_t)(v >> (8 * (o->be ? size - 1 - i : i)));
	if (off + size > o->n)
		o->n = off + size;
}

/* a word in ELF32, an xword in ELF64 */
static void eg_putw(struct eg_out *o, size_t off, uint64_t v)
{
	eg_put(o, off, v, o->is64 ? 8 : 4);
}

static size_t eg_str(struct eg_out *o, size_t *end, const char *s)
{
	size_t at = *end, n = strlen(s) + 1;

	if (at + n <= o->cap)
		memcpy(o->p + at, s, n);
	*end += n;
	if (*end > o->n)
		o->n = *end;
	return at;
}

static size_t eg_align(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

static void eg_dyn(struct eg_out *o, size_t *at, int64_t tag, uint64_t val)
{
	eg_putw(o, *at, (uint64_t)tag);
	eg_putw(o, *at + (o->is64 ? 8 : 4), val);
	*at += o->is64 ? 16 : 8;
}

static void eg_phdr(struct eg_out *o, size_t at, uint32_t type, uint64_t off, uint64_t size)
{
	eg_put(o, at, type, 4);
	if (o->is64) {
		eg_put(o, at + 4, 4, 4); /* flags */
		eg_putw(o, at + 8, off);
		eg_putw(o, at + 16, off);
		eg_putw(o, at + 24, off);
		eg_putw(o, at + 32, size);
		eg_putw(o, at + 40, size);
		eg_putw(o, at + 48, 8);
	} else {
		eg_putw(o, at + 4, off);
		eg_putw(o, at + 8, off);
		eg_putw(o, at + 12, off);
		eg_putw(o, at + 16, size);
		eg_putw(o, at + 20, size);
		eg_put(o, at + 24, 4, 4);
		eg_putw(o, at + 28, 8);
	}
}

static void eg_shdr(struct eg_out *o, size_t at, uint32_t name, uint32_t type, uint64_t off,
		    uint64_t size, uint32_t link, uint64_t entsize)
{
	eg_put(o, at, name, 4);
	eg_put(o, at + 4, type, 4);
	if (o->is64) {
		eg_putw(o, at + 16, off); /* addr = offset */
		eg_putw(o, at + 24, off);
		eg_putw(o, at + 32, size);
		eg_put(o, at + 40, link, 4);
		eg_putw(o, at + 48, 8);
		eg_putw(o, at + 56, entsize);
	} else {
		eg_putw(o, at + 12, off);
		eg_putw(o, at + 16, off);
		eg_putw(o, at + 20, size);
		eg_put(o, at + 24, link, 4);
		eg_putw(o, at + 32, 8);
		eg_putw(o, at + 36, entsize);
	}
}

static void eg_ehdr(struct eg_out *o, const struct eg_spec *s, unsigned nph, size_t shoff,
		    unsigned shnum)
{
	memcpy(o->p, "\177ELF", 4);
	o->p[4] = o->is64 ? 2 : 1;
	o->p[5] = o->be ? 2 : 1;
	o->p[6] = 1;
	eg_put(o, 16, s->type ? s->type : 3, 2);
	eg_put(o, 18, s->machine ? s->machine : 62, 2);
	eg_put(o, 20, 1, 4);
	eg_putw(o, 28 + (o->is64 ? 4 : 0), o->is64 ? 64 : 52); /* phoff */
	eg_putw(o, o->is64 ? 40 : 32, shoff);
	eg_put(o, o->is64 ? 52 : 40, o->is64 ? 64 : 52, 2);
	eg_put(o, o->is64 ? 54 : 42, o->is64 ? 56 : 32, 2);
	eg_put(o, o->is64 ? 56 : 44, nph, 2);
	eg_put(o, o->is64 ? 58 : 46, shnum ? (o->is64 ? 64 : 40) : 0, 2);
	eg_put(o, o->is64 ? 60 : 48, shnum, 2);
	eg_put(o, o->is64 ? 62 : 50, shnum ? shnum - 1 : 0, 2);
}

/* Build into buf; returns the size, or 0 when cap is too small. */
/* Offsets of the parts of the last eg_build, for tests that corrupt them. */
static size_t eg_at_str, eg_at_dyn, eg_at_extra, eg_at_sh;

static size_t eg_build(const struct eg_spec *s, uint8_t *buf, size_t cap)
{
	struct eg_out o = {buf, 0, cap, s->is64, s->be};
	unsigned nph = s->interp ? 3 : 2, i, nneed = 0;
	size_t ph = s->is64 ? 64 : 52, phsz = s->is64 ? 56 : 32;
	size_t str = ph + nph * phsz, end = str, dyn, x = 0, shstr, sh, sname[5];
	size_t soname = 0, rpath = 0, runpath = 0, interp = 0, need[8], dyn_end;

	memset(buf, 0, cap);
	eg_str(&o, &end, "");
	for (i = 0; i < 8 && s->needed[i]; i++, nneed++)
		need[i] = eg_str(&o, &end, s->needed[i]);
	if (s->soname)
		soname = eg_str(&o, &end, s->soname);
	if (s->rpath)
		rpath = eg_str(&o, &end, s->rpath);
	if (s->runpath)
		runpath = eg_str(&o, &end, s->runpath);
	if (s->interp)
		interp = eg_str(&o, &end, s->interp);
	dyn = eg_align(end, 8);
	end = dyn;
	for (i = 0; i < nneed; i++)
		eg_dyn(&o, &end, 1, need[i] - str);
	if (s->soname)
		eg_dyn(&o, &end, 14, soname - str);
	if (s->rpath)
		eg_dyn(&o, &end, 15, rpath - str);
	if (s->runpath)
		eg_dyn(&o, &end, 29, runpath - str);
	if (s->flags_1)
		eg_dyn(&o, &end, 0x6ffffffb, s->flags_1);
	eg_dyn(&o, &end, 5, str);	 /* DT_STRTAB */
	eg_dyn(&o, &end, 10, dyn - str); /* DT_STRSZ */
	eg_dyn(&o, &end, 0, 0);
	dyn_end = end;
	if (s->extra_n) {
		x = eg_align(end, 8);
		if (x + s->extra_n <= cap)
			memcpy(buf + x, s->extra, s->extra_n);
		end = x + s->extra_n;
		o.n = end > o.n ? end : o.n;
	}
	shstr = end;
	sname[0] = eg_str(&o, &end, "") - shstr;
	sname[1] = eg_str(&o, &end, ".dynstr") - shstr;
	sname[2] = eg_str(&o, &end, ".dynamic") - shstr;
	sname[3] = eg_str(&o, &end, s->extra_name ? s->extra_name : ".extra") - shstr;
	sname[4] = eg_str(&o, &end, ".shstrtab") - shstr;
	sh = eg_align(end, 8);
	if (!s->no_sections) {
		size_t e = s->is64 ? 64 : 40;
		eg_shdr(&o, sh, (uint32_t)sname[0], 0, 0, 0, 0, 0);
		eg_shdr(&o, sh + e, (uint32_t)sname[1], 3, str, dyn - str, 0, 0);
		eg_shdr(&o, sh + 2 * e, (uint32_t)sname[2], 6, dyn, dyn_end - dyn, 1,
			s->is64 ? 16 : 8);
		eg_shdr(&o, sh + 3 * e, (uint32_t)sname[3], s->extra_type ? s->extra_type : 1, x,
			s->extra_n, s->extra_link, s->extra_entsize);
		eg_shdr(&o, sh + 4 * e, (uint32_t)sname[4], 3, shstr, sh - shstr, 0, 0);
		end = sh + 5 * e;
	}
	eg_phdr(&o, ph, 1, 0, end);
	eg_phdr(&o, ph + phsz, 2, dyn, dyn_end - dyn);
	if (s->interp)
		eg_phdr(&o, ph + 2 * phsz, 3, interp, strlen(s->interp) + 1);
	eg_ehdr(&o, s, nph, s->no_sections ? 0 : sh, s->no_sections ? 0 : 5);
	eg_at_str = str;
	eg_at_dyn = dyn;
	eg_at_extra = x;
	eg_at_sh = sh;
	o.n = end;
	return end <= cap ? end : 0;
}

#endif
