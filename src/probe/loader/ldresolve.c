/* ldresolve: the session - objects, needs, the breadth-first walk of
 * DT_NEEDED (glibc elf/dl-deps.c _dl_map_object_deps), preloads (elf/rtld.c:
 * LD_PRELOAD, then /etc/ld.so.preload, searched as needs of the program) and
 * dlopen (elf/dl-open.c: the caller's rules find the object, which then has
 * no loader of its own). Before any search a name is matched against the
 * objects already loaded: by a name it was requested under, by its path and
 * by its DT_SONAME (_dl_name_match_p / _dl_lookup_map). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/vec.h"
#include "format/elf.h"
#include "probe/loader/ldresolve_int.h"

#define CACHE_PATH "/etc/ld.so.cache"
#define CACHE_MAX  ((size_t)256 << 20)
#define MAIN_MAX   ((size_t)1 << 36)

struct ldr_alias {
	const char *name;
	struct ldr_alias *next;
};

static const char *const rule_names[] = {NULL,		"main",	  "preload",	     "loaded",
					 "path",	"rpath",  "ld_library_path", "runpath",
					 "ld_so_cache", "default"};

const char *ldr_rule_name(enum ldr_rule r)
{
	return (unsigned)r < sizeof(rule_names) / sizeof(rule_names[0]) ? rule_names[r] : NULL;
}

const char *ldr_kind_name(enum ldr_kind k)
{
	return k == LDR_KIND_PRELOAD ? "preload" : k == LDR_KIND_DLOPEN ? "dlopen" : "needed";
}

void ldr_init(struct ldr_session *s, const struct cd_root *root, const struct ldr_config *cfg,
	      struct cd_arena *a)
{
	memset(s, 0, sizeof(*s));
	s->root = root;
	s->a = a;
	if (cfg)
		s->cfg = *cfg;
	s->main = -1;
	s->rtld = -1;
	s->cache_error = "not read";
}

void ldr_free(struct ldr_session *s)
{
	fmap_close(&s->cache_map);
	free(s->objs);
	free(s->needs);
	free(s->order);
	s->objs = NULL;
	s->needs = NULL;
	s->order = NULL;
	s->n_objs = s->n_needs = s->n_order = 0;
}

static int new_obj(struct ldr_session *s)
{
	struct ldr_obj *objs = vec_grow(NULL, s->objs, &s->cap_objs, s->n_objs, sizeof(*objs), 16,
					LDR_MAX_OBJECTS);
	int *order = NULL;

	if (objs) {
		s->objs = objs;
		order = vec_grow(NULL, s->order, &s->cap_order, s->n_order, sizeof(*order), 16,
				 LDR_MAX_OBJECTS);
	}
	if (!order) {
		s->truncated = 1;
		return -1;
	}
	s->order = order;
	memset(&s->objs[s->n_objs], 0, sizeof(s->objs[0]));
	s->objs[s->n_objs].loader = -1;
	return (int)s->n_objs++;
}

static void add_alias(struct ldr_session *s, int i, const char *name)
{
	struct ldr_alias *al;

	for (al = s->objs[i].aliases; al; al = al->next)
		if (!strcmp(al->name, name))
			return;
	al = arena_alloc(s->a, sizeof(*al));
	if (!al)
		return;
	al->name = arena_strdup(s->a, name);
	al->next = s->objs[i].aliases;
	s->objs[i].aliases = al;
}

static int list_obj(struct ldr_session *s, int i)
{
	if (s->objs[i].listed)
		return 0;
	s->objs[i].listed = 1;
	s->order[s->n_order++] = i;
	return 1;
}

static void fill_dynamic(struct ldr_session *s, struct ldr_obj *o, const struct cd_fmap *m)
{
	struct elf_file e;
	struct elf_dynamic d;
	struct cd_err err = {0};

	if (elf_parse(m->p, m->n, &e, &err) || elf_dynamic_read(&e, s->a, &d, &err)) {
		o->error = arena_strdup(s->a, err.msg);
		return;
	}
	o->machine = e.machine;
	o->type = e.type;
	o->is64 = e.is64;
	o->soname = d.soname;
	o->needed = d.needed;
	o->n_needed = d.n_needed;
	o->rpath_tag = d.rpath;
	o->runpath = d.runpath;
	o->rpath = d.runpath ? NULL : d.rpath; /* elf_get_dynamic_info drops RPATH */
	o->flags_1 = d.flags_1;
	o->nodeflib = (d.flags_1 & ELF_DF_1_NODEFLIB) != 0;
}

int ldr_add_object(struct ldr_session *s, const char *path, const char *name, int loader,
		   const struct cd_fmap *m)
{
	int i = new_obj(s);
	struct ldr_obj *o;

	if (i < 0)
		return -1;
	o = &s->objs[i];
	o->name = arena_strdup(s->a, name);
	o->path = arena_strdup(s->a, path);
	o->origin = ldr_origin(s, path);
	o->loader = loader;
	o->dev = m->dev;
	o->ino = m->ino;
	fill_dynamic(s, o, m);
	add_alias(s, i, name);
	return i;
}

static int lookup_loaded(const struct ldr_session *s, const char *name)
{
	const struct ldr_alias *al;
	size_t i;

	for (i = 0; i < s->n_objs; i++) {
		const struct ldr_obj *o = &s->objs[i];
		if (!strcmp(o->path, name) || (o->soname && !strcmp(o->soname, name)))
			return (int)i;
		for (al = o->aliases; al; al = al->next)
			if (!strcmp(al->name, name))
				return (int)i;
	}
	return -1;
}

static void resolve_path(struct ldr_session *s, int by, struct ldr_need *need)
{
	const char *x = ldr_expand(s, need->name, by >= 0 ? s->objs[by].origin : NULL), *why;
	int owner = need->kind == LDR_KIND_DLOPEN ? -1 : by, obj;

	need->obj = -1;
	if (!x) {
		need->error = "empty dynamic string token substitution";
		return;
	}
	switch (ldr_try_file(s, x, need->name, owner, &obj, &why)) {
	case LDR_TRY_OK:
		need->obj = obj;
		need->rule = LDR_RULE_PATH;
		return;
	case LDR_TRY_FATAL:
	case LDR_TRY_SKIP_CLASS: need->error = why; return;
	default: need->error = "cannot open shared object file: No such file or directory"; return;
	}
}

/* One request for name by objs[by]; returns the need's index or -1. */
static int resolve_one(struct ldr_session *s, const char *name, int by, enum ldr_kind kind)
{
	size_t before = s->n_objs;
	struct ldr_need *need;
	int ni, hit;

	need = vec_grow(NULL, s->needs, &s->cap_needs, s->n_needs, sizeof(*need), 16,
			LDR_MAX_NEEDS);
	if (!need) {
		s->truncated = 1;
		return -1;
	}
	s->needs = need;
	ni = (int)s->n_needs++;
	need = &s->needs[ni];
	memset(need, 0, sizeof(*need));
	need->name = name;
	need->kind = kind;
	need->by = by;
	need->obj = -1;
	need->tag_from = -1;
	hit = *name ? lookup_loaded(s, name) : -1;
	if (!*name) {
		need->error = "empty library name";
	} else if (hit >= 0) {
		need->obj = hit;
		need->rule = LDR_RULE_LOADED;
		add_alias(s, hit, name);
	} else if (strchr(name, '/')) {
		resolve_path(s, by, need);
	} else {
		ldr_search(s, by, need);
	}
	if (need->obj >= 0) {
		need->path = s->objs[need->obj].path;
		need->new_object = s->n_objs > before;
		if (need->obj == s->rtld || need->new_object)
			need->listed_here = list_obj(s, need->obj);
		if (need->new_object && kind == LDR_KIND_DLOPEN)
			s->objs[need->obj].is_dlopen = 1;
	}
	return ni;
}

/* Breadth-first: objects are appended as they are created, so walking the
 * table from `from` visits them in the order _dl_map_object_deps does. */
static void walk_needs(struct ldr_session *s, size_t from)
{
	const char *name;
	size_t i, k;

	for (i = from; i < s->n_objs; i++) {
		if (s->objs[i].is_rtld)
			continue;
		for (k = 0; k < s->objs[i].n_needed; k++) {
			/* dl-deps.c expand_dst: tokens in DT_NEEDED are expanded
			 * first, slash or not; a token without a value makes the
			 * loader skip the entry without a word. */
			name = s->objs[i].needed[k];
			if (strchr(name, '$'))
				name = ldr_expand(s, name, s->objs[i].origin);
			if (!name || !*name)
				continue;
			if (resolve_one(s, name, (int)i, LDR_KIND_NEEDED) < 0)
				return;
		}
	}
}

static void preload_list(struct ldr_session *s, const char *list, const char *seps)
{
	const char *p = list;
	int ni;

	while (*p) {
		size_t len = strcspn(p, seps);
		if (len) {
			ni = resolve_one(s, arena_strndup(s->a, p, len), s->main, LDR_KIND_PRELOAD);
			if (ni >= 0 && s->needs[ni].obj >= 0) {
				s->needs[ni].rule = LDR_RULE_PRELOAD;
				s->objs[s->needs[ni].obj].is_preload = 1;
			}
		}
		p += len;
		if (*p)
			p++;
	}
}

static void load_preloads(struct ldr_session *s)
{
	struct cd_buf b;

	if (s->cfg.ld_preload)
		preload_list(s, s->cfg.ld_preload, " :");
	if (s->cfg.no_etc_preload)
		return;
	buf_init(&b, 0);
	if (file_read(s->root, "/etc/ld.so.preload", 1 << 20, &b, NULL) == 0 && b.p)
		preload_list(s, b.p, " \t\n:");
	buf_free(&b);
}

static void load_cache(struct ldr_session *s)
{
	struct cd_err err = {0};

	if (s->cfg.inhibit_cache) {
		s->cache_error = "inhibited";
		return;
	}
	if (s->plat.cache_flags < 0) {
		s->cache_error = "the cache flags of this machine are not known";
		return;
	}
	if (fmap_open(s->root, CACHE_PATH, CACHE_MAX, &s->cache_map, &err) ||
	    ldc_parse(s->cache_map.p, s->cache_map.n, &s->cache, &err)) {
		s->cache_error = err.code == CD_ENOENT ? "absent" : arena_strdup(s->a, err.msg);
		fmap_close(&s->cache_map);
		return;
	}
	s->cache_ok = 1;
	s->cache_error = NULL;
}

/* The interpreter is loaded before anything else; it answers to its path
 * and its SONAME, and ldd lists it only once something needs it. */
static void add_rtld(struct ldr_session *s)
{
	struct cd_fmap m;
	const char *base;
	int i;

	if (!s->plat.rtld)
		return;
	if (fmap_open(s->root, s->plat.rtld, MAIN_MAX, &m, NULL) == 0) {
		i = ldr_add_object(s, s->plat.rtld, s->plat.rtld, -1, &m);
		fmap_close(&m);
	} else {
		i = new_obj(s);
		if (i >= 0) {
			s->objs[i].name = s->objs[i].path = s->plat.rtld;
			s->objs[i].origin = ldr_origin(s, s->plat.rtld);
			s->objs[i].error = "the interpreter is not present";
		}
	}
	if (i < 0)
		return;
	s->rtld = i;
	s->objs[i].is_rtld = 1;
	s->objs[i].n_needed = 0; /* ld.so's own needs are not the program's */
	base = strrchr(s->plat.rtld, '/');
	if (!s->objs[i].soname)
		s->objs[i].soname = base ? base + 1 : s->plat.rtld;
}

/* exec: glibc takes an execve'd program's $ORIGIN from /proc/self/exe, the
 * path the kernel resolved; `ld.so FILE` (and every other object) keeps the
 * directory of the path it was opened by. */
static int load_main(struct ldr_session *s, const char *path, int exec, struct cd_err *err)
{
	struct cd_fmap m;
	struct elf_file e;
	struct cd_err perr = {0};
	const char *abs = ldr_fs_path(s, path), *interp = NULL;
	int rc;

	rc = fmap_open(s->root, abs, MAIN_MAX, &m, err);
	if (rc)
		return rc;
	if (elf_parse(m.p, m.n, &e, &perr)) {
		fmap_close(&m);
		return err_set(err, CD_EFORMAT, "%s: not an ELF object (%s)", abs, perr.msg);
	}
	if (elf_interp(&e, &interp))
		interp = NULL;
	s->main_interp = interp ? arena_strdup(s->a, interp) : NULL;
	ldr_platform_init(s, e.machine, e.is64, e.be, interp);
	load_cache(s);
	s->main = ldr_add_object(s, abs, abs, -1, &m);
	fmap_close(&m);
	if (s->main < 0)
		return err_set(err, CD_ENOMEM, "out of memory");
	s->objs[s->main].is_main = 1;
	if (exec) {
		char real[PATH_MAX];
		if (file_realpath(s->root, abs, real, sizeof(real)) == 0)
			s->objs[s->main].origin = ldr_origin(s, real);
	}
	list_obj(s, s->main);
	add_rtld(s);
	if (s->cfg.ld_library_path && *s->cfg.ld_library_path &&
	    ldr_split_dirs(s, s->cfg.ld_library_path, ":;", s->objs[s->main].origin, &s->llp,
			   &s->n_llp) != 0)
		s->truncated = 1; /* out of memory: LD_LIBRARY_PATH is not searched */
	load_preloads(s);
	walk_needs(s, 0);
	return 0;
}

int ldr_load_main(struct ldr_session *s, const char *path, struct cd_err *err)
{
	return load_main(s, path, 0, err);
}

int ldr_load_exec(struct ldr_session *s, const char *path, struct cd_err *err)
{
	return load_main(s, path, 1, err);
}

int ldr_dlopen(struct ldr_session *s, int caller, const char *name, int *obj, struct cd_err *err)
{
	size_t from = s->n_objs;
	int ni;

	*obj = -1;
	if (caller < 0 || (size_t)caller >= s->n_objs)
		return err_set(err, CD_ERANGE, "dlopen: no caller object %d", caller);
	ni = resolve_one(s, arena_strdup(s->a, name), caller, LDR_KIND_DLOPEN);
	if (ni < 0)
		return err_set(err, CD_ENOMEM, "too many needs");
	*obj = s->needs[ni].obj;
	walk_needs(s, from);
	return 0;
}
