/* toolkit: every CUDA toolkit on disk, and the one PyTorch would build
 * extensions with. Candidates, in this order: $CUDA_HOME, $CUDA_PATH, the
 * nvcc first on $PATH (and the toolkit a linked or wrapper nvcc stands for),
 * /usr/local/cuda, /usr/local/cuda-*, /opt/cuda*, the conda prefix, and the
 * nvidia-* wheels of the Python environments (--env, $VIRTUAL_ENV,
 * $CONDA_PREFIX). Duplicates are merged by canonical path. The selection
 * reproduces torch.utils.cpp_extension._find_cuda_home (torch 2.11):
 *   CUDA_HOME or CUDA_PATH (as Python's `or`: an empty CUDA_HOME falls
 *   through), used as is; else dirname(dirname(shutil.which("nvcc"))), not
 *   resolved; else /usr/local/cuda if it exists; else none.
 * Paths from the environment are read inside --root. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/opts.h"
#include "core/str.h"
#include "core/fsutil.h"
#include "probe/toolkit/toolkit.h"
#include "probe/toolkit/tkscan.h"

#define TK_MAX	    32
#define TK_GLOB_MAX 16	/* /usr/local/cuda-* or /opt/cuda* entries taken */
#define TK_PATH_MAX 256 /* $PATH entries examined */
#define TK_PY_MAX   8	/* lib/python3* directories per prefix */

struct tk_list {
	struct cd_facts *f;
	struct cd_toolkit *items;
	size_t n;
};

/* Add the toolkit at root unless one with the same canonical path (or, for
 * a missing root, the same text) is already listed. Returns its index. */
static long add(struct tk_list *l, const char *root, const char *via)
{
	struct cd_toolkit t;
	size_t i;

	if (!root || !*root || root[0] != '/')
		return -1;
	/* Only a path the user named may be listed although it does not exist. */
	if (strcmp(via, "CUDA_HOME") && strcmp(via, "CUDA_PATH") && !file_is_dir(&l->f->root, root))
		return -1;
	tkscan_fill(l->f, root, via, &t);
	for (i = 0; i < l->n; i++) {
		const struct cd_toolkit *o = &l->items[i];
		if ((t.realpath && o->realpath && !strcmp(t.realpath, o->realpath)) ||
		    !strcmp(o->root, root))
			return (long)i;
	}
	if (l->n >= TK_MAX)
		return -1;
	l->items[l->n] = t;
	return (long)l->n++;
}

/* dirname(dirname(p)) as Python's posixpath.dirname computes it. */
static const char *parent2(struct cd_arena *a, const char *p)
{
	char buf[PATH_MAX];
	int k;

	if (str_copy(buf, sizeof(buf), p) >= sizeof(buf))
		return NULL;
	for (k = 0; k < 2; k++) {
		char *s = strrchr(buf, '/');
		if (!s)
			return NULL;
		s[1] = '\0';
		while (s > buf && *s == '/') /* head.rstrip('/') unless all slashes */
			*s-- = '\0';
	}
	return arena_strdup(a, buf);
}

/* shutil.which("nvcc") over $PATH (os.defpath when unset); relative and
 * empty entries are skipped: they name the current directory. */
static const char *which_nvcc(struct cd_facts *f)
{
	const char *path = facts_getenv(f, "PATH"), *p;
	char cand[PATH_MAX];
	size_t seen = 0;

	if (!path)
		path = "/bin:/usr/bin";
	for (p = path; seen < TK_PATH_MAX; seen++) {
		size_t n = strcspn(p, ":");
		if (n && p[0] == '/' && n < sizeof(cand) - 6 &&
		    snprintf(cand, sizeof(cand), "%.*s%snvcc", (int)n, p,
			     p[n - 1] == '/' ? "" : "/") < (int)sizeof(cand) &&
		    fsu_is_exec(&f->root, cand))
			return arena_strdup(&f->arena, cand);
		if (!p[n])
			break;
		p += n + 1;
	}
	return NULL;
}

static void globs(struct tk_list *l)
{
	static const char *const dirs[][2] = {{"/usr/local", "cuda-"}, {"/opt", "cuda"}};
	size_t i, k, n;
	int trunc;

	for (i = 0; i < 2; i++) {
		const char **names = fsu_list(&l->f->arena, &l->f->root, dirs[i][0], dirs[i][1],
					      NULL, TK_GLOB_MAX, &n, &trunc);
		for (k = 0; names && k < n; k++)
			add(l, fsu_path(&l->f->arena, dirs[i][0], names[k]), "glob");
	}
}

/* The conda prefix, when it holds a toolkit (cuda-nvcc, cuda-cudart-dev). */
static void conda(struct tk_list *l, const char *prefix)
{
	struct cd_facts *f = l->f;
	char p[PATH_MAX];
	size_t n;
	int trunc;

	if (!prefix || prefix[0] != '/' || fsu_join(p, sizeof(p), prefix, "conda-meta") ||
	    !file_is_dir(&f->root, p))
		return;
	if ((fsu_join(p, sizeof(p), prefix, "bin/nvcc") == 0 && fsu_is_exec(&f->root, p)) ||
	    (fsu_join(p, sizeof(p), prefix, "targets") == 0 &&
	     fsu_list(&f->arena, &f->root, p, NULL, "-linux", 1, &n, &trunc) && n))
		add(l, prefix, "conda");
}

/* nvidia-* wheels in PREFIX/lib/python3.X/site-packages/nvidia. */
static void pip(struct tk_list *l, const char *prefix)
{
	struct cd_facts *f = l->f;
	const char **py;
	char lib[PATH_MAX];
	size_t n, i, m;
	int trunc;

	if (!prefix || prefix[0] != '/' || fsu_join(lib, sizeof(lib), prefix, "lib"))
		return;
	py = fsu_list(&f->arena, &f->root, lib, "python3", NULL, TK_PY_MAX, &n, &trunc);
	for (i = 0; py && i < n; i++) {
		const char *nv = arena_printf(&f->arena, "%s/%s/site-packages/nvidia", lib, py[i]);
		const char **comp;

		if (!nv || !file_is_dir(&f->root, nv))
			continue;
		if (file_is_dir(&f->root, fsu_path(&f->arena, nv, "cu13")))
			add(l, fsu_path(&f->arena, nv, "cu13"), "pip");
		if (file_is_dir(&f->root, fsu_path(&f->arena, nv, "cuda_nvcc"))) {
			add(l, fsu_path(&f->arena, nv, "cuda_nvcc"), "pip");
			continue;
		}
		/* CUDA 12 component wheels without nvcc still carry headers. */
		comp = fsu_list(&f->arena, &f->root, nv, NULL, NULL, 64, &m, &trunc);
		for (size_t k = 0; comp && k < m; k++) {
			if (strcmp(comp[k], "cu13") &&
			    file_is_dir(&f->root,
					arena_printf(&f->arena, "%s/%s/include", nv, comp[k]))) {
				add(l, nv, "pip");
				break;
			}
		}
	}
}

/* The toolkit a linked or wrapper nvcc stands for is a candidate too, and
 * lends its nvcc version to the toolkit whose bin/ holds the link. */
static void nvcc_targets(struct tk_list *l)
{
	size_t i, n = l->n;

	for (i = 0; i < n; i++) {
		struct cd_toolkit *t = &l->items[i];
		const char *root;
		long k;

		if (!t->nvcc_target)
			continue;
		root = parent2(&l->f->arena, t->nvcc_target);
		k = add(l, root, "nvcc-link");
		t = &l->items[i];
		if (k >= 0 && (size_t)k != i && !t->nvcc_version)
			t->nvcc_version = l->items[k].nvcc_version;
	}
}

/* Index of the toolkit whose root is home (canonically), or CD_UNK. */
static int64_t find(struct tk_list *l, const char *home)
{
	char real[PATH_MAX];
	int have = file_realpath(&l->f->root, home, real, sizeof(real)) == 0;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].root, home) ||
		    (have && l->items[i].realpath && !strcmp(l->items[i].realpath, real)))
			return (int64_t)i;
	return CD_UNK;
}

static void select_home(struct tk_list *l, const char *nvcc_on_path)
{
	struct cd_facts *f = l->f;
	struct cd_toolkit_facts *tf = &f->toolkit;
	const char *home = facts_getenv(f, "CUDA_HOME"), *cp = facts_getenv(f, "CUDA_PATH");

	if (home && *home) {
		tf->selected_reason = "CUDA_HOME is set; torch.utils.cpp_extension uses it as is";
	} else if (cp && *cp) {
		home = cp;
		tf->selected_reason = "CUDA_PATH is set and CUDA_HOME is not; torch uses CUDA_PATH "
				      "as is";
	} else if (cp) {
		tf->selected_reason = "CUDA_PATH is set but empty: torch takes the empty value and "
				      "finds no CUDA toolkit";
		return;
	} else if (nvcc_on_path) {
		home = parent2(&f->arena, nvcc_on_path);
		tf->selected_reason = arena_printf(&f->arena,
						   "CUDA_HOME and CUDA_PATH are unset; nvcc is on "
						   "PATH at %s, so torch uses its parent's parent",
						   nvcc_on_path);
	} else if (file_exists(&f->root, "/usr/local/cuda")) {
		home = "/usr/local/cuda";
		tf->selected_reason = "CUDA_HOME and CUDA_PATH are unset and nvcc is not on PATH; "
				      "torch falls back to /usr/local/cuda, which exists";
	} else {
		tf->selected_reason = "CUDA_HOME and CUDA_PATH are unset, nvcc is not on PATH and "
				      "/usr/local/cuda does not exist: torch finds no CUDA toolkit";
		return;
	}
	tf->cuda_home = home;
	tf->selected = find(l, home);
	if (tf->selected == CD_UNK)
		return;
	tf->nvcc_version = l->items[tf->selected].nvcc_version;
	/* What the link of a build with this toolkit finds beyond its -L. */
	tkscan_linker(f, &l->items[tf->selected]);
}

void toolkit_probe(struct cd_facts *f)
{
	struct tk_list l = {f, NULL, 0};
	const char *nvcc_path, *pre[3];
	size_t i, k;

	l.items = arena_calloc(&f->arena, TK_MAX, sizeof(*l.items));
	if (!l.items)
		return;
	add(&l, facts_getenv(f, "CUDA_HOME"), "CUDA_HOME");
	add(&l, facts_getenv(f, "CUDA_PATH"), "CUDA_PATH");
	nvcc_path = which_nvcc(f);
	if (nvcc_path)
		add(&l, parent2(&f->arena, nvcc_path), "PATH");
	add(&l, "/usr/local/cuda", "default");
	globs(&l);
	pre[0] = f->opts ? f->opts->env : NULL;
	pre[1] = facts_getenv(f, "CONDA_PREFIX");
	pre[2] = facts_getenv(f, "VIRTUAL_ENV");
	for (i = 0; i < 3; i++)
		conda(&l, pre[i]);
	for (i = 0; i < 3; i++) {
		int dup = 0;
		for (k = 0; k < i; k++)
			dup |= pre[k] && pre[i] && !strcmp(pre[k], pre[i]);
		if (!dup)
			pip(&l, pre[i]);
	}
	nvcc_targets(&l);
	f->toolkit.items = l.items;
	f->toolkit.n = l.n;
	select_home(&l, nvcc_path);
}

void toolkit_probe_headers(struct cd_facts *f, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < f->toolkit.n; i++)
		tkscan_headers(f, &f->toolkit.items[i], names, n);
}
