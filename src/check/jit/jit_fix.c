/* jit_fix: the commands that put missing toolkit files in place, from
 * data/cuda_dev_files.tsv (kb/devfiles.h): another toolkit that has them all (CUDA_HOME),
 * the NVIDIA apt packages and conda packages for this CUDA version, pip
 * wheels plus CPATH for headers, and a link for a library that exists only
 * with its version suffix (pip wheels ship libcurand.so.10, not
 * libcurand.so, which `-lcurand` needs). */
#include <stdio.h>
#include <string.h>

#include "check/jit/jit_int.h"
#include "core/buf.h"
#include "core/str.h"
#include "kb/devfiles.h"

struct pkgs {
	struct cd_buf apt, conda, pip;
};

/* Append word to b unless it is already there. */
static int add_word(struct cd_buf *b, const char *w)
{
	const char *p = b->p;
	size_t n = strlen(w);

	while (p && (p = strstr(p, w))) {
		if ((p == b->p || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 0;
		p += n;
	}
	return buf_printf(b, "%s%s", b->len ? " " : "", w);
}

/* The row's package of kind pm, when the row names one. */
static int add_package(struct cd_buf *b, const struct devfiles_row *r, enum devfiles_pm pm, int ma,
		       int mi)
{
	char p[DEVFILES_PKG_MAX];

	return devfiles_package(r, pm, ma, mi, p, sizeof(p)) == 0 ? add_word(b, p) : 0;
}

/* The packages of the files' rows, in the table's order; a list that did
 * not fit is CD_ENOMEM (a fix line missing a package would mislead). */
static int collect(const char *const *files, size_t n, int ma, int mi, struct pkgs *p)
{
	size_t i, k;
	int rc = 0;

	for (k = 0; !rc && k < devfiles_count(); k++) {
		const struct devfiles_row *r = devfiles_at(k);
		for (i = 0; !rc && i < n; i++) {
			if (strcmp(r->file, files[i]))
				continue;
			rc = add_package(&p->apt, r, DEVFILES_APT, ma, mi);
			if (!rc)
				rc = add_package(&p->conda, r, DEVFILES_CONDA, ma, mi);
			/* pip wheels carry headers, but no unversioned lib*.so for -l. */
			if (!rc && !r->is_lib)
				rc = add_package(&p->pip, r,
						 ma >= 13 ? DEVFILES_PIP_CU13 : DEVFILES_PIP_CU12,
						 ma, mi);
		}
	}
	return rc;
}

/* An other toolkit that holds every missing file. */
static const char *complete_other(const struct cd_jit_facts *jf, const char *const *files, size_t n)
{
	size_t k, i, e;

	for (k = 0; k < jf->tk.n_others; k++) {
		const char *root = jf->tk.others[k];
		size_t rl = strlen(root), have = 0;
		for (i = 0; i < n; i++) {
			const struct jit_file *x = jit_file_get(jf, files[i]);
			for (e = 0; x && e < x->n_elsewhere; e++)
				if (!strncmp(x->elsewhere[e], root, rl) &&
				    x->elsewhere[e][rl] == '/') {
					have++;
					break;
				}
		}
		if (have == n)
			return root;
	}
	return NULL;
}

/* The site-packages include directories of the missing headers, for CPATH;
 * CD_ENOMEM when they do not fit. */
static int header_paths(const struct cd_jit_facts *jf, const char *const *files, size_t n,
			struct cd_buf *cpath)
{
	size_t i, e;
	int rc = 0;

	for (i = 0; !rc && i < n; i++) {
		const struct jit_file *x = jit_file_get(jf, files[i]);
		for (e = 0; x && !x->is_lib && e < x->n_elsewhere; e++) {
			const char *p = x->elsewhere[e];
			char dir[PATH_MAX];
			if (!jf->py.site_packages ||
			    strncmp(p, jf->py.site_packages, strlen(jf->py.site_packages)))
				continue;
			str_ncopy(dir, sizeof(dir), p, strlen(p) - strlen(x->name) - 1);
			if (!cpath->p || !strstr(cpath->p, dir))
				rc = buf_printf(cpath, "%s%s", cpath->len ? ":" : "", dir);
			break;
		}
	}
	return rc;
}

static void lib_links(const struct cd_jit_facts *jf, struct cd_finding *x, struct cd_arena *a,
		      const char *const *files, size_t n)
{
	struct cd_buf dirs;
	size_t i, e;
	int links = 0, rc = 0;

	buf_init(&dirs, 8192);
	for (i = 0; i < n; i++) {
		const struct jit_file *f = jit_file_get(jf, files[i]);
		const char *v = NULL, *u = NULL;
		if (!f || !f->is_lib)
			continue;
		for (e = 0; e < f->n_elsewhere; e++) {
			if (str_has_suffix(f->elsewhere[e], f->name) && !u)
				u = f->elsewhere[e];
			else if (!v)
				v = f->elsewhere[e];
		}
		if (!u && !v && f->note && !strncmp(f->note, "only ", 5))
			v = arena_strndup(a, f->note + 5, strcspn(f->note + 5, " "));
		if (u) {
			/* An unversioned copy elsewhere: let the linker search there. */
			char dir[PATH_MAX];
			str_ncopy(dir, sizeof(dir), u, strlen(u) - strlen(f->name) - 1);
			if (!rc && (!dirs.p || !strstr(dirs.p, dir)))
				rc = buf_printf(&dirs, "%s%s", dirs.len ? ":" : "", dir);
			continue;
		}
		if (!v)
			continue;
		if (!links++)
			finding_fix(x, a, "mkdir -p $HOME/.local/lib/cuda-dev");
		finding_fix(x, a, "ln -sf %s $HOME/.local/lib/cuda-dev/%s", jit_sq(a, v), f->name);
	}
	if (links && !rc)
		rc = buf_printf(&dirs, "%s$HOME/.local/lib/cuda-dev", dirs.len ? ":" : "");
	/* A LIBRARY_PATH missing a directory would not fix the link. */
	if (dirs.len && !rc)
		finding_fix(x, a, "export LIBRARY_PATH=%s:$LIBRARY_PATH", dirs.p);
	buf_free(&dirs);
}

void jit_fix_files(const struct cd_jit_facts *jf, struct cd_finding *x, struct cd_arena *a,
		   const char *const *files, size_t n)
{
	const char *other = complete_other(jf, files, n);
	struct pkgs p;
	struct cd_buf cpath;
	int ma = jf->tk.nvcc_major, mi = jf->tk.nvcc_minor;

	if (other)
		finding_fix(x, a, "export CUDA_HOME=%s   # has all of them", other);
	if (ma < 0 && jit_torch_cuda(jf, &ma, &mi) != 0)
		return;
	buf_init(&p.apt, 4096);
	buf_init(&p.conda, 4096);
	buf_init(&p.pip, 4096);
	buf_init(&cpath, 8192);
	if (collect(files, n, ma, mi, &p)) {
		buf_reset(&p.apt);
		buf_reset(&p.conda);
		buf_reset(&p.pip);
	}
	if (p.apt.len)
		finding_fix(x, a, "sudo apt-get install %s   # NVIDIA's CUDA apt repository",
			    p.apt.p);
	if (p.conda.len)
		finding_fix(x, a, "conda install -c nvidia/label/cuda-%d.%d.0 %s", ma, mi,
			    p.conda.p);
	if (header_paths(jf, files, n, &cpath))
		buf_reset(&cpath);
	if (cpath.len)
		finding_fix(x, a, "export CPATH=%s:$CPATH   # headers from pip's nvidia wheels",
			    cpath.p);
	else if (p.pip.len && ma >= 13) {
		char *c;
		for (c = p.pip.p; *c; c++)
			if (*c == ' ')
				*c = ',';
		finding_fix(x, a,
			    "pip install \"cuda-toolkit[%s]==%d.%d.*\"   # then add "
			    "site-packages/nvidia/cu%d/include to CPATH",
			    p.pip.p, ma, mi, ma);
	} else if (p.pip.len)
		finding_fix(
			x, a,
			"pip install %s   # then add site-packages/nvidia/<lib>/include to CPATH",
			p.pip.p);
	lib_links(jf, x, a, files, n);
	buf_free(&p.apt);
	buf_free(&p.conda);
	buf_free(&p.pip);
	buf_free(&cpath);
}
