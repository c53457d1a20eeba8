/* jit_toolkit: the CUDA toolkit torch.utils.cpp_extension would use and the
 * files a build needs from it. The toolkit is the toolkit probe's selection
 * (toolkit.c follows torch's _find_cuda_home; f->toolkit.selected), with its
 * existence, nvcc and nvcc version; without a selection its selected_reason
 * says why torch's CUDA_HOME is None (or names nothing usable). The files are
 * a view of the toolkit probe's inventory (tkscan.c, data/cuda_dev_files.tsv)
 * for the ones the ops of data/deepspeed_ops.tsv need: a header counts when
 * it is in CUDA_HOME/include (what torch adds with -I) or nvcc's own
 * targets/<arch>/include (noted: the C++ compiler does not see it there), a
 * library when the link finds it (CUDA_HOME/lib64 else lib, LIBRARY_PATH, the
 * linker's default directories). For missing files, the copies elsewhere come
 * from the inventories of the other toolkits, conda prefixes, pip's nvidia-*
 * wheels and /usr. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsutil.h"
#include "core/str.h"
#include "kb/kb.h"
#include "probe/isolate.h"
#include "probe/jit/jit.h"
#include "probe/toolkit/toolkit.h"
#include "probe/toolkit/tkscan.h"

static void select_home(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_toolkit *tk = &jf->tk;
	const struct cd_toolkit_facts *t = &f->toolkit;
	const struct cd_toolkit *sel;

	if (!t->items)
		toolkit_probe(f);
	tk->nvcc_on_path = jit_which(f, jf->env.path, "nvcc");
	tk->reason = t->selected_reason;
	if (t->selected == CD_UNK || t->selected < 0 || (size_t)t->selected >= t->n) {
		/* None (CUDA_HOME would be None), or a value that is no toolkit
		 * directory (a relative CUDA_HOME): nothing to build with. */
		tk->cuda_home = t->cuda_home;
		tk->via = t->cuda_home ? NULL : "none";
		tk->home_exists = t->cuda_home ? CD_TRI_NO : CD_TRI_UNKNOWN;
		return;
	}
	sel = &t->items[t->selected];
	tk->cuda_home = sel->root;
	tk->via = sel->found_via;
	tk->home_exists = sel->exists;
	tk->nvcc = sel->nvcc_path;
	tk->nvcc_version = t->nvcc_version;
	tk->nvcc_version_source = t->nvcc_version ? sel->nvcc_version_source : NULL;
	tk->lib_dir = sel->lib_dir;
}

/* Last resort on the real root: ask nvcc, as torch and DeepSpeed do. */
static const char *ask_nvcc(struct cd_facts *f, const char *nvcc)
{
	char a1[] = "--version";
	char *argv[] = {(char *)nvcc, a1, NULL};
	struct iso_job j = {.argv = argv};
	char v[64];
	const char *res = NULL;

	if (isolate_run(&j, 1, 10000, 64 << 10, NULL) == 0 && j.status == ISO_OK && j.out.p &&
	    jp_nvcc_version((const uint8_t *)j.out.p, j.out.len, v, sizeof(v)) == 0)
		res = arena_strdup(&f->arena, v);
	iso_job_free(&j);
	return res;
}

/* What torch passes with -I and -L; nvcc --version when no file states it. */
static void nvcc_facts(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_toolkit *tk = &jf->tk;

	tk->include_dir = fsu_path(&f->arena, tk->cuda_home, "include");
	if (!tk->lib_dir) /* no toolkit directory: what torch would pass */
		tk->lib_dir = fsu_path(&f->arena, tk->cuda_home, "lib64");
	if (!tk->nvcc_version && tk->nvcc && f->root.is_host) {
		tk->nvcc_version = ask_nvcc(f, tk->nvcc);
		tk->nvcc_version_source = tk->nvcc_version ? "nvcc --version" : NULL;
	}
	/* Unknown or unparsable: both stay -1, which the checks read as unknown. */
	(void)!jit_major_minor(tk->nvcc_version, &tk->nvcc_major, &tk->nvcc_minor);
}

/* ---- files ------------------------------------------------------------ */

/* The toolkit probe's selection, or NULL. */
static const struct cd_toolkit *selected(const struct cd_facts *f)
{
	const struct cd_toolkit_facts *t = &f->toolkit;

	return t->selected >= 0 && (size_t)t->selected < t->n ? &t->items[t->selected] : NULL;
}

static void add_file(struct cd_facts *f, struct jit_toolkit *tk, const char *name, int is_lib)
{
	size_t i;

	for (i = 0; i < tk->n_files; i++)
		if (!strcmp(tk->files[i].name, name))
			return;
	if (tk->n_files >= JIT_FILES_MAX)
		return;
	tk->files[tk->n_files].name = arena_strdup(&f->arena, name);
	tk->files[tk->n_files].is_lib = is_lib;
	tk->files[tk->n_files].present = CD_TRI_UNKNOWN;
	tk->n_files++;
}

/* The union of what the ops in data/deepspeed_ops.tsv need. */
static void needed_files(struct cd_facts *f, struct jit_toolkit *tk)
{
	struct kb_tsv t;

	if (kb_tsv_open(&t, "deepspeed_ops.tsv"))
		return;
	while (kb_tsv_next(&t)) {
		const char *cols[2] = {kb_tsv_get(&t, "headers"), kb_tsv_get(&t, "libraries")};
		int c;
		for (c = 0; c < 2; c++) {
			const char *s = cols[c];
			while (s && *s) {
				size_t len = strcspn(s, ",");
				char name[96], lib[112];
				str_ncopy(name, sizeof(name), s, len);
				if (name[0] && c == 1)
					snprintf(lib, sizeof(lib), "lib%s.so", name);
				if (name[0])
					add_file(f, tk, c == 1 ? lib : name, c == 1);
				s += len + (s[len] == ',');
			}
		}
	}
}

/* The inventory's entry for a file, or NULL. */
static const struct cd_header *inv_file(const struct cd_toolkit *t, const char *name)
{
	size_t i;

	for (i = 0; t && i < t->n_headers; i++)
		if (!strcmp(t->headers[i].name, name))
			return &t->headers[i];
	return NULL;
}

static int scope_is(const struct cd_header *h, const char *scope)
{
	return h->scope && !strcmp(h->scope, scope);
}

/* The selected toolkit's entry as a build of the ops sees it. */
static void view_file(struct cd_facts *f, const struct cd_toolkit *sel, struct jit_file *x)
{
	const struct cd_header *h = inv_file(sel, x->name);

	x->present = CD_TRI_NO;
	if (!h)
		return;
	if (!x->is_lib && h->path && (scope_is(h, "include") || scope_is(h, "targets"))) {
		x->present = CD_TRI_YES;
		x->path = h->path;
		if (scope_is(h, "targets"))
			x->note = "only under targets/: nvcc finds it, the C++ compiler (which "
				  "torch gives -I CUDA_HOME/include) does not";
	} else if (x->is_lib && h->present == CD_TRI_YES) {
		x->present = CD_TRI_YES;
		x->path = h->path;
	} else if (x->is_lib && h->versioned && scope_is(h, "lib")) {
		x->note = arena_printf(&f->arena,
				       "only %s exists: the linker (-l) needs the unversioned %s",
				       h->versioned, x->name);
	}
}

/* ---- elsewhere on disk ------------------------------------------------ */

#define ROOTS_MAX 24

struct roots {
	size_t n;
	const char *dir[ROOTS_MAX];
	char real[ROOTS_MAX][PATH_MAX];
	const struct cd_toolkit *inv[ROOTS_MAX]; /* the toolkit probe's, or a scan; lazily */
};

static void add_root(struct cd_facts *f, struct roots *r, const char *dir, const char *skip_real)
{
	char real[PATH_MAX];
	size_t i;

	if (!dir || dir[0] != '/' || r->n >= ROOTS_MAX ||
	    file_realpath(&f->root, dir, real, sizeof(real)) != 0 || !strcmp(real, skip_real))
		return;
	for (i = 0; i < r->n; i++)
		if (!strcmp(r->real[i], real))
			return;
	r->dir[r->n] = dir;
	str_copy(r->real[r->n], PATH_MAX, real);
	r->n++;
}

static int by_version_desc(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	int c;

	if (!x || !y)
		return x ? -1 : y ? 1 : 0;
	c = ver_cmp(y + 5, x + 5); /* after "cuda-" */
	return c ? c : strcmp(x, y);
}

static void candidate_roots(struct cd_facts *f, struct cd_jit_facts *jf, struct roots *r)
{
	char home_real[PATH_MAX] = "";
	DIR *d;
	struct dirent *e;
	size_t i;
	int n = 0;

	if (jf->tk.cuda_home &&
	    file_realpath(&f->root, jf->tk.cuda_home, home_real, sizeof(home_real)) != 0)
		home_real[0] = '\0'; /* no such directory: nothing to skip */
	for (i = 0; i < f->toolkit.n; i++)
		add_root(f, r, f->toolkit.items[i].root, home_real);
	add_root(f, r, "/usr/local/cuda", home_real);
	if ((d = file_opendir(&f->root, "/usr/local"))) {
		const char *names[ROOTS_MAX];
		size_t k = 0;
		while ((e = readdir(d)) && n++ < 1024)
			if (!strncmp(e->d_name, "cuda-", 5) && k < ROOTS_MAX)
				names[k++] = arena_strdup(&f->arena, e->d_name);
		closedir(d);
		/* Newest version first, so fixes name the newest toolkit. */
		qsort(names, k, sizeof(names[0]), by_version_desc);
		for (i = 0; i < k; i++)
			add_root(f, r, fsu_path(&f->arena, "/usr/local", names[i]), home_real);
	}
	add_root(f, r, "/opt/cuda", home_real);
	add_root(f, r, jf->env.conda_prefix, home_real);
	if (jf->py.kind && !strcmp(jf->py.kind, "conda"))
		add_root(f, r, jf->py.prefix, home_real);
	add_root(f, r, "/opt/conda", home_real);
}

static void note_elsewhere(struct jit_file *x, const char *p)
{
	size_t i;

	for (i = 0; p && i < x->n_elsewhere; i++)
		if (!strcmp(x->elsewhere[i], p))
			return;
	if (p && x->n_elsewhere < JIT_ELSEWHERE_MAX)
		x->elsewhere[x->n_elsewhere++] = p;
}

/* The inventory of dir: the toolkit probe's item when it listed dir (by
 * canonical path), else a scan of it. NULL when out of memory. */
static const struct cd_toolkit *inventory(struct cd_facts *f, const char *dir, const char *real)
{
	struct cd_toolkit *t;
	size_t i;

	for (i = 0; i < f->toolkit.n; i++) {
		const struct cd_toolkit *it = &f->toolkit.items[i];
		if (it->realpath && !strcmp(it->realpath, real))
			return it;
	}
	t = arena_alloc(&f->arena, sizeof(*t));
	if (t)
		tkscan_fill(f, dir, "other", t);
	return t;
}

static const struct cd_toolkit *root_inv(struct cd_facts *f, struct roots *r, size_t k)
{
	if (!r->inv[k])
		r->inv[k] = inventory(f, r->dir[k], r->real[k]);
	return r->inv[k];
}

/* A copy of x in another toolkit root: in its include/ or targets/ (headers),
 * its -L directory or targets/ (libraries, a versioned one when that is all). */
static const char *copy_in_root(const struct cd_toolkit *t, const struct jit_file *x)
{
	const struct cd_header *h = inv_file(t, x->name);

	if (!h || (!scope_is(h, "include") && !scope_is(h, "lib") && !scope_is(h, "targets")))
		return NULL;
	return h->path ? h->path : x->is_lib ? h->versioned : NULL;
}

/* A copy in pip's nvidia-* wheels of the site torch imports from. */
static const char *copy_in_wheels(const struct cd_toolkit *w, const struct jit_file *x)
{
	const struct cd_header *h = inv_file(w, x->name);

	if (!h)
		return NULL;
	return h->path ? h->path : x->is_lib ? h->versioned : NULL;
}

static void elsewhere(struct cd_facts *f, struct cd_jit_facts *jf, struct roots *r)
{
	struct jit_toolkit *tk = &jf->tk;
	const struct cd_toolkit *wheels = NULL, *usr = NULL;
	size_t i, k;

	for (i = 0; i < tk->n_files; i++) {
		struct jit_file *x = &tk->files[i];
		const struct cd_header *h;
		if (x->present != CD_TRI_NO)
			continue;
		for (k = 0; k < r->n; k++)
			note_elsewhere(x, copy_in_root(root_inv(f, r, k), x));
		if (jf->py.site_packages && !wheels) {
			struct cd_toolkit *w = arena_alloc(&f->arena, sizeof(*w));
			if (w)
				tkscan_wheels(f, jf->py.site_packages, w);
			wheels = w;
		}
		note_elsewhere(x, copy_in_wheels(wheels, x));
		if (x->is_lib)
			continue;
		if (!usr) /* /usr/include, where distribution packages put headers */
			usr = inventory(f, "/usr", "/usr");
		h = inv_file(usr, x->name);
		note_elsewhere(x, h && scope_is(h, "include") ? h->path : NULL);
	}
}

static void others(struct cd_facts *f, struct cd_jit_facts *jf, struct roots *r)
{
	struct jit_toolkit *tk = &jf->tk;
	size_t k;

	for (k = 0; k < r->n && tk->n_others < JIT_OTHERS_MAX; k++) {
		const struct cd_toolkit *t;
		if (!file_is_reg(&f->root, fsu_path(&f->arena, r->dir[k], "bin/nvcc")))
			continue;
		t = root_inv(f, r, k);
		tk->others[tk->n_others] = r->dir[k];
		tk->others_version[tk->n_others] = !t		     ? NULL
						   : t->nvcc_version ? t->nvcc_version
								     : t->version;
		tk->n_others++;
	}
}

void jit_probe_toolkit(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_toolkit *tk = &jf->tk;
	struct roots *r = calloc(1, sizeof(*r));
	size_t i;

	tk->nvcc_major = tk->nvcc_minor = -1;
	select_home(f, jf);
	needed_files(f, tk);
	if (tk->cuda_home)
		nvcc_facts(f, jf);
	for (i = 0; i < tk->n_files; i++)
		view_file(f, selected(f), &tk->files[i]);
	if (!r)
		return;
	candidate_roots(f, jf, r);
	elsewhere(f, jf, r);
	others(f, jf, r);
	free(r);
}
