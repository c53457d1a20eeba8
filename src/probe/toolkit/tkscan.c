/* tkscan: see tkscan.h. Layouts handled (an include directory may be a link):
 *  system  ROOT/{bin/nvcc, include, targets/<arch>-linux/include, version.json}
 *          and the wheel-assembled variant with ROOT/dist-info/<wheel>.dist-info
 *  conda   PREFIX/{bin/nvcc, include, targets/<arch>-linux/include, conda-meta}
 *  pip     SITE/nvidia/cu13/{bin,include} (CUDA 13 wheels), or one directory per
 *          wheel for CUDA 12: SITE/nvidia/cuda_nvcc/bin/nvcc and
 *          SITE/nvidia/<component>/include; versions from SITE/<wheel>.dist-info
 * Libraries are looked for in ROOT/lib64 (else ROOT/lib: torch's -L),
 * ROOT/targets/<arch>-linux/lib and, for CUDA 12 wheels, each wheel's lib. */
#include "probe/toolkit/tkscan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "format/cudaver.h"
#include "kb/devfiles.h"

#define TK_INC_DIRS_MAX 48
#define TK_META_MAX	4096 /* conda-meta or site-packages entries looked at */
#define TK_LDPATH_MAX	64   /* LIBRARY_PATH entries looked at */

/* Directories searched in order, each with its scope (see struct cd_header). */
struct tk_dirs {
	const char *dir[TK_INC_DIRS_MAX];
	const char *scope[TK_INC_DIRS_MAX];
	size_t n;
};

struct tk_ctx {
	struct cd_facts *f;
	const char *root;
	const char *meta; /* conda-meta, ROOT/dist-info or SITE; NULL if none */
	int meta_is_conda;
	struct tk_dirs inc, lib;
};

static void add_dir(struct cd_facts *f, struct tk_dirs *d, const char *dir, const char *scope)
{
	if (dir && d->n < TK_INC_DIRS_MAX && file_is_dir(&f->root, dir)) {
		d->scope[d->n] = scope;
		d->dir[d->n++] = dir;
	}
}

static void add_inc(struct tk_ctx *c, const char *dir, const char *scope)
{
	add_dir(c->f, &c->inc, dir, scope);
}

/* torch's -L directory: ROOT/lib64, else ROOT/lib when only it exists
 * (cpp_extension's library_paths). */
static const char *lib_dir_of(struct cd_facts *f, const char *root)
{
	const char *l64 = fsu_path(&f->arena, root, "lib64"), *l = fsu_path(&f->arena, root, "lib");

	return !file_is_dir(&f->root, l64) && l && file_is_dir(&f->root, l) ? l : l64;
}

/* Each SITE/nvidia/<wheel>/include and lib, in name order, except skip. */
static void wheel_dirs(struct tk_ctx *c, const char *site, const char *skip)
{
	struct cd_facts *f = c->f;
	const char *nv = fsu_path(&f->arena, site, "nvidia"), **names;
	size_t n, i;
	int trunc;

	names = nv ? fsu_list(&f->arena, &f->root, nv, NULL, NULL, TK_INC_DIRS_MAX, &n, &trunc)
		   : NULL;
	for (i = 0; names && i < n; i++) {
		if (skip && !strcmp(names[i], skip))
			continue;
		add_inc(c, arena_printf(&f->arena, "%s/%s/include", nv, names[i]), "wheel");
		add_dir(f, &c->lib, arena_printf(&f->arena, "%s/%s/lib", nv, names[i]), "wheel");
	}
}

/* "/x/lib/python3.12/site-packages/nvidia/cu13" -> "/x/lib/python3.12/site-packages" */
static const char *site_of(struct cd_facts *f, const char *root)
{
	const char *m = strstr(root, "/site-packages/nvidia");

	if (!m || (m[21] && m[21] != '/'))
		return NULL;
	return arena_strndup(&f->arena, root, (size_t)(m - root) + 14);
}

static void layout(struct tk_ctx *c, struct cd_toolkit *t)
{
	struct cd_facts *f = c->f;
	const char *site = site_of(f, c->root), **names;
	char p[PATH_MAX];
	size_t n, i;
	int trunc;

	t->kind = "system";
	if (fsu_join(p, sizeof(p), c->root, "conda-meta") == 0 && file_is_dir(&f->root, p)) {
		t->kind = "conda";
		c->meta = arena_strdup(&f->arena, p);
		c->meta_is_conda = 1;
	} else if (site) {
		t->kind = "pip";
		c->meta = site;
	} else if (fsu_join(p, sizeof(p), c->root, "dist-info") == 0 && file_is_dir(&f->root, p)) {
		c->meta = arena_strdup(&f->arena, p);
	}
	/* torch passes -I CUDA_HOME/include alone (include_paths); nvcc adds
	 * targets/<arch>/include itself (nvcc.profile). */
	add_inc(c, fsu_path(&f->arena, c->root, "include"), "include");
	add_dir(f, &c->lib, t->lib_dir, "lib");
	/* ROOT/targets/<arch>-linux/{include,lib}: where conda and the runfile put them */
	if (fsu_join(p, sizeof(p), c->root, "targets") == 0) {
		names = fsu_list(&f->arena, &f->root, p, NULL, "-linux", 8, &n, &trunc);
		for (i = 0; names && i < n; i++) {
			add_inc(c, arena_printf(&f->arena, "%s/%s/include", p, names[i]),
				"targets");
			add_dir(f, &c->lib, arena_printf(&f->arena, "%s/%s/lib", p, names[i]),
				"targets");
		}
	}
	/* CUDA 12 wheels: one include and lib directory per component under SITE/nvidia */
	if (site && !str_has_suffix(c->root, "/nvidia/cu13"))
		wheel_dirs(c, site, "cu13");
}

static int read_small(struct cd_facts *f, const char *path, struct cd_buf *b)
{
	buf_init(b, 0);
	if (file_read(&f->root, path, CUDAVER_FILE_MAX, b, NULL) == 0 && b->p)
		return 0;
	buf_free(b);
	return -1;
}

/* A version from a package-record name in the metadata directory. */
static const char *meta_version(struct tk_ctx *c, const char *wheel, const char *conda)
{
	const char **names;
	char v[CUDAVER_MAX];
	size_t n, i;
	int trunc;

	if (!c->meta)
		return NULL;
	names = fsu_list(&c->f->arena, &c->f->root, c->meta, c->meta_is_conda ? conda : wheel, NULL,
			 16, &n, &trunc);
	for (i = 0; names && i < n; i++)
		if (cudaver_pkgname(names[i], c->meta_is_conda ? conda : wheel, v, sizeof(v)) == 0)
			return arena_strdup(&c->f->arena, v);
	return NULL;
}

static void version(struct tk_ctx *c, struct cd_toolkit *t, const char **nvcc_ver,
		    const char **nvcc_src)
{
	struct cd_facts *f = c->f;
	char p[PATH_MAX], v[CUDAVER_MAX];
	struct cd_buf b;
	uint8_t *head;
	size_t i;
	int iv;

	*nvcc_ver = NULL;
	*nvcc_src = NULL;
	head = malloc(CUDAVER_HEADER_HEAD);
	if (fsu_join(p, sizeof(p), c->root, "version.json") == 0 && read_small(f, p, &b) == 0) {
		if (cudaver_json((const uint8_t *)b.p, b.len, "cuda", v, sizeof(v)) == 0) {
			t->version = arena_strdup(&f->arena, v);
			t->version_source = "version.json";
		}
		if (cudaver_json((const uint8_t *)b.p, b.len, "cuda_nvcc", v, sizeof(v)) == 0) {
			*nvcc_ver = arena_strdup(&f->arena, v);
			*nvcc_src = "version.json";
		}
		buf_free(&b);
	}
	if (!t->version && fsu_join(p, sizeof(p), c->root, "version.txt") == 0 &&
	    read_small(f, p, &b) == 0) {
		if (cudaver_txt((const uint8_t *)b.p, b.len, v, sizeof(v)) == 0) {
			t->version = arena_strdup(&f->arena, v);
			t->version_source = "version.txt";
			*nvcc_ver = t->version; /* one version for the whole toolkit then */
			*nvcc_src = "version.txt";
		}
		buf_free(&b);
	}
	if (!*nvcc_ver && (*nvcc_ver = meta_version(c, "nvidia_cuda_nvcc", "cuda-nvcc")))
		*nvcc_src = c->meta_is_conda ? "conda-meta" : "dist-info";
	if (!t->version && c->meta_is_conda && (t->version = meta_version(c, "", "cuda-version")))
		t->version_source = "conda-meta";
	for (i = 0; !t->version && i < c->inc.n && head; i++) {
		size_t n;
		if (fsu_join(p, sizeof(p), c->inc.dir[i], "cuda.h") ||
		    fsu_read_head(&f->root, p, head, CUDAVER_HEADER_HEAD, &n) ||
		    cudaver_header(head, n, &iv))
			continue;
		ver_cuda_str(iv, v, sizeof(v));
		t->version = arena_strdup(&f->arena, v);
		t->version_source = "cuda.h";
	}
	free(head);
	if (!t->version && (t->version = meta_version(c, "nvidia_cuda_runtime", "cuda-cudart")))
		t->version_source = c->meta_is_conda ? "conda-meta" : "dist-info";
}

/* The first lib<name>.so.N in dir, or NULL. */
static const char *versioned_in(struct cd_facts *f, const char *dir, const char *name)
{
	const char *prefix = arena_printf(&f->arena, "%s.", name), **names;
	size_t n;
	int trunc;

	names = prefix ? fsu_list(&f->arena, &f->root, dir, prefix, NULL, 8, &n, &trunc) : NULL;
	return names && n ? fsu_path(&f->arena, dir, names[0]) : NULL;
}

/* The first directory of d that holds h->name; for a library without an
 * unversioned copy anywhere, the first versioned one (when versions). */
static void find_file(struct cd_facts *f, const struct tk_dirs *d, struct cd_header *h,
		      const char *seen, int versions)
{
	char p[PATH_MAX];
	size_t k;

	for (k = 0; k < d->n; k++) {
		if (fsu_join(p, sizeof(p), d->dir[k], h->name) || !file_is_reg(&f->root, p))
			continue;
		h->scope = d->scope[k];
		h->present = !strcmp(h->scope, seen) ? CD_TRI_YES : CD_TRI_NO;
		h->path = arena_strdup(&f->arena, p);
		return;
	}
	for (k = 0; h->is_lib && versions && k < d->n; k++)
		if ((h->versioned = versioned_in(f, d->dir[k], h->name))) {
			h->scope = d->scope[k];
			return;
		}
}

static void files(struct tk_ctx *c, struct cd_toolkit *t)
{
	struct cd_facts *f = c->f;
	size_t i, n = devfiles_count();

	t->headers = n ? arena_calloc(&f->arena, n, sizeof(*t->headers)) : NULL;
	if (!t->headers)
		return;
	t->n_headers = n;
	for (i = 0; i < n; i++) {
		const struct devfiles_row *r = devfiles_at(i);
		struct cd_header *h = &t->headers[i];
		h->name = r->file;
		h->is_lib = r->is_lib;
		h->required = r->check == DEVFILES_CHECK_REQUIRED;
		h->listed = r->check != DEVFILES_CHECK_NONE;
		h->present = CD_TRI_NO; /* until found where a build looks */
		if (r->is_lib)
			find_file(f, &c->lib, h, "lib", 1);
		else
			find_file(f, &c->inc, h, "include", 0);
	}
}

/* bin/nvcc, and the nvcc it stands for when it is a link or a small
 * wrapper script ("exec /usr/local/cuda-13.0/bin/nvcc "$@""). */
static void nvcc(struct tk_ctx *c, struct cd_toolkit *t)
{
	struct cd_facts *f = c->f;
	char p[PATH_MAX], real[PATH_MAX], tgt[PATH_MAX];
	uint8_t head[CUDAVER_WRAPPER_MAX + 1];
	struct stat st;
	size_t n;

	if (fsu_join(p, sizeof(p), c->root, "bin/nvcc") || !fsu_is_exec(&f->root, p))
		return;
	t->nvcc_path = arena_strdup(&f->arena, p);
	if (file_lstat(&f->root, p, &st) == 0 && S_ISLNK(st.st_mode) &&
	    file_realpath(&f->root, p, real, sizeof(real)) == 0) {
		t->nvcc_target = arena_strdup(&f->arena, real);
		return;
	}
	if (fsu_read_head(&f->root, p, head, sizeof(head), &n) == 0 && n <= CUDAVER_WRAPPER_MAX &&
	    cudaver_wrapper(head, n, tgt, sizeof(tgt)) == 0 && strcmp(tgt, p))
		t->nvcc_target = arena_strdup(&f->arena, tgt);
}

/* A toolkit from NVIDIA's apt repository has no version.json; dpkg knows the
 * version of the cuda-nvcc-X-Y package, once its file list shows that it owns
 * this toolkit's nvcc. */
static const char *dpkg_nvcc(struct tk_ctx *c, const struct cd_toolkit *t)
{
	struct cd_facts *f = c->f;
	int v = t->version ? ver_cuda_int(t->version) : -1;
	char pkg[32], path[PATH_MAX], want[PATH_MAX], out[CUDAVER_MAX];
	struct cd_buf b;
	const char *res = NULL;
	int owned;

	if (v <= 0 || !t->realpath)
		return NULL;
	snprintf(pkg, sizeof(pkg), "cuda-nvcc-%d-%d", v / 1000, (v % 1000) / 10);
	snprintf(path, sizeof(path), "/var/lib/dpkg/info/%s.list", pkg);
	if (snprintf(want, sizeof(want), "\n%s/bin/nvcc\n", t->realpath) >= (int)sizeof(want))
		return NULL;
	buf_init(&b, 0);
	if (file_read(&f->root, path, (size_t)1 << 20, &b, NULL) || !b.p) {
		buf_free(&b);
		return NULL;
	}
	owned = memmem(b.p, b.len, want, strlen(want)) != NULL;
	buf_free(&b);
	if (!owned)
		return NULL;
	buf_init(&b, 0);
	if (file_read(&f->root, "/var/lib/dpkg/status", CUDAVER_DPKG_MAX, &b, NULL) == 0 && b.p &&
	    cudaver_dpkg((const uint8_t *)b.p, b.len, pkg, out, sizeof(out)) == 0)
		res = arena_strdup(&f->arena, out);
	buf_free(&b);
	return res;
}

void tkscan_fill(struct cd_facts *f, const char *root, const char *found_via, struct cd_toolkit *t)
{
	struct tk_ctx c;
	char real[PATH_MAX];
	const char *nvcc_ver = NULL, *nvcc_src = NULL;

	memset(&c, 0, sizeof(c));
	memset(t, 0, sizeof(*t));
	c.f = f;
	c.root = root;
	t->root = root;
	t->found_via = found_via;
	t->exists = file_is_dir(&f->root, root) ? CD_TRI_YES : CD_TRI_NO;
	t->lib_dir = lib_dir_of(f, root);
	if (t->exists == CD_TRI_YES && file_realpath(&f->root, root, real, sizeof(real)) == 0)
		t->realpath = arena_strdup(&f->arena, real);
	if (t->exists == CD_TRI_YES) {
		layout(&c, t);
		version(&c, t, &nvcc_ver, &nvcc_src);
		nvcc(&c, t);
		/* nvcc's own version when its metadata says, else the toolkit's: the
		 * compiler in bin/ is the one the headers beside it came with. */
		if (t->nvcc_path && !t->nvcc_target && !nvcc_ver && !strcmp(t->kind, "system") &&
		    (nvcc_ver = dpkg_nvcc(&c, t)))
			nvcc_src = "dpkg";
		if (t->nvcc_path && !t->nvcc_target) {
			t->nvcc_version = nvcc_ver ? nvcc_ver : t->version;
			t->nvcc_version_source = nvcc_ver ? nvcc_src : t->version_source;
		}
	}
	files(&c, t);
}

void tkscan_wheels(struct cd_facts *f, const char *site, struct cd_toolkit *t)
{
	struct tk_ctx c;

	memset(&c, 0, sizeof(c));
	memset(t, 0, sizeof(*t));
	c.f = f;
	t->root = fsu_path(&f->arena, site, "nvidia");
	t->found_via = "pip";
	t->kind = "pip";
	t->exists = t->root && file_is_dir(&f->root, t->root) ? CD_TRI_YES : CD_TRI_NO;
	if (t->exists == CD_TRI_YES)
		wheel_dirs(&c, site, NULL);
	files(&c, t);
}

/* The Debian multiarch directory name of this machine. */
static const char *multiarch(void)
{
	struct utsname u;

	return uname(&u) == 0 && !strcmp(u.machine, "aarch64") ? "aarch64-linux-gnu"
							       : "x86_64-linux-gnu";
}

/* Where ld looks after -L: LIBRARY_PATH, then the multiarch directories and
 * the default search directories of a Linux toolchain. */
static void linker_dirs(struct cd_facts *f, struct tk_dirs *d)
{
	static const char *const sysdirs[] = {"/usr/lib64", "/lib64", "/usr/lib", "/lib",
					      "/usr/local/lib"};
	const char *p = facts_getenv(f, "LIBRARY_PATH");
	size_t i;
	int n = 0;

	while (p && *p && n++ < TK_LDPATH_MAX) {
		size_t len = strcspn(p, ":");
		if (len && p[0] == '/')
			add_dir(f, d, arena_strndup(&f->arena, p, len), "linker");
		p += len + (p[len] == ':');
	}
	add_dir(f, d, arena_printf(&f->arena, "/usr/lib/%s", multiarch()), "linker");
	add_dir(f, d, arena_printf(&f->arena, "/lib/%s", multiarch()), "linker");
	for (i = 0; i < sizeof(sysdirs) / sizeof(sysdirs[0]); i++)
		add_dir(f, d, sysdirs[i], "linker");
}

void tkscan_linker(struct cd_facts *f, struct cd_toolkit *t)
{
	struct tk_dirs d;
	size_t i;
	int listed = 0;

	for (i = 0; i < t->n_headers; i++) {
		struct cd_header *h = &t->headers[i], found;
		if (!h->is_lib || h->present == CD_TRI_YES)
			continue;
		if (!listed++) {
			memset(&d, 0, sizeof(d));
			linker_dirs(f, &d);
		}
		found = *h;
		found.path = found.versioned = found.scope = NULL;
		find_file(f, &d, &found, "linker", 0); /* -l takes no versioned copy */
		if (found.path)
			*h = found;
	}
}

/* A header name as an #include gives it (explain takes them from logs):
 * relative, and no ".." component to climb out of the include directory. */
static int header_name_ok(const char *name)
{
	const char *p = name;

	if (!*name || name[0] == '/')
		return 0;
	while (p) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return 0;
		p = strchr(p, '/');
		p = p ? p + 1 : NULL;
	}
	return 1;
}

void tkscan_headers(struct cd_facts *f, struct cd_toolkit *t, const char *const *names, size_t n)
{
	struct cd_toolkit scratch = *t; /* layout() records the kind again */
	struct tk_ctx c;
	size_t i;

	t->asked = n ? arena_calloc(&f->arena, n, sizeof(*t->asked)) : NULL;
	t->n_asked = t->asked ? n : 0;
	memset(&c, 0, sizeof(c));
	c.f = f;
	c.root = t->root;
	if (t->exists == CD_TRI_YES)
		layout(&c, &scratch);
	for (i = 0; i < t->n_asked; i++) {
		struct cd_header *h = &t->asked[i];
		h->name = arena_strdup(&f->arena, names[i]);
		h->present = CD_TRI_UNKNOWN;
		if (!h->name || !header_name_ok(h->name))
			continue;
		h->present = CD_TRI_NO; /* until found in ROOT/include */
		find_file(f, &c.inc, h, "include", 0);
	}
}
