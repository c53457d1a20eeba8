/* jit_cache: the torch extensions cache. Its root is $TORCH_EXTENSIONS_DIR
 * (used as is), else torch._appdirs.user_cache_dir('torch_extensions'):
 * $XDG_CACHE_HOME or ~/.cache, then torch_extensions. Without
 * TORCH_EXTENSIONS_DIR, torch 2.x builds under a py<XY>_cu<XYZ> (or _cpu)
 * folder; older releases and TORCH_EXTENSIONS_DIR put each extension's folder
 * directly in the root. An extension folder holds build.ninja, the objects,
 * <name>.so, and while a build runs the `lock` file of torch's FileBaton
 * (created with O_EXCL, removed when the build ends; a build killed in
 * between leaves it, and the next load waits on it forever). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fsutil.h"
#include "core/str.h"
#include "probe/jit/jit.h"

#define SCAN_MAX 4096

static struct jit_cache_item *item(struct jit_cache *c, enum jit_cache_kind k, const char *path)
{
	if (c->n >= JIT_CACHE_MAX) {
		c->truncated = 1;
		return NULL;
	}
	c->items[c->n].kind = k;
	c->items[c->n].path = path;
	c->items[c->n].age_s = CD_UNK;
	return &c->items[c->n++];
}

static void root_dir(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_cache *c = &jf->cache;
	const struct jit_env *e = &jf->env;

	if (e->ext_dir && *e->ext_dir)
		c->root = e->ext_dir, c->via = "TORCH_EXTENSIONS_DIR";
	else if (e->xdg_cache && e->xdg_cache[0] == '/')
		c->root = fsu_path(&f->arena, e->xdg_cache, "torch_extensions"),
		c->via = "XDG_CACHE_HOME";
	else if (e->home && e->home[0] == '/')
		c->root = fsu_path(&f->arena, e->home, ".cache/torch_extensions"), c->via = "HOME";
}

/* "py312_cu130" -> py "3.12", cu "13.0" (or "cpu"); 0 when it has that shape. */
static int versioned_name(const char *n, char *py, size_t pcap, char *cu, size_t ccap)
{
	const char *u = strchr(n, '_');
	size_t d = 0, k;

	if (strncmp(n, "py", 2) || !u)
		return -1;
	while (n[2 + d] >= '0' && n[2 + d] <= '9')
		d++;
	if (d < 2 || d > 3 || (n + 2 + d != u && !(n[2 + d] == 't' && n + 3 + d == u)))
		return -1;
	snprintf(py, pcap, "%c.%.*s", n[2], (int)(d - 1), n + 3);
	if (!strcmp(u + 1, "cpu")) {
		str_copy(cu, ccap, "cpu");
		return 0;
	}
	if (strncmp(u + 1, "cu", 2))
		return strncmp(u + 1, "rocm", 4) && strcmp(u + 1, "xpu") ? -1 : 1;
	for (k = 3; u[k]; k++)
		if (u[k] < '0' || u[k] > '9' || k > 6)
			return -1;
	if (k < 5)
		return -1;
	snprintf(cu, ccap, "%.*s.%c", (int)(k - 4), u + 3, u[k - 1]);
	return 0;
}

static int64_t age(const struct stat *st, int64_t now)
{
	return now > 0 && (int64_t)st->st_mtime <= now ? now - (int64_t)st->st_mtime : CD_UNK;
}

/* A flat-layout build.ninja: which nvcc and Python was it written for? */
static void foreign(struct cd_facts *f, struct cd_jit_facts *jf, const char *dir)
{
	size_t len = 0;
	char *s = jit_slurp(f, fsu_path(&f->arena, dir, "build.ninja"), 1 << 20, &len);
	char nvcc[PATH_MAX], pyv[16];
	struct jit_cache_item *it;

	if (!s)
		return;
	if (jp_kv((const uint8_t *)s, len, "nvcc", '=', nvcc, sizeof(nvcc)) == 0 && jf->tk.nvcc &&
	    strcmp(nvcc, jf->tk.nvcc) && (it = item(&jf->cache, JIT_C_FOREIGN, dir)))
		it->detail = arena_printf(&f->arena, "built with %s; CUDA_HOME now gives %s", nvcc,
					  jf->tk.nvcc);
	else if (jp_find_python_version((const uint8_t *)s, len, pyv, sizeof(pyv)) == 0 &&
		 jf->py.version && strcmp(pyv, jf->py.version) &&
		 (it = item(&jf->cache, JIT_C_FOREIGN, dir)))
		it->detail = arena_printf(&f->arena, "built for Python %s; the environment has %s",
					  pyv, jf->py.version);
}

static void build_dir(struct cd_facts *f, struct cd_jit_facts *jf, const char *dir,
		      const char *name, int flat, int64_t now)
{
	struct jit_cache_item *it;
	struct stat st, so;
	const char *lock = fsu_path(&f->arena, dir, "lock");
	int has_so, has_ninja;

	jf->cache.n_builds++;
	if (file_lstat(&f->root, lock, &st) == 0 &&
	    (it = item(&jf->cache, S_ISDIR(st.st_mode) ? JIT_C_LOCK_DIR : JIT_C_LOCK, lock)))
		it->age_s = age(&st, now);
	has_so = file_stat(&f->root, arena_printf(&f->arena, "%s/%s.so", dir, name), &so) == 0;
	has_ninja = file_exists(&f->root, fsu_path(&f->arena, dir, "build.ninja"));
	if (has_ninja && !has_so && (it = item(&jf->cache, JIT_C_HALF_BUILT, dir)))
		it->detail = arena_printf(&f->arena, "build.ninja without %s.so", name);
	if (has_so && jf->py.torch_mtime != CD_UNK && (int64_t)so.st_mtime < jf->py.torch_mtime &&
	    (it = item(&jf->cache, JIT_C_OLDER, dir))) {
		it->detail =
			arena_printf(&f->arena, "%s.so was built before the installed torch %s",
				     name, jf->py.torch_version ? jf->py.torch_version : "");
		it->age_s = age(&so, now);
	}
	if (flat && has_ninja)
		foreign(f, jf, dir);
}

static void scan(struct cd_facts *f, struct cd_jit_facts *jf, const char *dir, int flat,
		 int64_t now)
{
	DIR *d = file_opendir(&f->root, dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n++ < SCAN_MAX) {
		const char *p;
		if (e->d_name[0] == '.')
			continue;
		p = fsu_path(&f->arena, dir, e->d_name);
		if (file_is_dir(&f->root, p))
			build_dir(f, jf, p, e->d_name, flat, now);
	}
	if (n >= SCAN_MAX)
		jf->cache.truncated = 1;
	if (d)
		closedir(d);
}

static void scan_root(struct cd_facts *f, struct cd_jit_facts *jf, const char *want_py,
		      const char *want_cu, int64_t now)
{
	struct jit_cache *c = &jf->cache;
	DIR *d = file_opendir(&f->root, c->root);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) && n++ < SCAN_MAX) {
		char py[16], cu[16];
		const char *p;
		int v;
		if (e->d_name[0] == '.')
			continue;
		p = fsu_path(&f->arena, c->root, e->d_name);
		if (!file_is_dir(&f->root, p))
			continue;
		v = versioned_name(e->d_name, py, sizeof(py), cu, sizeof(cu));
		if (v < 0) {
			build_dir(f, jf, p, e->d_name, 1, now); /* older torch: flat */
		} else if (v == 0 && want_py && want_cu &&
			   (strcmp(py, want_py) || strcmp(cu, want_cu))) {
			struct jit_cache_item *it = item(c, JIT_C_OTHER_BUILD, p);
			if (it)
				it->detail = arena_printf(
					&f->arena,
					"builds for Python %s / %s%s; this environment has Python "
					"%s / %s%s",
					py, strcmp(cu, "cpu") ? "CUDA " : "", cu, want_py,
					strcmp(want_cu, "cpu") ? "CUDA " : "", want_cu);
		} else if (v == 0) {
			scan(f, jf, p, 0, now);
		}
	}
	if (d)
		closedir(d);
}

static int by_path(const void *a, const void *b)
{
	const struct jit_cache_item *x = a, *y = b;
	int c = strcmp(x->path ? x->path : "", y->path ? y->path : "");

	return c ? c : (int)x->kind - (int)y->kind;
}

void jit_probe_cache(struct cd_facts *f, struct cd_jit_facts *jf, int64_t now)
{
	struct jit_cache *c = &jf->cache;
	const struct jit_python *py = &jf->py;
	const char *want_cu = NULL;
	char name[64] = "";
	int ma, mi;

	c->exists = CD_TRI_UNKNOWN;
	root_dir(f, jf);
	if (!c->root || c->root[0] != '/')
		return;
	c->exists = file_is_dir(&f->root, c->root) ? CD_TRI_YES : CD_TRI_NO;
	if (py->torch_cpu_only)
		want_cu = "cpu";
	else if (jit_major_minor(py->torch_cuda, &ma, &mi) == 0)
		want_cu = arena_printf(&f->arena, "%d.%d", ma, mi);
	if (!strcmp(c->via, "TORCH_EXTENSIONS_DIR")) {
		c->active = c->root;
	} else if (py->version && want_cu && jit_major_minor(py->version, &ma, &mi) == 0) {
		int cma, cmi;
		if (!strcmp(want_cu, "cpu"))
			snprintf(name, sizeof(name), "py%d%d_cpu", ma, mi);
		else if (jit_major_minor(want_cu, &cma, &cmi) == 0)
			snprintf(name, sizeof(name), "py%d%d_cu%d%d", ma, mi, cma, cmi);
		if (name[0])
			c->active = fsu_path(&f->arena, c->root, name);
	}
	if (c->exists != CD_TRI_YES)
		return;
	if (!strcmp(c->via, "TORCH_EXTENSIONS_DIR"))
		scan(f, jf, c->root, 1, now);
	else
		scan_root(f, jf, py->version, want_cu, now);
	/* readdir order is the filesystem's: sort for a deterministic report. */
	qsort(c->items, c->n, sizeof(c->items[0]), by_path);
}
