/* jit_toolkit: the CUDA toolkit torch.utils.cpp_extension would use and the
 * files a build needs from it. The toolkit is the toolkit probe's selection
 * (toolkit.c follows torch's _find_cuda_home; f->toolkit.selected), with its
 * existence, nvcc and nvcc version; without a selection its selected_reason
 * says why torch's CUDA_HOME is None (or names nothing usable). Headers are
 * looked up in CUDA_HOME/include (what torch adds with -I) and in nvcc's own
 * targets/<triple>/include; link libraries in CUDA_HOME/lib64 (else lib),
 * LIBRARY_PATH and the linker's default directories. Missing files are then
 * looked for elsewhere: other toolkits, conda, pip's nvidia-<lib> wheels, /usr. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/str.h"
#include "kb/kb.h"
#include "probe/isolate.h"
#include "probe/jit/jit.h"
#include "probe/toolkit/toolkit.h"
#include "probe/toolkit/tkscan.h"

static const char *pj(struct cd_facts *f, const char *a, const char *b)
{
	return arena_printf(&f->arena, "%s/%s", strcmp(a, "/") ? a : "", b);
}

static const char *multiarch(void)
{
	struct utsname u;

	return uname(&u) == 0 && !strcmp(u.machine, "aarch64") ? "aarch64-linux-gnu"
							       : "x86_64-linux-gnu";
}

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

	tk->include_dir = pj(f, tk->cuda_home, "include");
	tk->lib_dir = pj(f, tk->cuda_home, "lib64");
	if (!file_is_dir(&f->root, tk->lib_dir) &&
	    file_is_dir(&f->root, pj(f, tk->cuda_home, "lib")))
		tk->lib_dir = pj(f, tk->cuda_home, "lib");
	if (!tk->nvcc_version && tk->nvcc && f->root.is_host) {
		tk->nvcc_version = ask_nvcc(f, tk->nvcc);
		tk->nvcc_version_source = tk->nvcc_version ? "nvcc --version" : NULL;
	}
	jit_major_minor(tk->nvcc_version, &tk->nvcc_major, &tk->nvcc_minor);
}

/* ---- files ------------------------------------------------------------ */

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

/* lib<x>.so in dir, or (into *versioned) the first lib<x>.so.N there. */
static const char *lib_in(struct cd_facts *f, const char *dir, const char *name,
			  const char **versioned)
{
	const char *p = pj(f, dir, name);
	size_t nl = strlen(name);
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (file_exists(&f->root, p))
		return p;
	if (!versioned || *versioned || !(d = file_opendir(&f->root, dir)))
		return NULL;
	while ((e = readdir(d)) && n++ < 8192)
		if (!strncmp(e->d_name, name, nl) && e->d_name[nl] == '.') {
			*versioned = pj(f, dir, e->d_name);
			break;
		}
	closedir(d);
	return NULL;
}

static void check_header(struct cd_facts *f, struct cd_jit_facts *jf, struct jit_file *x)
{
	const char *a = pj(f, jf->tk.include_dir, x->name);
	const char *b = pj(f, pj(f, pj(f, jf->tk.cuda_home, "targets"), jf->arch_triple),
			   pj(f, "include", x->name));

	if (file_exists(&f->root, a)) {
		x->present = CD_TRI_YES, x->path = a;
	} else if (file_exists(&f->root, b)) {
		x->present = CD_TRI_YES, x->path = b;
		x->note = "only under targets/: nvcc finds it, the C++ compiler (which torch gives "
			  "-I CUDA_HOME/include) does not";
	} else {
		x->present = CD_TRI_NO;
	}
}

static void check_lib(struct cd_facts *f, struct cd_jit_facts *jf, struct jit_file *x)
{
	static const char *const sysdirs[] = {"/usr/lib64", "/lib64", "/usr/lib", "/lib",
					      "/usr/local/lib"};
	const char *versioned = NULL, *p = jf->env.library_path;
	size_t i;
	int n = 0;

	if ((x->path = lib_in(f, jf->tk.lib_dir, x->name, &versioned)))
		goto found;
	while (p && *p && n++ < 64) {
		size_t len = strcspn(p, ":");
		if (len && p[0] == '/' &&
		    (x->path = lib_in(f, arena_strndup(&f->arena, p, len), x->name, NULL)))
			goto found;
		p += len + (p[len] == ':');
	}
	if ((x->path = lib_in(f, pj(f, "/usr/lib", multiarch()), x->name, NULL)) ||
	    (x->path = lib_in(f, pj(f, "/lib", multiarch()), x->name, NULL)))
		goto found;
	for (i = 0; i < sizeof(sysdirs) / sizeof(sysdirs[0]); i++)
		if ((x->path = lib_in(f, sysdirs[i], x->name, NULL)))
			goto found;
	x->present = CD_TRI_NO;
	if (versioned)
		x->note = arena_printf(&f->arena,
				       "only %s exists: the linker (-l) needs the unversioned %s",
				       versioned, x->name);
	return;
found:
	x->present = CD_TRI_YES;
}

/* ---- elsewhere on disk ------------------------------------------------ */

#define ROOTS_MAX 24

struct roots {
	size_t n;
	const char *dir[ROOTS_MAX];
	char real[ROOTS_MAX][PATH_MAX];
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

	if (jf->tk.cuda_home)
		file_realpath(&f->root, jf->tk.cuda_home, home_real, sizeof(home_real));
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
			add_root(f, r, pj(f, "/usr/local", names[i]), home_real);
	}
	add_root(f, r, "/opt/cuda", home_real);
	add_root(f, r, jf->env.conda_prefix, home_real);
	if (jf->py.kind && !strcmp(jf->py.kind, "conda"))
		add_root(f, r, jf->py.prefix, home_real);
	add_root(f, r, "/opt/conda", home_real);
}

static void note_elsewhere(struct cd_facts *f, struct jit_file *x, const char *p)
{
	if (p && x->n_elsewhere < JIT_ELSEWHERE_MAX)
		x->elsewhere[x->n_elsewhere++] = p;
}

static void find_in_root(struct cd_facts *f, struct cd_jit_facts *jf, const char *r,
			 struct jit_file *x)
{
	const char *tgt = pj(f, pj(f, r, "targets"), jf->arch_triple), *v = NULL, *p;

	if (!x->is_lib) {
		if (file_exists(&f->root, (p = pj(f, pj(f, r, "include"), x->name))) ||
		    file_exists(&f->root, (p = pj(f, pj(f, tgt, "include"), x->name))))
			note_elsewhere(f, x, p);
		return;
	}
	p = lib_in(f, pj(f, r, "lib64"), x->name, &v);
	if (!p)
		p = lib_in(f, pj(f, r, "lib"), x->name, &v);
	if (!p)
		p = lib_in(f, pj(f, tgt, "lib"), x->name, &v);
	note_elsewhere(f, x, p ? p : v);
}

static int by_name(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return strcmp(x ? x : "", y ? y : "");
}

static void pip_one(struct cd_facts *f, struct jit_file *x, const char *pkg)
{
	const char *v = NULL, *p;

	if (!x->is_lib) {
		p = pj(f, pj(f, pkg, "include"), x->name);
		note_elsewhere(f, x, file_exists(&f->root, p) ? p : NULL);
	} else {
		p = lib_in(f, pj(f, pkg, "lib"), x->name, &v);
		note_elsewhere(f, x, p ? p : v);
	}
}

/* site-packages/nvidia/<pkg>/{include,lib}, in name order. */
static void find_in_pip(struct cd_facts *f, struct cd_jit_facts *jf, struct jit_file *x)
{
	const char *base, *names[128];
	DIR *d;
	struct dirent *e;
	size_t k = 0, i;

	if (!jf->py.site_packages)
		return;
	base = pj(f, jf->py.site_packages, "nvidia");
	if (!(d = file_opendir(&f->root, base)))
		return;
	while ((e = readdir(d)) && k < 128)
		if (e->d_name[0] != '.')
			names[k++] = arena_strdup(&f->arena, e->d_name);
	closedir(d);
	qsort(names, k, sizeof(names[0]), by_name);
	for (i = 0; i < k; i++)
		pip_one(f, x, pj(f, base, names[i]));
}

static void elsewhere(struct cd_facts *f, struct cd_jit_facts *jf, const struct roots *r)
{
	struct jit_toolkit *tk = &jf->tk;
	size_t i, k;

	for (i = 0; i < tk->n_files; i++) {
		struct jit_file *x = &tk->files[i];
		if (x->present != CD_TRI_NO)
			continue;
		for (k = 0; k < r->n; k++)
			find_in_root(f, jf, r->dir[k], x);
		find_in_pip(f, jf, x);
		if (!x->is_lib) {
			const char *p = pj(f, "/usr/include", x->name);
			note_elsewhere(f, x, file_exists(&f->root, p) ? p : NULL);
		}
	}
}

/* The nvcc version of another toolkit root, as the toolkit probe reads it:
 * its own item when it listed this root, else a scan of the root (tkscan). */
static const char *other_version(struct cd_facts *f, const char *dir, const char *real)
{
	struct cd_toolkit t;
	size_t i;

	for (i = 0; i < f->toolkit.n; i++) {
		const struct cd_toolkit *it = &f->toolkit.items[i];
		if (it->realpath && !strcmp(it->realpath, real))
			return it->nvcc_version ? it->nvcc_version : it->version;
	}
	tkscan_fill(f, dir, "other", &t);
	return t.nvcc_version ? t.nvcc_version : t.version;
}

static void others(struct cd_facts *f, struct cd_jit_facts *jf, const struct roots *r)
{
	struct jit_toolkit *tk = &jf->tk;
	size_t k;

	for (k = 0; k < r->n && tk->n_others < JIT_OTHERS_MAX; k++) {
		if (!file_is_reg(&f->root, pj(f, r->dir[k], "bin/nvcc")))
			continue;
		tk->others[tk->n_others] = r->dir[k];
		tk->others_version[tk->n_others] = other_version(f, r->dir[k], r->real[k]);
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
	if (tk->cuda_home) {
		nvcc_facts(f, jf);
		for (i = 0; i < tk->n_files; i++) {
			if (tk->files[i].is_lib)
				check_lib(f, jf, &tk->files[i]);
			else
				check_header(f, jf, &tk->files[i]);
		}
	} else {
		for (i = 0; i < tk->n_files; i++)
			tk->files[i].present = CD_TRI_NO;
	}
	if (!r)
		return;
	candidate_roots(f, jf, r);
	elsewhere(f, jf, r);
	others(f, jf, r);
	free(r);
}
