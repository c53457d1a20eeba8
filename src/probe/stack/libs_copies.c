/* libs_copies: for the NVIDIA libraries of the session, the version (from
 * the resolved file name, else the owning wheel's RECORD), the owner, every
 * other copy on disk in the places people install them, and whether the
 * file that loads is the one its requester ships with (its own RPATH or
 * RUNPATH, torch's wheel layout, or its own directory for a sub-library).
 * Bounded: a fixed set of directories (at most COPY_DIRS), each listed once;
 * at most COPIES_MAX copies per library. Paths, owners and versions come
 * from libs_owner.c. */
#include <stdio.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/str.h"
#include "probe/stack/libs_int.h"
#include "probe/stack/libs_util.h"

#define COPY_DIRS  96
#define COPIES_MAX 16

struct cdir {
	const char *path; /* in-root, canonical */
	const char **names;
	size_t n;
};

struct libs_cstate {
	struct cdir dirs[COPY_DIRS];
	size_t n_dirs;
	int dirs_done;
};

static struct libs_cstate *cs_of(struct libs_run *r)
{
	if (!r->copies_state)
		r->copies_state = arena_alloc(&r->f->arena, sizeof(struct libs_cstate));
	return r->copies_state;
}

/* ---- the directories copies are looked for in ------------------------------- */

static void add_dir(struct libs_run *r, struct libs_cstate *cs, const char *dir)
{
	const char *real = libs_canon(r, dir);
	size_t i, n = 0;

	if (!real || cs->n_dirs >= COPY_DIRS)
		return;
	for (i = 0; i < cs->n_dirs; i++)
		if (!strcmp(cs->dirs[i].path, real))
			return;
	cs->dirs[cs->n_dirs].names = libs_list(r, real, &n);
	if (!cs->dirs[cs->n_dirs].names)
		return;
	cs->dirs[cs->n_dirs].path = real;
	cs->dirs[cs->n_dirs].n = n;
	cs->n_dirs++;
}

static void add_subdirs(struct libs_run *r, struct libs_cstate *cs, const char *parent,
			const char *prefix, const char *suffix, const char *const *tails)
{
	const char **names;
	size_t n = 0, i, k;
	int trunc = 0;

	names = fsu_list(&r->f->arena, &r->f->root, parent, prefix, suffix, 64, &n, &trunc);
	for (i = 0; names && i < n; i++)
		for (k = 0; tails[k]; k++)
			add_dir(r, cs,
				arena_printf(&r->f->arena, "%s/%s%s", parent, names[i], tails[k]));
}

static void cache_dirs(struct libs_run *r, struct libs_cstate *cs)
{
	struct ldc_entry e;
	uint32_t i;

	for (i = 0; r->s.cache_ok && i < r->s.cache.n && i < 65536; i++) {
		const char *slash;
		if (ldc_entry_get(&r->s.cache, i, &e) || !libs_is_cuda_name(e.key) ||
		    !(slash = strrchr(e.value, '/')) || (e.hwcap & LDC_HWCAP_EXTENSION))
			continue;
		add_dir(r, cs, arena_strndup(&r->f->arena, e.value, (size_t)(slash - e.value)));
	}
}

static void find_dirs(struct libs_run *r, struct libs_cstate *cs)
{
	/* Where libraries live outside Python: a search list, a reason per row. */
	static const char *const sys[] = {
		"/usr/lib/x86_64-linux-gnu", /* Debian / Ubuntu multiarch (distribution packages) */
		"/lib/x86_64-linux-gnu",     /* the same without merged /usr */
		"/usr/lib/aarch64-linux-gnu", /* Debian / Ubuntu on arm64 (Grace, Jetson) */
		"/usr/lib64",		      /* RHEL, Fedora, SUSE */
		"/lib64",		      /* the same without merged /usr */
		"/usr/lib",		   /* Arch; libraries installed without a multiarch path */
		"/usr/local/lib",	   /* installed by hand (make install) */
		"/usr/local/nvidia/lib64", /* container driver mounts (nvidia-docker 1, GKE) */
		"/usr/local/nvidia/lib",   /* the same volumes' 32-bit libraries */
		"/usr/lib/wsl/lib"};	   /* WSL 2: the Windows driver's libcuda.so */
	static const char *const lib[] = {"/lib", NULL};
	static const char *const none[] = {"", NULL};
	/* In a toolkit: lib64, the x86_64 and arm64-server targets, cuda-compat. */
	static const char *const tk[] = {"/lib64", "/targets/x86_64-linux/lib",
					 "/targets/sbsa-linux/lib", "/compat", NULL};
	const struct cd_python_facts *py = &r->st->python;
	const char *cp = facts_getenv(r->f, "CONDA_PREFIX");
	size_t i;

	if (cs->dirs_done)
		return;
	cs->dirs_done = 1;
	for (i = 0; i < py->n_site; i++) {
		const char *s = py->site[i].path;
		add_subdirs(r, cs, fsu_path(&r->f->arena, s, "nvidia"), NULL, NULL, lib);
		add_dir(r, cs, fsu_path(&r->f->arena, s, "torch/lib"));
		add_subdirs(r, cs, s, NULL, ".libs", none);
	}
	for (i = 0; i < r->f->toolkit.n; i++) {
		size_t k;
		for (k = 0; r->f->toolkit.items[i].root && tk[k]; k++)
			add_dir(r, cs,
				arena_printf(&r->f->arena, "%s%s", r->f->toolkit.items[i].root,
					     tk[k]));
	}
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		add_dir(r, cs, sys[i]);
	add_subdirs(r, cs, "/usr/local", "cuda", NULL, tk);
	if (py->kind && !strcmp(py->kind, "conda"))
		add_dir(r, cs, fsu_path(&r->f->arena, py->prefix, "lib"));
	if (cp && *cp == '/')
		add_dir(r, cs, fsu_path(&r->f->arena, cp, "lib"));
	for (i = 0; i < r->s.n_llp; i++)
		add_dir(r, cs, r->s.llp[i]);
	cache_dirs(r, cs);
}

/* First name >= key in a sorted list. */
static size_t lower(const char **names, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(names[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Copies of soname on disk, other than the file at skip (canonical). */
static struct cd_lib_copy *copies_of(struct libs_run *r, const char *soname, const char *skip,
				     size_t *n_out)
{
	struct libs_cstate *cs = cs_of(r);
	struct cd_lib_copy *out;
	const char *so = strstr(soname, ".so");
	char stem[128];
	size_t d, i, k, n = 0;

	*n_out = 0;
	if (!cs || !so || (size_t)(so - soname) >= sizeof(stem))
		return NULL;
	find_dirs(r, cs);
	out = arena_calloc(&r->f->arena, COPIES_MAX, sizeof(*out));
	snprintf(stem, sizeof(stem), "%.*s", (int)(so - soname), soname);
	for (d = 0; out && d < cs->n_dirs && n < COPIES_MAX; d++) {
		const struct cdir *c = &cs->dirs[d];
		for (i = lower(c->names, c->n, stem);
		     i < c->n && str_has_prefix(c->names[i], stem) && n < COPIES_MAX; i++) {
			const char *at, *real;
			int dup = 0;
			if (!libs_copy_matches(soname, c->names[i]))
				continue;
			at = fsu_path(&r->f->arena, c->path, c->names[i]);
			real = libs_canon(r, at);
			if (!real || (skip && !strcmp(real, skip)))
				continue;
			for (k = 0; k < n; k++)
				dup |= !strcmp(out[k].path, real);
			if (dup)
				continue;
			out[n].path = real;
			libs_version_of(r, at, real, &out[n].version, &out[n].version_source,
					&out[n].owner);
			n++;
		}
	}
	*n_out = n;
	return out;
}

/* ---- the copy the requester ships with ---------------------------------------- */

static const char *dir_of(struct cd_arena *a, const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? arena_strndup(a, path, (size_t)(s - path)) : NULL;
}

/* Where requester `by` means name to come from, and which tag says so: the
 * loader's own search through its tags (ldresolve.h), else, for a library
 * of site-packages, the directories torch's _C names. */
static const char *intended(struct libs_run *r, int by, const char *name, const char **why)
{
	struct ldr_session *s = &r->s;
	const char *hit;
	size_t rel;
	int from;

	hit = ldr_find_by_tags(s, by, name, &from);
	if (hit) {
		*why = arena_printf(&r->f->arena, "%s of %s",
				    s->objs[by].runpath ? "RUNPATH" : "RPATH", s->objs[from].path);
		return hit;
	}
	if (r->c_obj < 0 || libs_site_index(r, s->objs[by].path, &rel) < 0)
		return NULL;
	hit = ldr_find_in_tags(s, r->c_obj, name);
	*why = arena_printf(&r->f->arena, "torch's wheel layout (%s of %s)",
			    s->objs[r->c_obj].runpath ? "RUNPATH" : "RPATH",
			    s->objs[r->c_obj].path);
	return hit;
}

static struct cd_lib_item *item_of(struct libs_run *r, int obj)
{
	size_t i;

	for (i = 0; i < r->L->n_items; i++)
		if (!strcmp(r->L->items[i].path, r->s.objs[obj].path))
			return &r->L->items[i];
	return NULL;
}

static const char *cause(struct libs_run *r, const struct ldr_need *n, struct cd_lib_item *it)
{
	switch (n->rule) {
	case LDR_RULE_LD_LIBRARY_PATH:
		it->shadow_entry = dir_of(&r->f->arena, it->path);
		return arena_printf(&r->f->arena, "LD_LIBRARY_PATH entry %s", it->shadow_entry);
	case LDR_RULE_LD_SO_CACHE: return "/etc/ld.so.cache";
	case LDR_RULE_DEFAULT: return "the default directories";
	case LDR_RULE_LOADED:
		return arena_printf(&r->f->arena, "%s, already loaded (%s) when %s asked for it",
				    it->path, libs_how_name(it->how), n->name);
	default: return NULL;
	}
}

static void shadow_check(struct libs_run *r, size_t k)
{
	const struct ldr_need *n = &r->s.needs[k];
	struct cd_lib_item *it;
	const char *want, *why = NULL, *wv, *ws, *wo;
	struct stat st;

	if (n->obj < 0 || n->by < 0 || strchr(n->name, '/') ||
	    (n->rule != LDR_RULE_LD_LIBRARY_PATH && n->rule != LDR_RULE_LD_SO_CACHE &&
	     n->rule != LDR_RULE_DEFAULT && n->rule != LDR_RULE_LOADED))
		return;
	it = item_of(r, n->obj);
	if (!it || !it->cuda || it->intended || it->mixed)
		return;
	want = intended(r, n->by, n->name, &why);
	if (!want || file_stat(&r->f->root, want, &st) ||
	    (st.st_dev == r->s.objs[n->obj].dev && st.st_ino == r->s.objs[n->obj].ino))
		return;
	it->intended = libs_canon(r, want);
	if (!it->intended)
		it->intended = want;
	libs_version_of(r, want, it->intended, &wv, &ws, &wo);
	it->intended_version = wv;
	it->intended_by = why;
	it->shadow_by = cause(r, n, it);
}

/* A same_dir sub-library that came from elsewhere than its caller. */
static void mixed_check(struct libs_run *r, const struct libs_note *nt)
{
	const struct ldr_need *n = &r->s.needs[nt->need];
	struct cd_lib_item *it, *caller;
	const char *cdir, *odir;

	if (!nt->same_dir || n->obj < 0 || n->by < 0)
		return;
	it = item_of(r, n->obj);
	caller = item_of(r, n->by);
	if (!it || !caller || !it->realpath || !caller->realpath)
		return;
	/* A caller that is itself from the wrong release: compare with where it
	 * should have come from. */
	cdir = dir_of(&r->f->arena, caller->mixed ? caller->intended : caller->realpath);
	odir = dir_of(&r->f->arena, it->realpath);
	if (!cdir || !odir || !strcmp(cdir, odir))
		return;
	it->mixed = 1;
	it->caller_version = caller->mixed ? caller->caller_version : caller->version;
	it->intended = fsu_path(&r->f->arena, cdir, n->name);
	it->intended_by = arena_printf(&r->f->arena, "the directory of %s",
				       caller->mixed ? caller->intended : caller->path);
	if (!file_is_reg(&r->f->root, it->intended))
		it->intended_version = NULL;
	it->shadow_by = cause(r, n, it);
}

void libs_copies(struct libs_run *r)
{
	struct cd_libs_facts *L = r->L;
	size_t i;

	for (i = 0; i < L->n_items; i++) {
		struct cd_lib_item *it = &L->items[i];
		int torchlib = strstr(it->path, "/torch/lib/") != NULL;
		if (!it->cuda && !torchlib)
			continue;
		it->realpath = libs_canon(r, it->path);
		libs_version_of(r, it->path, it->realpath, &it->version, &it->version_source,
				&it->owner);
		if (it->cuda && it->soname)
			it->copies = copies_of(r, it->soname, it->realpath, &it->n_copies);
	}
	for (i = 0; i < L->n_missing; i++)
		if (libs_is_cuda_name(L->missing[i].name))
			L->missing[i].copies =
				copies_of(r, L->missing[i].name, NULL, &L->missing[i].n_copies);
	for (i = 0; i < r->n_notes; i++)
		mixed_check(r, &r->notes[i]);
	for (i = 0; i < r->s.n_needs; i++)
		shadow_check(r, i);
}
