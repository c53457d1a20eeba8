/* libs_owner: where a library file of the session comes from: its canonical
 * in-root path (realpath(3) through a per-run cache), the site directory it
 * lies in, the distribution that owns it (torch's wheel layout, a wheel's
 * .libs directory, else the RECORD of the nvidia-* wheels in that site) and
 * its version (its file name, else its wheel's). Bounded: CANON_CACHE paths
 * cached, RECORD rows kept up to REC_MAX, each RECORD read at most once. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "core/vec.h"
#include "format/record.h"
#include "probe/stack/libs_int.h"
#include "probe/stack/libs_util.h"

#define REC_MAX	     8192
#define RECORD_BYTES ((size_t)4 << 20)

struct rec {
	const char *rel; /* relative to its site directory */
	size_t site;
	const struct cd_package *pkg;
};

#define CANON_CACHE 1024
#define CANON_HOPS  40

struct libs_ostate {
	const char *canon_in[CANON_CACHE], *canon_out[CANON_CACHE];
	size_t n_canon;
	struct rec *recs;
	size_t n_recs, cap_recs;
	unsigned char site_read[64];
	const char **site_real; /* canonical site paths */
};

static struct libs_ostate *os_of(struct libs_run *r)
{
	if (!r->owner_state)
		r->owner_state = arena_alloc(&r->f->arena, sizeof(struct libs_ostate));
	return r->owner_state;
}

/* Canonical in-root path, as realpath(3) would give it, resolved one
 * component at a time from a cache: every directory (and file) is looked up
 * once per run with one lstat, and a symbolic link with one readlink. This
 * replaces a readlink per component of every path (the paths of a venv are
 * a dozen components deep). NULL when a component does not exist or the
 * links go round more than CANON_HOPS times. */
static const char *canon_at(struct libs_run *r, struct libs_ostate *os, const char *path, int hops)
{
	const char *slash, *pc, *name, *cand, *out;
	char target[PATH_MAX];
	struct stat st;
	size_t i, n;

	if (!path || hops > CANON_HOPS)
		return NULL;
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n <= 1)
		return "/";
	path = arena_strndup(&r->f->arena, path, n);
	for (i = 0; path && i < os->n_canon; i++)
		if (!strcmp(os->canon_in[i], path))
			return os->canon_out[i];
	slash = path ? strrchr(path, '/') : NULL;
	if (!slash)
		return NULL; /* relative: not ours to resolve */
	name = slash + 1;
	pc = canon_at(r, os,
		      slash == path ? "/"
				    : arena_strndup(&r->f->arena, path, (size_t)(slash - path)),
		      hops);
	if (!pc)
		return NULL;
	if (!strcmp(name, ".") || !*name) {
		out = pc;
	} else if (!strcmp(name, "..")) {
		const char *up = strrchr(pc, '/');
		out = up && up != pc ? arena_strndup(&r->f->arena, pc, (size_t)(up - pc)) : "/";
	} else {
		cand = fsu_path(&r->f->arena, pc, name);
		if (!cand || file_lstat(&r->f->root, cand, &st))
			return NULL;
		out = cand;
		if (S_ISLNK(st.st_mode)) {
			if (file_readlink(&r->f->root, cand, target, sizeof(target)) || !target[0])
				return NULL;
			out = canon_at(r, os,
				       target[0] == '/' ? target
							: fsu_path(&r->f->arena, pc, target),
				       hops + 1);
		}
	}
	if (out && os->n_canon < CANON_CACHE) {
		os->canon_in[os->n_canon] = path;
		os->canon_out[os->n_canon++] = out;
	}
	return out;
}

const char *libs_canon(struct libs_run *r, const char *path)
{
	struct libs_ostate *os = os_of(r);

	return os ? canon_at(r, os, path, 0) : NULL;
}

/* ---- site directories and owners ------------------------------------------ */

int libs_site_of(const struct cd_stack_facts *st, const char *path, size_t *rel)
{
	size_t i, n;

	for (i = 0; path && i < st->python.n_site; i++) {
		n = strlen(st->python.site[i].path);
		if (!strncmp(path, st->python.site[i].path, n) && path[n] == '/') {
			*rel = n + 1;
			return (int)i;
		}
	}
	return -1;
}

/* The site index of path, trying the canonical site paths too. */
int libs_site_index(struct libs_run *r, const char *path, size_t *rel)
{
	struct libs_ostate *os = os_of(r);
	const struct cd_python_facts *py = &r->st->python;
	size_t i, n;
	int s = libs_site_of(r->st, path, rel);

	if (s >= 0 || !os)
		return s;
	if (!os->site_real) {
		os->site_real = arena_calloc(&r->f->arena, py->n_site + 1, sizeof(char *));
		for (i = 0; os->site_real && i < py->n_site; i++)
			os->site_real[i] = libs_canon(r, py->site[i].path);
	}
	for (i = 0; os->site_real && path && i < py->n_site; i++) {
		if (!os->site_real[i])
			continue;
		n = strlen(os->site_real[i]);
		if (!strncmp(path, os->site_real[i], n) && path[n] == '/') {
			*rel = n + 1;
			return (int)i;
		}
	}
	return -1;
}

struct rec_ctx {
	struct libs_run *r;
	struct libs_ostate *os;
	size_t site;
	const struct cd_package *pkg;
};

static int keep_row(const char *path, size_t len, void *vctx)
{
	struct rec_ctx *c = vctx;
	struct libs_ostate *os = c->os;
	struct rec *grown;

	if (!strstr(path, ".so") || os->n_recs >= REC_MAX)
		return os->n_recs >= REC_MAX;
	grown = vec_grow(&c->r->f->arena, os->recs, &os->cap_recs, os->n_recs, sizeof(*grown), 64,
			 REC_MAX);
	if (!grown)
		return 1;
	os->recs = grown;
	os->recs[os->n_recs].rel = arena_strndup(&c->r->f->arena, path, len);
	os->recs[os->n_recs].site = c->site;
	os->recs[os->n_recs].pkg = c->pkg;
	os->n_recs++;
	return 0;
}

/* RECORD of the nvidia-* wheels of one site directory, once. */
static void read_records(struct libs_run *r, struct libs_ostate *os, size_t site)
{
	const struct cd_stack_facts *st = r->st;
	struct rec_ctx c = {r, os, site, NULL};
	struct cd_buf b;
	size_t i;

	if (site >= sizeof(os->site_read) || os->site_read[site])
		return;
	os->site_read[site] = 1;
	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i];
		const char *rec;
		if (p->site != site || !p->path || !str_has_prefix(p->name, "nvidia-"))
			continue;
		rec = fsu_path(&r->f->arena, p->path, "RECORD");
		buf_init(&b, RECORD_BYTES);
		c.pkg = p;
		/* Rows that cannot be read are skipped; the ones read stand. */
		if (rec && file_read(&r->f->root, rec, RECORD_BYTES, &b, NULL) == 0 && b.p)
			(void)!record_each((const uint8_t *)b.p, b.len, keep_row, &c, NULL);
		buf_free(&b);
	}
}

static const struct cd_package *owner_pkg(struct libs_run *r, const char *path)
{
	struct libs_ostate *os = os_of(r);
	char name[128];
	size_t rel, i, first;
	int site = libs_site_index(r, path, &rel);
	const char *rp;

	if (site < 0 || !os)
		return NULL;
	rp = path + rel;
	if (str_has_prefix(rp, "torch/"))
		return stack_find(r->st, "torch");
	first = strcspn(rp, "/");
	if (rp[first] == '/' && first > 5 && !strncmp(rp + first - 5, ".libs", 5)) {
		libs_dist_name(rp, name, sizeof(name));
		return stack_find(r->st, name);
	}
	read_records(r, os, (size_t)site);
	for (i = 0; i < os->n_recs; i++)
		if (os->recs[i].site == (size_t)site && !strcmp(os->recs[i].rel, rp))
			return os->recs[i].pkg;
	return NULL;
}

int libs_owner(struct libs_run *r, const char *path, const char **owner, const char **version)
{
	const struct cd_package *p = owner_pkg(r, path);

	*owner = *version = NULL;
	if (!p)
		return CD_ENOENT;
	*version = p->version;
	*owner = arena_printf(&r->f->arena, "%s %s", p->name, p->version ? p->version : "?");
	return 0;
}

/* Where path lies with its directory resolved but not the file itself: in
 * a tree of links the file's own link is what the environment installed. */
static const char *placed_at(struct libs_run *r, const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL, *dir;

	if (!slash || slash == path)
		return NULL;
	dir = libs_canon(r, arena_strndup(&r->f->arena, path, (size_t)(slash - path)));
	return dir ? fsu_path(&r->f->arena, dir, slash + 1) : NULL;
}

/* Version of a file: a full one from its real name, else its wheel's, else
 * the short one of its name. The owner is that of its real path; when that
 * has none (the real file lies in a tree the environment links into: a
 * `cp -rs` copy, uv's symlink mode, a Nix or Bazel tree), that of the place
 * it was opened from, which the environment's RECORD names. */
void libs_version_of(struct libs_run *r, const char *path, const char *real, const char **version,
		     const char **source, const char **owner)
{
	const char *base = real ? strrchr(real, '/') : NULL, *wv = NULL, *at;
	char v[64];
	int parts = base ? libs_file_version(base + 1, v, sizeof(v)) : 0;

	*version = *source = *owner = NULL;
	if (real) /* no owner: both stay NULL */
		(void)!libs_owner(r, real, owner, &wv);
	if (!*owner && real && (at = placed_at(r, path)) && strcmp(at, real))
		(void)!libs_owner(r, at, owner, &wv);
	if (parts >= 3) {
		*version = arena_strdup(&r->f->arena, v);
		*source = "file-name";
	} else if (wv) {
		*version = wv;
		*source = "wheel";
	} else if (parts == 2) {
		*version = arena_strdup(&r->f->arena, v);
		*source = "file-name";
	}
}

int libs_nvrtc_mm(struct libs_run *r, char *out, size_t cap)
{
	const char *v = NULL, *src, *own, *dot;
	size_t i;

	for (i = 0; i < r->s.n_objs && !v; i++)
		if (r->s.objs[i].soname && str_has_prefix(r->s.objs[i].soname, "libnvrtc.so."))
			libs_version_of(r, r->s.objs[i].path, libs_canon(r, r->s.objs[i].path), &v,
					&src, &own);
	if (!v)
		v = r->st->torch.cuda;
	dot = v ? strchr(v, '.') : NULL;
	if (!dot || dot[1] < '0' || dot[1] > '9')
		return CD_ENOENT;
	snprintf(out, cap, "%.*s", (int)((size_t)(dot - v) + 1 + strspn(dot + 1, "0123456789")), v);
	return 0;
}
