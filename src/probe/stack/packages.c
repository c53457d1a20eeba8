/* packages: the distributions of the environment found by python.c, read
 * as importlib.metadata and pip see them: every *.dist-info and *.egg-info in
 * the site directories, in sys.path order (the first copy of a name wins, the
 * others are kept as `shadowed`), plus the records in PREFIX/conda-meta.
 * Only the header block of each METADATA is read (it ends at the first blank
 * line, before the long description), in chunks, capped at 1 MiB. */
#include "probe/stack/stack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "core/vec.h"
#include "format/distinfo.h"
#include "format/pep508.h"

#define SITE_ENTRIES_MAX 50000		   /* directory entries looked at per site dir */
#define PACKAGES_MAX	 20000		   /* distributions and conda records kept */
#define META_CHUNK	 8192		   /* first read of a METADATA file */
#define META_HEAD_MAX	 ((size_t)1 << 20) /* header block read at most */
#define CONDA_JSON_MAX	 ((size_t)64 << 20)
#define PROBLEMS_MAX	 64

struct pctx {
	struct cd_facts *f;
	struct cd_arena *a;
	struct cd_stack_facts *st;
	struct cd_package *pk; /* malloc'd while scanning, copied to the arena */
	size_t n, cap;
	const char *problems[PROBLEMS_MAX];
	size_t n_problems;
};

static int by_text(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void problem(struct pctx *c, const char *msg)
{
	if (msg && c->n_problems < PROBLEMS_MAX)
		c->problems[c->n_problems++] = msg;
}

static struct cd_package *new_pkg(struct pctx *c)
{
	struct cd_package *p = vec_grow(NULL, c->pk, &c->cap, c->n, sizeof(*p), 256, PACKAGES_MAX);

	if (!p)
		return NULL;
	c->pk = p;
	p = &c->pk[c->n++];
	memset(p, 0, sizeof(*p));
	p->site = SIZE_MAX;
	return p;
}

static const char *norm(struct pctx *c, const char *name)
{
	char out[PEP508_NAME_MAX];

	if (!name || pep508_normalize(name, strlen(name), out, sizeof(out)) >= sizeof(out))
		return NULL;
	return arena_strdup(c->a, out);
}

/* Is there a blank line ("\n\n" or "\n\r\n") in b from `from` on? */
static int has_blank_line(const struct cd_buf *b, size_t from)
{
	size_t i;

	for (i = from; i + 1 < b->len; i++)
		if (b->p[i] == '\n' &&
		    (b->p[i + 1] == '\n' ||
		     (b->p[i + 1] == '\r' && i + 2 < b->len && b->p[i + 2] == '\n')))
			return 1;
	return 0;
}

/* Read the header block of a metadata file: chunks until a blank line, the
 * end of the file or META_HEAD_MAX. *at_eof tells which. */
static int read_head(struct pctx *c, const char *path, struct cd_buf *b, int *at_eof)
{
	char host[PATH_MAX], chunk[META_CHUNK];
	int fd, rc = 0;

	*at_eof = 0;
	if (root_host_path(&c->f->root, path, host, sizeof(host)))
		return CD_ENOENT;
	fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? CD_ENOENT : CD_EIO;
	for (;;) {
		size_t before = b->len;
		ssize_t got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = CD_EIO; /* a directory named METADATA, an I/O error */
			break;
		}
		if (got == 0) {
			*at_eof = 1;
			break;
		}
		if (buf_append(b, chunk, (size_t)got))
			break; /* over META_HEAD_MAX: keep what we have */
		if (has_blank_line(b, before >= 2 ? before - 2 : 0))
			break;
	}
	close(fd);
	return rc;
}

static const char *small_file(struct pctx *c, const char *path, size_t max)
{
	struct cd_buf b;
	const char *s = NULL;

	buf_init(&b, 0);
	if (file_read(&c->f->root, path, max, &b, NULL) == 0)
		s = arena_strndup(c->a, b.p, b.len);
	buf_free(&b);
	return s;
}

/* Fill p from its METADATA / PKG-INFO (and requires.txt for eggs). */
static void read_metadata(struct pctx *c, struct cd_package *p, int egg, int egg_file)
{
	const char *file =
		egg_file ? p->path : fsu_path(c->a, p->path, egg ? "PKG-INFO" : "METADATA");
	const char *base = egg_file ? "PKG-INFO" : (egg ? "PKG-INFO" : "METADATA");
	struct distinfo_meta m;
	struct cd_buf b;
	int at_eof, rc;

	if (!file)
		return;
	buf_init(&b, META_HEAD_MAX);
	rc = read_head(c, file, &b, &at_eof);
	if (rc) {
		p->problem = arena_printf(c->a, "%s has no readable %s", p->path, base);
		buf_free(&b);
		return;
	}
	rc = distinfo_parse_metadata((const uint8_t *)b.p, b.len, at_eof, c->a, &m);
	buf_free(&b);
	if (rc)
		return;
	if (m.name)
		p->display = m.name;
	if (m.version && *m.version) {
		p->version = m.version;
		p->version_source = egg ? "PKG-INFO" : "METADATA";
	} else {
		p->problem = arena_printf(c->a, "%s/%s has no Version field", p->path, base);
	}
	if (!m.name)
		p->problem = arena_printf(c->a, "%s/%s has no Name field", p->path, base);
	p->requires_python = m.requires_python;
	p->requires = m.requires;
	p->n_requires = m.n_requires;
	p->requires_known = m.complete && !m.truncated;
	if (!p->requires_known && !p->problem)
		p->problem =
			arena_printf(c->a,
				     "the header of %s/%s is over %zu bytes or malformed; read "
				     "in part",
				     p->path, base, META_HEAD_MAX);
	if (egg && !egg_file) {
		const char *req =
			small_file(c, fsu_path(c->a, p->path, "requires.txt"), META_HEAD_MAX);
		if (req &&
		    distinfo_parse_requires_txt((const uint8_t *)req, strlen(req), c->a, &m) == 0) {
			p->requires = m.requires;
			p->n_requires = m.n_requires;
		}
	}
}

static int entry_is_dir(struct pctx *c, const char *path, const struct dirent *e)
{
	if (e->d_type == DT_DIR)
		return 1;
	if (e->d_type == DT_REG)
		return 0;
	return file_is_dir(&c->f->root, path);
}

static void scan_site(struct pctx *c, size_t idx)
{
	struct cd_site_dir *sd = &c->st->python.site[idx];
	DIR *d = file_opendir(&c->f->root, sd->path);
	struct dirent *e;
	size_t seen = 0;

	if (!d) {
		problem(c, arena_printf(c->a, "%s cannot be listed", sd->path));
		return;
	}
	while ((e = readdir(d))) {
		const char *name, *version, *path;
		enum distinfo_kind kind;
		struct cd_package *p;
		int is_dir;
		if (++seen > SITE_ENTRIES_MAX) {
			sd->truncated = 1;
			break;
		}
		if (e->d_name[0] == '~') {
			problem(c, arena_printf(
					   c->a,
					   "%s/%s: left by an interrupted pip install or uninstall "
					   "(pip warns \"Ignoring invalid distribution %s\")",
					   sd->path, e->d_name, e->d_name));
			continue;
		}
		kind = distinfo_dirname(e->d_name, c->a, &name, &version);
		if (kind == DISTINFO_NONE || !(p = new_pkg(c)))
			continue;
		path = fsu_path(c->a, sd->path, e->d_name);
		p->path = path;
		p->site = idx;
		p->display = name;
		p->name = norm(c, name);
		p->version = version;
		p->version_source = version ? "dirname" : NULL;
		p->sources = CD_PKG_DIST;
		sd->n_dists++;
		is_dir = entry_is_dir(c, path, e);
		read_metadata(c, p, kind == DISTINFO_EGG, kind == DISTINFO_EGG && !is_dir);
		if (p->display && p->display != name)
			p->name = norm(c, p->display);
		if (!p->name)
			c->n--; /* a name we cannot hold: drop it */
	}
	closedir(d);
}

/* ---- conda-meta ------------------------------------------------------------- */

/* conda names that differ from the PyPI name of the same distribution. */
static const struct {
	const char *conda, *pypi;
} conda_names[] = {
	{"pytorch", "torch"}, /* pytorch and conda-forge channels */
};

static const char *pypi_name(const char *conda)
{
	size_t i;

	for (i = 0; i < sizeof(conda_names) / sizeof(conda_names[0]); i++)
		if (!strcmp(conda, conda_names[i].conda))
			return conda_names[i].pypi;
	return conda;
}

static int by_name(const void *x, const void *y)
{
	const struct cd_package *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

/* The channel is only in the JSON; parse it for the records a check may
 * name: those that clash with a distribution and the CUDA / torch stack. */
static int conda_interesting(const char *name, const struct cd_package *dist)
{
	static const char *const prefixes[] = {"pytorch", "torch", "cuda",   "libcu", "nvidia",
					       "cudnn",	  "nccl",  "python", "jax",   "triton"};
	size_t i;

	if (dist)
		return 1;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (str_has_prefix(name, prefixes[i]))
			return 1;
	return 0;
}

static void conda_json(struct pctx *c, const char *meta, const char *file, struct cd_package *p)
{
	const char *path = fsu_path(c->a, meta, file);
	struct conda_record r;
	struct cd_buf b;
	int rc;

	buf_init(&b, 0);
	rc = path ? file_read(&c->f->root, path, CONDA_JSON_MAX, &b, NULL) : CD_ENOMEM;
	if (!rc)
		rc = distinfo_parse_conda_json((const uint8_t *)b.p, b.len, c->a, &r);
	buf_free(&b);
	if (rc) {
		const char *msg = arena_printf(c->a, "%s is not a readable conda record (%s)", path,
					       rc == CD_EFORMAT ? "invalid JSON" : err_name(rc));
		problem(c, msg);
		if (!p->problem)
			p->problem = msg;
		return;
	}
	p->conda_channel = r.channel;
	if (r.version && p->conda_version && strcmp(r.version, p->conda_version))
		p->conda_version = r.version; /* the record's own word wins over its file name */
}

static void scan_conda(struct pctx *c, size_t n_dist)
{
	const char *meta = fsu_path(c->a, c->st->python.prefix, "conda-meta");
	DIR *d = meta ? file_opendir(&c->f->root, meta) : NULL;
	struct dirent *e;
	size_t seen = 0;

	if (!d)
		return;
	c->st->conda_meta_known = 1;
	while ((e = readdir(d)) && ++seen <= SITE_ENTRIES_MAX) {
		struct conda_record r;
		struct cd_package *p;
		const char *name;
		if (distinfo_conda_filename(e->d_name, c->a, &r))
			continue;
		c->st->n_conda++;
		name = norm(c, pypi_name(r.name));
		if (!name)
			continue;
		p = (struct cd_package *)packages_find(c->pk, n_dist, name);
		if (!p) {
			if (!(p = new_pkg(c)))
				break;
			p->name = name;
			p->display = r.name;
			p->version = r.version;
			p->version_source = "conda-meta";
			p->requires_known = 0;
		}
		p->sources |= CD_PKG_CONDA;
		if (strcmp(r.name, name))
			p->conda_name = r.name;
		p->conda_version = r.version;
		p->conda_build = r.build;
		if (conda_interesting(name, p->sources & CD_PKG_DIST ? p : NULL))
			conda_json(c, meta, e->d_name, p);
	}
	closedir(d);
}

/* Keep the first copy of each name (sys.path order); link the others. */
static size_t fold_duplicates(struct pctx *c)
{
	size_t i, out = 0;

	for (i = 0; i < c->n; i++) {
		if (out && !strcmp(c->pk[out - 1].name, c->pk[i].name)) {
			struct cd_package *dup = arena_alloc(c->a, sizeof(*dup)), **tail;
			if (!dup)
				continue;
			*dup = c->pk[i];
			for (tail = &c->pk[out - 1].shadowed; *tail; tail = &(*tail)->shadowed)
				;
			*tail = dup;
			continue;
		}
		c->pk[out++] = c->pk[i];
	}
	return out;
}

/* INSTALLER says who wrote a dist-info; only clashes with conda need it. */
static void read_installers(struct pctx *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		struct cd_package *p = &c->pk[i];
		const char *s;
		if (!(p->sources & CD_PKG_DIST) || !(p->sources & CD_PKG_CONDA) || !p->path)
			continue;
		s = small_file(c, fsu_path(c->a, p->path, "INSTALLER"), 4096);
		if (s)
			p->installer = arena_strndup(c->a, s, strcspn(s, " \t\r\n"));
	}
}

void packages_probe(struct cd_facts *f, struct cd_stack_facts *st)
{
	struct pctx c;
	size_t i, n_dist;

	memset(&c, 0, sizeof(c));
	c.f = f;
	c.a = &f->arena;
	c.st = st;
	if (!st->python.prefix)
		return;
	for (i = 0; i < st->python.n_site; i++)
		scan_site(&c, i);
	st->packages_known = 1;
	if (c.n > 1)
		qsort(c.pk, c.n, sizeof(*c.pk), by_name);
	n_dist = c.n = fold_duplicates(&c);
	scan_conda(&c, n_dist);
	if (c.n > n_dist)
		qsort(c.pk, c.n, sizeof(*c.pk), by_name);
	read_installers(&c);
	st->packages = arena_calloc(c.a, c.n ? c.n : 1, sizeof(*st->packages));
	if (st->packages) {
		if (c.n) /* c.pk is NULL when nothing was found */
			memcpy(st->packages, c.pk, c.n * sizeof(*c.pk));
		st->n_packages = c.n;
	}
	free(c.pk);
	qsort(c.problems, c.n_problems, sizeof(*c.problems), by_text); /* readdir order varies */
	st->problems = arena_calloc(c.a, c.n_problems ? c.n_problems : 1, sizeof(*st->problems));
	if (st->problems) {
		memcpy(st->problems, c.problems, c.n_problems * sizeof(*c.problems));
		st->n_problems = c.n_problems;
	}
}
