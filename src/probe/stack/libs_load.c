/* libs_load: replay `import torch` on a loader session (ldresolve.h).
 * Order, from torch/__init__.py (_load_global_deps, then `from torch._C
 * import *`) and the loader rules:
 *  1. the program: the environment's Python executable (its DT_NEEDED and
 *     LD_PRELOAD); when it cannot be read, torch/_C itself stands in for it
 *     (as `cuda-doctor ldd` does: $ORIGIN the directory it was opened in,
 *     never its real path) and steps 2-3 follow its tree;
 *  2. torch/lib/libtorch_global_deps.so, by path;
 *  3. the preloads of data/dlopen_libs.tsv (kind preload) for this torch
 *     version: the first sys.path match of nvidia/<folder>/lib,
 *     nvidia/cu<major>/lib or <folder>/lib, by path, once libcudart is in;
 *     torch < 2.13 stops at the first one missing (required=True), later
 *     versions go on (pytorch#186450);
 *  4. torch/_C*.so by path, and its DT_NEEDED tree;
 *  5. the run-time dlopen rows whose caller is loaded, repeated until no
 *     row applies any more (a dlopened libnvrtc then opens its builtins). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/str.h"
#include "format/pep440.h"
#include "kb/kb.h"
#include "core/fsutil.h"
#include "probe/stack/libs_int.h"
#include "probe/stack/libs_util.h"

#define ROWS_MAX 64

struct row {
	char caller[96], opened[96], folder[32], torch[32], when[160];
	int preload, same_dir, optional;
};

static struct row rows[ROWS_MAX];
static size_t n_rows;
static int rows_loaded;

static int load_row(const struct kb_tsv *t, void *ctx)
{
	struct row *w = &rows[n_rows];
	const char *kind = kb_tsv_get(t, "kind");

	(void)ctx;
	if (!kind || (strcmp(kind, "dlopen") && strcmp(kind, "preload")))
		return 0;
	str_copy(w->caller, sizeof(w->caller), kb_tsv_get(t, "caller"));
	str_copy(w->opened, sizeof(w->opened), kb_tsv_get(t, "opened"));
	str_copy(w->folder, sizeof(w->folder), kb_tsv_get(t, "folder"));
	str_copy(w->torch, sizeof(w->torch), kb_tsv_get(t, "torch"));
	str_copy(w->when, sizeof(w->when), kb_tsv_get(t, "when"));
	w->preload = !strcmp(kind, "preload");
	w->same_dir = !strcmp(kb_tsv_get(t, "same_dir"), "yes");
	w->optional = !strcmp(kb_tsv_get(t, "optional"), "yes");
	if (w->caller[0] && w->opened[0])
		n_rows++;
	return n_rows == ROWS_MAX;
}

static void load_rows(void)
{
	if (rows_loaded)
		return;
	rows_loaded = 1;
	/* Not embedded or out of memory: no run-time loads are replayed. */
	(void)!kb_tsv_each("dlopen_libs.tsv", load_row, NULL);
}

int libs_torch_at_least(const struct cd_stack_facts *st, int major, int minor)
{
	const char *v = st->torch.version;
	char want[16];

	if (!v)
		return 0;
	snprintf(want, sizeof(want), "%d.%d", major, minor);
	return ver_cmp(v, want) >= 0;
}

/* The row applies to this torch version (an empty range applies to all). */
static int row_torch_ok(const struct libs_run *r, const struct row *w)
{
	struct pep440_specset set;
	struct pep440_version v;
	const char *tv = r->st->torch.version;

	if (!w->torch[0])
		return 1;
	if (!tv || pep440_parse(tv, strlen(tv), &v) ||
	    pep440_specset_parse(w->torch, strlen(w->torch), &set))
		return 0;
	return pep440_specset_contains(&set, &v, PEP440_PRE_INCLUDE);
}

/* {cuda_major} and {nvrtc_mm} in a row's names; NULL when a value is unknown. */
static const char *expand(struct libs_run *r, const char *tmpl)
{
	char val[32], out[160];
	const char *p = tmpl, *key;
	size_t o = 0;

	while (*p && o + 1 < sizeof(out)) {
		if (*p != '{') {
			out[o++] = *p++;
			continue;
		}
		key = p + 1;
		p = strchr(key, '}');
		if (!p)
			return NULL;
		if (!strncmp(key, "cuda_major}", 11) && r->cuda_major > 0) {
			snprintf(val, sizeof(val), "%d", r->cuda_major);
		} else if (!strncmp(key, "nvrtc_mm}", 9)) {
			if (libs_nvrtc_mm(r, val, sizeof(val)))
				return NULL;
		} else {
			return NULL;
		}
		o += str_copy(out + o, sizeof(out) - o, val);
		p++;
	}
	out[o < sizeof(out) ? o : sizeof(out) - 1] = '\0';
	return arena_strdup(&r->f->arena, out);
}

/* An object answering to name (its SONAME or the base name of its path). */
static int obj_named(const struct ldr_session *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_objs; i++) {
		const char *b = strrchr(s->objs[i].path, '/');
		if ((s->objs[i].soname && !strcmp(s->objs[i].soname, name)) ||
		    !strcmp(b ? b + 1 : s->objs[i].path, name))
			return (int)i;
	}
	return -1;
}

static void note(struct libs_run *r, int need, enum libs_how how, const struct row *w)
{
	struct libs_note *n;

	if (need < 0 || r->n_notes >= LIBS_NOTES_MAX)
		return;
	n = &r->notes[r->n_notes++];
	n->need = need;
	n->how = how;
	n->when = w ? arena_strdup(&r->f->arena, w->when) : NULL;
	n->same_dir = w && w->same_dir;
	n->optional = w && w->optional;
}

static int open_path(struct libs_run *r, int caller, const char *path, enum libs_how how,
		     const struct row *w)
{
	int need = (int)r->s.n_needs, obj = -1;

	if (ldr_dlopen(&r->s, caller, path, &obj, NULL))
		return -1;
	note(r, need, how, w);
	return obj;
}

/* torch/_C*.so: the one for this Python version when there are several. */
static const char *find_c(struct libs_run *r)
{
	const char *dir = r->st->torch.path, *vs = r->st->python.version_short, *pick = NULL;
	char tag[32] = "";
	const char **names;
	size_t n = 0, i;
	int trunc = 0;

	names = dir ? fsu_list(&r->f->arena, &r->f->root, dir, "_C.", ".so", 16, &n, &trunc) : NULL;
	if (vs && strchr(vs, '.'))
		snprintf(tag, sizeof(tag), "cpython-%.*s%s-", (int)strcspn(vs, "."), vs,
			 strchr(vs, '.') + 1);
	for (i = 0; names && i < n; i++)
		if (!pick || (tag[0] && strstr(names[i], tag)))
			pick = names[i];
	return pick ? fsu_path(&r->f->arena, dir, pick) : NULL;
}

static int libcudart_loaded(const struct ldr_session *s, const char *path_part)
{
	size_t i;

	for (i = 0; i < s->n_objs; i++)
		if (s->objs[i].soname && str_has_prefix(s->objs[i].soname, "libcudart.so") &&
		    (!path_part || strstr(s->objs[i].path, path_part)))
			return 1;
	return 0;
}

/* The first sys.path match of a preload row, as _get_cuda_dep_paths globs. */
static const char *preload_file(struct libs_run *r, const struct row *w)
{
	const struct cd_python_facts *py = &r->st->python;
	char dirs[3][64];
	size_t i, k, j, n;

	snprintf(dirs[0], sizeof(dirs[0]), "nvidia/%s/lib", w->folder);
	snprintf(dirs[1], sizeof(dirs[1]), "nvidia/cu%d/lib", r->cuda_major);
	snprintf(dirs[2], sizeof(dirs[2]), "%s/lib", w->folder);
	for (i = 0; i < py->n_site; i++)
		for (k = 0; k < 3; k++) {
			const char *d = fsu_path(&r->f->arena, py->site[i].path, dirs[k]);
			const char **names;
			if (k == 1 && r->cuda_major <= 0)
				continue;
			names = libs_list(r, d, &n);
			for (j = 0; names && j < n; j++)
				if (libs_glob(w->opened, names[j]))
					return fsu_path(&r->f->arena, d, names[j]);
		}
	return NULL;
}

static void preloads(struct libs_run *r)
{
	int full = libs_torch_at_least(r->st, 2, 10), required = !libs_torch_at_least(r->st, 2, 13);
	int fallback = 0;
	size_t i;

	/* The OSError path of every version: libtorch_global_deps.so could not
	 * load a CUDA library, so torch preloads the wheels' copies and retries. */
	for (i = r->gd_need_from; i < r->gd_need_to; i++)
		if (r->s.needs[i].obj < 0 && libs_is_cuda_name(r->s.needs[i].name))
			fallback = 1;
	if (!fallback && !libcudart_loaded(&r->s, full ? NULL : "nvidia/cuda_runtime/lib/"))
		return;
	for (i = 0; i < n_rows; i++) {
		const struct row *w = &rows[i];
		const char *path;
		if (!w->preload || (fallback ? strcmp(w->torch, ">=2.10") : !row_torch_ok(r, w)))
			continue;
		path = preload_file(r, w);
		/* ctypes.CDLL raising OSError ends the loop (torch catches it) */
		if (path && open_path(r, r->s.main, path, LIBS_HOW_PRELOAD, w) < 0)
			return;
		if (!path && (required || fallback) && !w->optional)
			return;
	}
}

/* Run-time dlopen rows, until none applies any more. */
static void runtime_dlopens(struct libs_run *r)
{
	unsigned char done[ROWS_MAX] = {0};
	int progress = 1, pass;
	size_t i;

	for (pass = 0; progress && pass < 8; pass++) {
		progress = 0;
		for (i = 0; i < n_rows; i++) {
			const struct row *w = &rows[i];
			const char *caller, *opened;
			int c, need, obj;
			if (done[i] || w->preload || !row_torch_ok(r, w))
				continue;
			caller = expand(r, w->caller);
			c = caller ? obj_named(&r->s, caller) : -1;
			opened = c >= 0 ? expand(r, w->opened) : NULL;
			if (!opened)
				continue;
			done[i] = 1;
			progress = 1;
			need = (int)r->s.n_needs;
			if (ldr_dlopen(&r->s, c, opened, &obj, NULL) == 0)
				note(r, need, LIBS_HOW_DLOPEN, w);
		}
	}
}

static void session_init(struct libs_run *r)
{
	struct ldr_config cfg;
	char cwd[PATH_MAX];

	memset(&cfg, 0, sizeof(cfg));
	cfg.ld_library_path = facts_getenv(r->f, "LD_LIBRARY_PATH");
	cfg.ld_preload = facts_getenv(r->f, "LD_PRELOAD");
	if (r->f->root.is_host)
		cfg.cwd = arena_strdup(&r->f->arena, fsu_cwd(cwd, sizeof(cwd)));
	ldr_init(&r->s, &r->f->root, &cfg, &r->f->arena);
	r->session = 1;
	r->L->ld_library_path = arena_strdup(&r->f->arena, cfg.ld_library_path);
	r->L->ld_preload = arena_strdup(&r->f->arena, cfg.ld_preload);
}

static void global_deps(struct libs_run *r)
{
	const char *gd = fsu_path(&r->f->arena, r->st->torch.path, "lib/libtorch_global_deps.so");

	if (!gd || !file_is_reg(&r->f->root, gd))
		return;
	r->gd_need_from = r->s.n_needs;
	r->gd_obj = open_path(r, r->s.main, gd, LIBS_HOW_IMPORT, NULL);
	r->gd_need_to = r->s.n_needs;
}

void libs_load(struct libs_run *r)
{
	const char *c, *prog = r->st->python.executable_real;
	struct cd_err err = {0};
	const char *cuda = r->st->torch.cuda;

	load_rows();
	r->c_obj = r->gd_obj = -1;
	r->cuda_major = cuda ? (int)strtol(cuda, NULL, 10) : 0;
	session_init(r);
	c = find_c(r);
	if (!c) {
		r->L->problem = arena_printf(&r->f->arena,
					     "%s has no _C*.so: `import torch` fails with "
					     "\"No module named 'torch._C'\"",
					     r->st->torch.path ? r->st->torch.path : "torch");
		return;
	}
	r->L->resolved_from = c;
	/* Python is started by execve; a stand-in _C is opened by its path, so
	 * in a tree of symbolic links its $ORIGIN stays in that tree. */
	if (prog && ldr_load_exec(&r->s, prog, NULL) == 0) {
		r->L->program = prog;
		global_deps(r);
		preloads(r);
		r->c_obj = open_path(r, r->s.main, c, LIBS_HOW_IMPORT, NULL);
	} else if (ldr_load_main(&r->s, c, &err) == 0) {
		r->c_obj = r->s.main;
		global_deps(r);
		preloads(r);
	} else {
		r->L->problem = arena_strdup(&r->f->arena, err.msg);
		return;
	}
	runtime_dlopens(r);
	r->L->truncated = r->s.truncated;
}
