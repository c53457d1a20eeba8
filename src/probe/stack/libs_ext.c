/* libs_ext: compiled extensions in site-packages that carry CUDA device code
 * or link torch (flash-attn, xformers, vllm, apex, bitsandbytes, deepspeed
 * ops, torchvision, torchaudio, ...). Where they are looked for: the *.so at
 * the top of each site directory (setup.py ext_modules such as
 * flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so land there) and the
 * package directories of distributions that require torch (or are known
 * CUDA extension packages), EXT_DEPTH levels down. Symbolic links to
 * directories are not followed (no loops); nvidia-* and torch itself are
 * skipped (their libraries cover every arch by design), and so are pure
 * Python wheels (WHEEL: Root-Is-Purelib, -none-any tags) except under
 * --deep. Bounded: at most
 * EXT_FILES files opened and EXT_DIRS directories read (eight times that
 * under `check --deep`), and LIBS_EXT_MAX extensions kept. */
#include <dirent.h>
#include <string.h>

#include "core/buf.h"
#include "core/file.h"
#include "core/fmap.h"
#include "core/fsutil.h"
#include "core/span.h"
#include "core/str.h"
#include "format/elf.h"
#include "probe/stack/libs_int.h"
#include "probe/stack/libs_util.h"

#define EXT_DEPTH      3
#define EXT_FILES      256
#define EXT_DIRS       1024
#define FILE_MAX       ((size_t)1 << 36)
#define WHEEL_FILE_MAX 4096 /* a WHEEL file is a few short lines */

/* CUDA extension packages that may not declare torch in their metadata. */
static const char *const known[] = {"bitsandbytes",  "flash-attn",    "xformers",
				    "vllm",	     "apex",	      "deepspeed",
				    "torchvision",   "torchaudio",    "transformer-engine",
				    "mamba-ssm",     "causal-conv1d", "flashinfer-python",
				    "torch-scatter", "torch-sparse",  "pytorch3d",
				    "detectron2",    "flash-attn-3",  "sageattention"};

struct ewalk {
	struct libs_run *r;
	size_t files, dirs, max_files, max_dirs;
	int depth_max;
	const struct cd_package *pkg;
};

static int requires_torch(const struct cd_package *p)
{
	size_t i, n;

	for (i = 0; i < p->n_requires; i++) {
		n = strcspn(p->requires[i], " <>=!~;[(");
		if (n == 5 && !strncmp(p->requires[i], "torch", 5))
			return 1;
	}
	return 0;
}

/* 1 when the distribution's WHEEL says it is pure Python: Root-Is-Purelib
 * true and every tag "...-none-any" (transformers, accelerate, peft): such a
 * wheel has no compiled extension to look for, and its package tree is the
 * largest walk of the stage. Unreadable or absent: 0 (walked). */
static int pure_wheel(struct libs_run *r, const struct cd_package *p)
{
	struct cd_buf b;
	struct cd_span line;
	size_t pos = 0, tags = 0;
	int purelib = 0, other = 0;
	const char *path = p->path ? fsu_path(&r->f->arena, p->path, "WHEEL") : NULL;

	buf_init(&b, WHEEL_FILE_MAX);
	if (!path || file_read(&r->f->root, path, WHEEL_FILE_MAX, &b, NULL) || !b.p) {
		buf_free(&b);
		return 0;
	}
	while (span_line((const uint8_t *)b.p, b.len, &pos, 1, &line)) {
		const char *l = (const char *)line.p;
		if (line.n == 21 && !strncmp(l, "Root-Is-Purelib: true", 21))
			purelib = 1;
		else if (line.n > 5 && !strncmp(l, "Tag: ", 5)) {
			tags++;
			other |= line.n < 14 || strncmp(l + line.n - 9, "-none-any", 9);
		}
	}
	buf_free(&b);
	return purelib && tags && !other;
}

static int is_candidate_pkg(struct libs_run *r, const struct cd_package *p)
{
	size_t i;

	if (!p->name || !strcmp(p->name, "torch") || str_has_prefix(p->name, "nvidia-") ||
	    !(p->sources & CD_PKG_DIST))
		return 0;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(p->name, known[i]))
			return 1;
	return requires_torch(p) && (r->L->deep || !pure_wheel(r, p));
}

/* The distribution a top-level module file stands for: its name, then with
 * trailing "-part"s dropped ("flash-attn-2-cuda" -> "flash-attn"). */
static const struct cd_package *pkg_of_file(const struct cd_stack_facts *st, const char *file)
{
	char name[128];
	const struct cd_package *p;
	char *dash;

	libs_dist_name(file, name, sizeof(name));
	for (;;) {
		p = stack_find(st, name);
		if (p)
			return p;
		dash = strrchr(name, '-');
		if (!dash)
			return NULL;
		*dash = '\0';
	}
}

static void examine(struct ewalk *w, const char *path, const struct cd_package *pkg)
{
	struct cd_libs_facts *L = w->r->L;
	struct cd_arena *a = &w->r->f->arena;
	struct cd_fmap m;
	struct elf_file e;
	struct elf_dynamic d;
	struct elf_shdr sh;
	struct cd_err err = {0};
	struct cd_ext *x;
	int links = 0, fatbin;
	size_t i;

	if (w->files >= w->max_files) {
		L->ext_truncated = 1;
		return;
	}
	w->files++;
	L->ext_files++;
	memset(&m, 0, sizeof(m));
	if (fmap_open(&w->r->f->root, path, FILE_MAX, &m, &err) || elf_parse(m.p, m.n, &e, &err) ||
	    elf_dynamic_read(&e, a, &d, &err)) {
		fatbin = -1;
	} else {
		for (i = 0; i < d.n_needed; i++)
			links |= str_has_prefix(d.needed[i], "libtorch") ||
				 str_has_prefix(d.needed[i], "libc10");
		fatbin = elf_section_find(&e, ".nv_fatbin", &sh) == 0;
	}
	fmap_close(&m);
	if ((fatbin == 0 && !links) || L->n_ext >= LIBS_EXT_MAX) {
		L->ext_truncated |= L->n_ext >= LIBS_EXT_MAX && (fatbin || links);
		return;
	}
	x = &L->ext[L->n_ext++];
	x->path = arena_strdup(a, path);
	x->package = pkg ? pkg->name : NULL;
	x->version = pkg ? pkg->version : NULL;
	x->links_torch = links;
	if (fatbin < 0) {
		x->error = arena_strdup(a, err.msg);
		return;
	}
	x->has_fatbin = fatbin;
	if (fatbin)
		libs_archset_read(&w->r->f->root, a, path, L->deep, &x->arch);
}

static int is_dir_entry(struct ewalk *w, const char *path, const struct dirent *e, int *reg)
{
	struct stat st;

	*reg = e->d_type == DT_REG || e->d_type == DT_LNK; /* a link to a file is fine */
	if (e->d_type == DT_DIR)
		return 1;
	if (e->d_type != DT_UNKNOWN || file_lstat(&w->r->f->root, path, &st))
		return 0;
	*reg = S_ISREG(st.st_mode);
	return S_ISDIR(st.st_mode);
}

static void walk(struct ewalk *w, const char *dir, int depth)
{
	struct cd_arena *a = &w->r->f->arena;
	DIR *d;
	struct dirent *e;
	const char *sub[64];
	size_t n_sub = 0, i;
	int reg;

	if (w->dirs >= w->max_dirs) {
		w->r->L->ext_truncated = 1;
		return;
	}
	w->dirs++;
	d = file_opendir(&w->r->f->root, dir);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		const char *path;
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "__pycache__") ||
		    !strcmp(e->d_name, "include") || !strcmp(e->d_name, "tests"))
			continue;
		path = fsu_path(a, dir, e->d_name);
		if (!path)
			break;
		if (is_dir_entry(w, path, e, &reg)) {
			if (depth < w->depth_max && n_sub < sizeof(sub) / sizeof(sub[0]))
				sub[n_sub++] = path;
		} else if (reg && str_has_suffix(e->d_name, ".so")) {
			examine(w, path, w->pkg);
		}
	}
	closedir(d);
	for (i = 0; i < n_sub; i++)
		walk(w, sub[i], depth + 1);
}

static void site_top(struct ewalk *w, const char *site)
{
	const char **names;
	size_t n = 0, i;
	int trunc = 0;

	names = fsu_list(&w->r->f->arena, &w->r->f->root, site, NULL, ".so", 256, &n, &trunc);
	for (i = 0; names && i < n; i++)
		examine(w, fsu_path(&w->r->f->arena, site, names[i]),
			pkg_of_file(w->r->st, names[i]));
}

void libs_ext(struct libs_run *r)
{
	const struct cd_stack_facts *st = r->st;
	struct ewalk w;
	size_t i, k;
	char dirname[128];

	memset(&w, 0, sizeof(w));
	w.r = r;
	w.max_files = r->L->deep ? EXT_FILES * 8 : EXT_FILES;
	w.max_dirs = r->L->deep ? EXT_DIRS * 8 : EXT_DIRS;
	w.depth_max = r->L->deep ? EXT_DEPTH + 3 : EXT_DEPTH;
	r->L->ext = arena_calloc(&r->f->arena, LIBS_EXT_MAX, sizeof(*r->L->ext));
	if (!r->L->ext)
		return;
	for (i = 0; i < st->python.n_site; i++)
		site_top(&w, st->python.site[i].path);
	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i];
		const char *dir;
		if (!is_candidate_pkg(r, p) || p->site >= st->python.n_site)
			continue;
		for (k = 0; p->name[k] && k + 1 < sizeof(dirname); k++)
			dirname[k] = p->name[k] == '-' ? '_' : p->name[k];
		dirname[k] = '\0';
		dir = fsu_path(&r->f->arena, st->python.site[p->site].path, dirname);
		if (dir && !file_is_dir(&r->f->root, dir) && strchr(dirname, '_'))
			dir = arena_printf(&r->f->arena, "%s/%.*s", st->python.site[p->site].path,
					   (int)strcspn(dirname, "_"), dirname);
		if (!dir || !file_is_dir(&r->f->root, dir))
			continue;
		w.pkg = p;
		walk(&w, dir, 0);
	}
}
