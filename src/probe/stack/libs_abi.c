/* libs_abi: the "undefined symbol" ImportError, predicted. For each
 * extension that links libtorch / libc10, every undefined, non-weak symbol
 * of torch's namespaces (c10::, at::, torch::, caffe2::, their vtables and
 * type infos, and the THP* C API of libtorch_python) it imports must be
 * defined by one of the installed torch's libraries (torch/lib/libtorch*.so,
 * libc10*.so, libshm.so). Python opens extensions with RTLD_NOW, so one
 * missing function fails the import. Lookups go through each library's own
 * hash table (elfhash.h): nothing the size of libtorch_cpu.so's symbol table
 * is read or built. At most ABI_EXT extensions are checked (all under
 * `check --deep`). */
#include <string.h>

#include "core/str.h"
#include "format/elf.h"
#include "format/elfhash.h"
#include "core/fmap.h"
#include "core/fsutil.h"
#include "probe/stack/libs_int.h"

#define ABI_EXT	     32
#define TORCH_LIBS   16
#define FILE_MAX     ((size_t)1 << 36)
#define STB_WEAK     2
#define RELEASE_SYMS 65536u

struct tlib {
	struct cd_fmap m;
	struct elf_file e;
	struct elfhash h;
};

/* A symbol of torch's own namespaces (Itanium C++ ABI nested names). */
static int torch_symbol(const char *s)
{
	if (!strncmp(s, "THP", 3))
		return 1;
	if (strncmp(s, "_Z", 2))
		return 0;
	s += 2;
	if (s[0] == 'T' && (s[1] == 'V' || s[1] == 'I' || s[1] == 'S'))
		s += 2; /* vtable, typeinfo, typeinfo name */
	if (*s != 'N')
		return 0;
	s++;
	while (*s == 'K' || *s == 'V' || *s == 'r')
		s++; /* cv-qualifiers of a member function */
	return !strncmp(s, "3c10", 4) || !strncmp(s, "2at", 3) || !strncmp(s, "5torch", 6) ||
	       !strncmp(s, "6caffe2", 7);
}

static size_t open_torch(struct libs_run *r, struct tlib *t)
{
	const char *dir = fsu_path(&r->f->arena, r->st->torch.path, "lib");
	const char **names;
	size_t n = 0, i, k = 0;
	int trunc = 0;

	names = dir ? fsu_list(&r->f->arena, &r->f->root, dir, "lib", ".so", 64, &n, &trunc) : NULL;
	for (i = 0; names && i < n && k < TORCH_LIBS; i++) {
		const char *p;
		if (!str_has_prefix(names[i], "libtorch") && !str_has_prefix(names[i], "libc10") &&
		    strcmp(names[i], "libshm.so"))
			continue;
		p = fsu_path(&r->f->arena, dir, names[i]);
		memset(&t[k], 0, sizeof(t[k]));
		if (!p || fmap_open(&r->f->root, p, FILE_MAX, &t[k].m, NULL) ||
		    elf_parse(t[k].m.p, t[k].m.n, &t[k].e, NULL) ||
		    elfhash_open(&t[k].e, &t[k].h, NULL)) {
			fmap_close(&t[k].m);
			continue;
		}
		k++;
	}
	return k;
}

/* The undefined torch symbols of the extension x, each looked up in torch's
 * libraries. The symbol table is read one entry at a time (a .dynsym header
 * may claim 16 million entries), and its pages are dropped from the mapping
 * every RELEASE_SYMS entries, so neither an array nor the pages add up. */
static void check_one(struct libs_run *r, struct cd_ext *x, const struct tlib *t, size_t nt)
{
	struct cd_fmap m;
	struct elf_file e;
	struct elf_dynsym_iter it;
	struct elf_sym sym;
	struct cd_err err = {0};
	size_t k;
	int rc;

	memset(&m, 0, sizeof(m));
	if (fmap_open(&r->f->root, x->path, FILE_MAX, &m, &err) || elf_parse(m.p, m.n, &e, &err) ||
	    elf_dynsym_open(&e, &r->f->arena, &it, &err)) {
		x->error = arena_strdup(&r->f->arena, err.msg);
		fmap_close(&m);
		return;
	}
	while ((rc = elf_dynsym_next(&it, &sym, &err)) == 1) {
		int found = 0;
		if (it.i % RELEASE_SYMS == 0)
			fmap_release(&m, m.p, m.p + m.n);
		if (sym.defined || sym.bind == STB_WEAK || !sym.name || !torch_symbol(sym.name))
			continue;
		x->n_torch_imports++;
		for (k = 0; k < nt && !found; k++)
			found = elfhash_defines(&t[k].h, sym.name);
		if (found)
			continue;
		if (x->n_missing < LIBS_ABI_SHOWN)
			x->missing[x->n_missing] = arena_strdup(&r->f->arena, sym.name);
		x->n_missing++;
	}
	if (rc) { /* a corrupt entry leaves no verdict: the counts so far are dropped */
		x->error = arena_strdup(&r->f->arena, err.msg);
		x->n_torch_imports = x->n_missing = 0;
	} else {
		x->abi_checked = 1;
	}
	fmap_close(&m);
}

void libs_abi(struct libs_run *r)
{
	struct tlib t[TORCH_LIBS];
	size_t nt = 0, i, done = 0;

	for (i = 0; i < r->L->n_ext; i++)
		if (r->L->ext[i].links_torch && !r->L->ext[i].error)
			break;
	if (i == r->L->n_ext)
		return;
	nt = open_torch(r, t);
	if (!nt)
		return; /* no torch library to check against: unknown, not a mismatch */
	for (i = 0; i < r->L->n_ext; i++) {
		struct cd_ext *x = &r->L->ext[i];
		if (!x->links_torch || x->error)
			continue;
		if (done++ >= ABI_EXT && !r->L->deep)
			break;
		check_one(r, x, t, nt);
	}
	for (i = 0; i < nt; i++)
		fmap_close(&t[i].m);
}
