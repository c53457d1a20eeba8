/* ldsearch: one lookup of a name without a slash, in the order of glibc
 * elf/dl-load.c _dl_map_object, and the check of each candidate file in
 * the manner of open_verify: a file of the other ELF class or of another
 * machine is skipped (the search goes on), a file that is not a loadable
 * ELF object stops the search with the loader's error text. The same steps
 * answer, loading nothing, where a requester's own tags lead (the copy it
 * ships with), so no other module expands RPATH, RUNPATH or $ORIGIN. */
#include <string.h>

#include "core/fsutil.h"
#include "format/elf.h"
#include "probe/loader/ldresolve_int.h"

#define MAP_MAX ((size_t)1 << 36) /* mapping is lazy: this only bounds sizes */

struct srch {
	int owner; /* l_loader of an object this search creates */
	int other_class;
	const char *fatal;
	int obj;
	int look;	   /* find the file only: no object is created */
	const char *found; /* look: the candidate that passed */
};

/* The header checks of open_verify, in its order. */
static enum ldr_try verify(const struct ldr_platform *p, const uint8_t *b, size_t n,
			   const char **why)
{
	struct elf_file e;
	size_t ehdr = p->is64 ? 64 : 52;

	if (n < ehdr) {
		*why = "file too short";
		return LDR_TRY_FATAL;
	}
	if (memcmp(b, "\177ELF", 4) != 0) {
		*why = "invalid ELF header";
		return LDR_TRY_FATAL;
	}
	if (b[4] != (p->is64 ? 2 : 1)) {
		*why = b[4] == 1 ? "wrong ELF class: ELFCLASS32" : "wrong ELF class: ELFCLASS64";
		return LDR_TRY_SKIP_CLASS;
	}
	*why = p->be ? "ELF file data encoding not big-endian"
		     : "ELF file data encoding not little-endian";
	if (b[5] != (p->be ? 2 : 1))
		return LDR_TRY_FATAL;
	*why = "ELF file version ident does not match current one";
	if (b[6] != 1)
		return LDR_TRY_FATAL;
	*why = "ELF file OS ABI invalid";
	if (b[7] != 0 && b[7] != 3)
		return LDR_TRY_FATAL;
	*why = "ELF file ABI version invalid";
	if (b[8] != 0 && !(b[7] == 3 && b[8] < 4))
		return LDR_TRY_FATAL;
	*why = "nonzero padding in e_ident";
	if (memcmp(b + 9, "\0\0\0\0\0\0\0", 7) != 0)
		return LDR_TRY_FATAL;
	if (elf_parse(b, n, &e, NULL) != 0 && (e.type == 0 || e.machine == 0)) {
		*why = "invalid ELF header";
		return LDR_TRY_FATAL;
	}
	*why = "wrong machine";
	if (e.machine != p->machine)
		return LDR_TRY_SKIP;
	*why = "only ET_DYN and ET_EXEC can be loaded";
	if (e.type != ELF_ET_DYN && e.type != ELF_ET_EXEC)
		return LDR_TRY_FATAL;
	*why = "ELF file's phentsize not the expected size";
	if (e.phentsize != (p->is64 ? 56 : 32))
		return LDR_TRY_FATAL;
	*why = NULL;
	return LDR_TRY_OK;
}

/* Open path and check it as open_verify does; on LDR_TRY_OK *m holds it. */
static enum ldr_try open_verify(struct ldr_session *s, const char *path, struct cd_fmap *m,
				const char **why)
{
	struct cd_err err = {0};
	enum ldr_try t;
	int rc;

	*why = NULL;
	rc = fmap_open(s->root, ldr_fs_path(s, path), MAP_MAX, m, &err);
	if (rc == CD_ENOENT)
		return LDR_TRY_NOENT;
	if (rc && file_is_dir(s->root, ldr_fs_path(s, path))) {
		*why = "cannot read file data: Is a directory"; /* open works, read fails */
		return LDR_TRY_FATAL;
	}
	if (rc) {
		*why = arena_strdup(s->a, err.msg);
		return LDR_TRY_SKIP; /* unreadable (EACCES): glibc goes on */
	}
	t = verify(&s->plat, m->p, m->n, why);
	if (t != LDR_TRY_OK)
		fmap_close(m);
	return t;
}

enum ldr_try ldr_try_file(struct ldr_session *s, const char *path, const char *name, int loader,
			  int *obj, const char **why)
{
	struct cd_fmap m;
	enum ldr_try t;
	size_t i;

	*obj = -1;
	t = open_verify(s, path, &m, why);
	if (t != LDR_TRY_OK)
		return t;
	/* The same file under another name is the object already loaded. */
	for (i = 0; i < s->n_objs && *obj < 0; i++)
		if (s->objs[i].dev == m.dev && s->objs[i].ino == m.ino)
			*obj = (int)i;
	if (*obj < 0)
		*obj = ldr_add_object(s, path, name, loader, &m);
	if (*obj < 0) {
		*why = "too many objects";
		t = LDR_TRY_FATAL;
	}
	fmap_close(&m);
	return t;
}

/* One candidate of a search: loaded, or only checked when st->look. */
static enum ldr_try try_cand(struct ldr_session *s, const char *path, const char *name,
			     struct srch *st, const char **why)
{
	struct cd_fmap m;
	enum ldr_try t;
	int obj;

	if (!st->look) {
		t = ldr_try_file(s, path, name, st->owner, &obj, why);
		if (t == LDR_TRY_OK)
			st->obj = obj;
		return t;
	}
	t = open_verify(s, path, &m, why);
	if (t == LDR_TRY_OK) {
		fmap_close(&m);
		st->found = path;
	}
	return t;
}

static int try_dirs(struct ldr_session *s, const char *const *dirs, size_t n, const char *name,
		    struct srch *st)
{
	const char *why;
	size_t i;

	for (i = 0; i < n; i++) {
		switch (try_cand(s, fsu_path(s->a, dirs[i], name), name, st, &why)) {
		case LDR_TRY_OK: return 1;
		case LDR_TRY_SKIP_CLASS: st->other_class = 1; break;
		case LDR_TRY_FATAL: st->fatal = why; return -1;
		default: break;
		}
	}
	return 0;
}

static void obj_dirs(struct ldr_session *s, int i, int runpath)
{
	struct ldr_obj *o = &s->objs[i];

	/* Out of memory: the list is not searched, and the session says so. */
	if (runpath && !o->runpath_done && o->runpath) {
		if (ldr_split_dirs(s, o->runpath, ":", o->origin, &o->runpath_dirs,
				   &o->n_runpath_dirs) != 0)
			s->truncated = 1;
		o->runpath_done = 1;
	} else if (!runpath && !o->rpath_done && o->rpath) {
		if (ldr_split_dirs(s, o->rpath, ":", o->origin, &o->rpath_dirs, &o->n_rpath_dirs) !=
		    0)
			s->truncated = 1;
		o->rpath_done = 1;
	}
}

/* RUNPATH of the requester itself: never inherited. */
static int try_runpath(struct ldr_session *s, int loader, struct ldr_need *need, struct srch *st)
{
	int r;

	obj_dirs(s, loader, 1);
	r = try_dirs(s, s->objs[loader].runpath_dirs, s->objs[loader].n_runpath_dirs, need->name,
		     st);
	if (r > 0)
		need->tag_from = loader;
	return r;
}

/* RPATH of the loader chain, then of the executable (loader has no RUNPATH). */
static int try_rpaths(struct ldr_session *s, int loader, struct ldr_need *need, struct srch *st)
{
	int l, r, did_main = 0;

	for (l = loader; l >= 0; l = s->objs[l].loader) {
		if (!s->objs[l].rpath)
			continue;
		obj_dirs(s, l, 0);
		r = try_dirs(s, s->objs[l].rpath_dirs, s->objs[l].n_rpath_dirs, need->name, st);
		if (r) {
			need->tag_from = l;
			return r;
		}
		did_main |= l == s->main;
	}
	l = s->main;
	if (did_main || l < 0 || !s->objs[l].rpath)
		return 0;
	obj_dirs(s, l, 0);
	r = try_dirs(s, s->objs[l].rpath_dirs, s->objs[l].n_rpath_dirs, need->name, st);
	if (r)
		need->tag_from = l;
	return r;
}

/* Under DF_1_NODEFLIB a cache entry inside a default directory is not used. */
static int in_sysdir(const struct ldr_session *s, const char *path)
{
	size_t i, n;

	for (i = 0; i < s->plat.n_sysdirs; i++) {
		n = strlen(s->plat.sysdirs[i]);
		if (!strncmp(path, s->plat.sysdirs[i], n) && path[n] == '/')
			return 1;
	}
	return 0;
}

static int try_cache(struct ldr_session *s, int loader, struct ldr_need *need, struct srch *st)
{
	struct ldc_entry e;
	const char *why;

	if (!s->cache_ok ||
	    ldc_lookup(&s->cache, need->name, s->plat.cache_flags, &e, &need->hwcaps_candidates))
		return 0;
	if (s->objs[loader].nodeflib && in_sysdir(s, e.value))
		return 0;
	switch (try_cand(s, arena_strdup(s->a, e.value), need->name, st, &why)) {
	case LDR_TRY_OK: return 1;
	case LDR_TRY_SKIP_CLASS: st->other_class = 1; return 0;
	case LDR_TRY_FATAL: st->fatal = why; return -1;
	default: return 0;
	}
}

void ldr_search(struct ldr_session *s, int loader, struct ldr_need *need)
{
	struct srch st = {need->kind == LDR_KIND_DLOPEN ? -1 : loader, 0, NULL, -1, 0, NULL};
	int has_runpath = s->objs[loader].runpath != NULL; /* objs may move: no pointers */
	int r = 0;

	need->tag_from = -1;
	if (!has_runpath && (r = try_rpaths(s, loader, need, &st)) > 0)
		need->rule = LDR_RULE_RPATH;
	if (!r && (r = try_dirs(s, s->llp, s->n_llp, need->name, &st)) > 0)
		need->rule = LDR_RULE_LD_LIBRARY_PATH;
	if (!r && has_runpath && (r = try_runpath(s, loader, need, &st)) > 0)
		need->rule = LDR_RULE_RUNPATH;
	if (!r && (r = try_cache(s, loader, need, &st)) > 0)
		need->rule = LDR_RULE_LD_SO_CACHE;
	if (!r && !s->objs[loader].nodeflib &&
	    (r = try_dirs(s, s->plat.sysdirs, s->plat.n_sysdirs, need->name, &st)) > 0)
		need->rule = LDR_RULE_DEFAULT;
	if (r > 0) {
		need->obj = st.obj;
		return;
	}
	need->rule = LDR_RULE_NONE;
	need->tag_from = -1;
	need->obj = -1;
	if (st.fatal)
		need->error = st.fatal;
	else if (st.other_class) /* glibc names the class of the file it skipped */
		need->error = s->plat.is64 ? "wrong ELF class: ELFCLASS32"
					   : "wrong ELF class: ELFCLASS64";
	else
		need->error = "cannot open shared object file: No such file or directory";
}

static int look_ok(const struct ldr_session *s, int obj, const char *name)
{
	return obj >= 0 && (size_t)obj < s->n_objs && name && *name && !strchr(name, '/');
}

const char *ldr_find_by_tags(struct ldr_session *s, int by, const char *name, int *tag_from)
{
	struct srch st = {-1, 0, NULL, -1, 1, NULL};
	struct ldr_need need;
	int r;

	*tag_from = -1;
	if (!look_ok(s, by, name))
		return NULL;
	memset(&need, 0, sizeof(need));
	need.name = name;
	need.tag_from = -1;
	r = s->objs[by].runpath ? try_runpath(s, by, &need, &st) : try_rpaths(s, by, &need, &st);
	if (r <= 0)
		return NULL;
	*tag_from = need.tag_from;
	return st.found;
}

const char *ldr_find_in_tags(struct ldr_session *s, int obj, const char *name)
{
	struct srch st = {-1, 0, NULL, -1, 1, NULL};
	struct ldr_need need;
	int r = 0;

	if (!look_ok(s, obj, name))
		return NULL;
	memset(&need, 0, sizeof(need));
	need.name = name;
	if (s->objs[obj].runpath) {
		r = try_runpath(s, obj, &need, &st);
	} else if (s->objs[obj].rpath) {
		obj_dirs(s, obj, 0);
		r = try_dirs(s, s->objs[obj].rpath_dirs, s->objs[obj].n_rpath_dirs, name, &st);
	}
	return r > 0 ? st.found : NULL;
}
