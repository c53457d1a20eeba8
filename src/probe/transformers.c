/* transformers: find the transformers package the Python environment would
 * import, and ask its installed source tree (never the interpreter) whether it
 * knows a model_type. The environment: --env PREFIX, $VIRTUAL_ENV,
 * $CONDA_PREFIX, else the first python3 on PATH (a venv's bin/, a pyenv shim,
 * or a symlink to the real interpreter). tf_site_dirs is the one lookup to
 * replace with the full Python environment probe once it exists. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/opts.h"
#include "core/str.h"
#include "probe/model.h"

#define SITE_MAX 16

static const char *parent(struct cd_facts *f, const char *p)
{
	const char *s = strrchr(p, '/');

	if (!s || s == p)
		return "/";
	return arena_strndup(&f->arena, p, (size_t)(s - p));
}

/* pyenv: a shims directory whose parent holds versions/; the version comes
 * from PYENV_VERSION or $PYENV_ROOT/version ("system" defers to later PATH). */
static const char *pyenv_prefix(struct cd_facts *f, const char *dir)
{
	const char *root = parent(f, dir), *v = facts_getenv(f, "PYENV_VERSION");
	struct cd_buf b;
	const char *out = NULL;

	if (!str_has_suffix(dir, "/shims") || !file_is_dir(&f->root, md_join(f, root, "versions")))
		return NULL;
	buf_init(&b, 4096);
	if ((!v || !*v) && !file_read(&f->root, md_join(f, root, "version"), 4096, &b, NULL)) {
		char *nl = strpbrk(b.p, "\n: ");
		if (nl)
			*nl = '\0';
		v = b.p;
	}
	if (v && *v && strcmp(v, "system") && !strchr(v, '/'))
		out = md_join(f, md_join(f, root, "versions"), v);
	buf_free(&b);
	return out && file_is_dir(&f->root, out) ? out : NULL;
}

static const char *path_prefix(struct cd_facts *f)
{
	const char *path = facts_getenv(f, "PATH"), *p, *e;
	char real[PATH_MAX];

	for (p = path; p && *p; p = *e ? e + 1 : e) {
		const char *dir, *py, *pp;
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		if (e == p || *p != '/')
			continue; /* "" and relative entries depend on the cwd */
		dir = arena_strndup(&f->arena, p, (size_t)(e - p));
		py = md_join(f, dir, "python3");
		if (!dir || !file_exists(&f->root, py))
			continue;
		if (file_exists(&f->root, md_join(f, parent(f, dir), "pyvenv.cfg")))
			return parent(f, dir);
		if (str_has_suffix(dir, "/shims")) {
			pp = pyenv_prefix(f, dir);
			if (pp)
				return pp;
			continue;
		}
		if (file_realpath(&f->root, py, real, sizeof(real)))
			continue;
		return parent(f, parent(f, real));
	}
	return NULL;
}

static void add(const char **dirs, size_t *n, size_t max, const char *d, struct cd_facts *f)
{
	size_t i;

	if (!d || *n >= max || !file_is_dir(&f->root, d))
		return;
	for (i = 0; i < *n; i++)
		if (!strcmp(dirs[i], d))
			return;
	dirs[(*n)++] = d;
}

/* The pythonX.Y directories under PREFIX/lib (sorted, newest last). */
static size_t py_versions(struct cd_facts *f, const char *prefix, const char **v, size_t max)
{
	DIR *d = file_opendir(&f->root, md_join(f, prefix, "lib"));
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max)
		if (str_has_prefix(e->d_name, "python3.") && strlen(e->d_name) < 16)
			v[n++] = arena_strdup(&f->arena, e->d_name);
	closedir(d);
	for (size_t i = 1; i < n; i++) /* insertion sort by version */
		for (size_t k = i; k > 0 && ver_cmp(v[k - 1] + 6, v[k] + 6) > 0; k--) {
			const char *t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return n;
}

static void prefix_sites(struct cd_facts *f, const char *prefix, const char **dirs, size_t *n,
			 size_t max, int user_site)
{
	const char *v[8], *home = facts_getenv(f, "HOME");
	size_t nv = py_versions(f, prefix, v, 8), i;

	for (i = nv; i-- > 0;) { /* newest interpreter first */
		const char *lib = arena_printf(&f->arena, "lib/%s", v[i]);
		if (user_site && home)
			add(dirs, n, max,
			    arena_printf(&f->arena, "%s/.local/%s/site-packages", home, lib), f);
		add(dirs, n, max,
		    md_join(f, prefix, arena_printf(&f->arena, "%s/site-packages", lib)), f);
		add(dirs, n, max,
		    md_join(f, prefix, arena_printf(&f->arena, "lib64/%s/site-packages", v[i])), f);
		add(dirs, n, max,
		    md_join(f, prefix, arena_printf(&f->arena, "local/%s/dist-packages", lib)), f);
		add(dirs, n, max,
		    md_join(f, prefix, arena_printf(&f->arena, "%s/dist-packages", lib)), f);
	}
	add(dirs, n, max, md_join(f, prefix, "lib/python3/dist-packages"), f);
}

/* A venv sees its base interpreter's site-packages only when pyvenv.cfg says
 * include-system-site-packages = true; "home" names the base bin directory. */
static const char *venv_base(struct cd_facts *f, const char *prefix, int *is_venv)
{
	struct cd_buf b;
	const char *base = NULL;
	char *line, *save = NULL;

	*is_venv = 0;
	buf_init(&b, 65536);
	if (file_read(&f->root, md_join(f, prefix, "pyvenv.cfg"), 65536, &b, NULL)) {
		buf_free(&b);
		return NULL;
	}
	*is_venv = 1;
	const char *home = NULL;
	int system = 0;
	for (line = strtok_r(b.p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		str_trim(line);
		str_trim(eq + 1);
		if (!strcmp(line, "home"))
			home = arena_strdup(&f->arena, eq + 1);
		else if (!strcmp(line, "include-system-site-packages"))
			system = !strcmp(eq + 1, "true");
	}
	if (system && home && home[0] == '/')
		base = parent(f, home);
	buf_free(&b);
	return base;
}

size_t tf_site_dirs(struct cd_facts *f, const char **prefix, const char **via, const char **dirs,
		    size_t max)
{
	const char *p = f->opts ? f->opts->env : NULL, *base;
	size_t n = 0;
	int is_venv;

	*via = "--env";
	if (!p || !*p) {
		p = facts_getenv(f, "VIRTUAL_ENV"), *via = "VIRTUAL_ENV";
		if (!p || !*p)
			p = facts_getenv(f, "CONDA_PREFIX"), *via = "CONDA_PREFIX";
		if (!p || !*p)
			p = path_prefix(f), *via = "PATH";
	}
	*prefix = p && *p ? p : NULL;
	if (!*prefix)
		return 0;
	base = venv_base(f, p, &is_venv);
	prefix_sites(f, p, dirs, &n, max, !is_venv);
	if (base)
		prefix_sites(f, base, dirs, &n, max, 0);
	return n;
}

/* A package directory's version from its NAME-VERSION.dist-info sibling. */
static const char *dist_version(struct cd_facts *f, const char *site, const char *dist)
{
	DIR *d = file_opendir(&f->root, site);
	struct dirent *e;
	const char *v = NULL;
	size_t n = strlen(dist);

	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, dist, n) && e->d_name[n] == '-' &&
		    str_has_suffix(e->d_name, ".dist-info")) {
			v = arena_strndup(&f->arena, e->d_name + n + 1,
					  strlen(e->d_name + n + 1) - strlen(".dist-info"));
			break;
		}
	closedir(d);
	return v;
}

/* __version__ = "4.44.2" in transformers/__init__.py. */
static const char *init_version(struct cd_facts *f, const char *pkg)
{
	struct cd_buf b;
	const char *v = NULL;
	char *p, *q;

	buf_init(&b, (size_t)8 << 20);
	if (!file_read(&f->root, md_join(f, pkg, "__init__.py"), (size_t)8 << 20, &b, NULL) &&
	    (p = strstr(b.p, "__version__ = \"")) && (q = strchr(p + 15, '"')) && q - p < 64)
		v = arena_strndup(&f->arena, p + 15, (size_t)(q - p - 15));
	buf_free(&b);
	return v;
}

static enum cd_tri find_pkg(struct cd_facts *f, const char **dirs, size_t n, const char *pkg,
			    const char *dist, const char **version)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (file_exists(&f->root, md_join(f, md_join(f, dirs[i], pkg), "__init__.py"))) {
			if (version)
				*version = dist_version(f, dirs[i], dist);
			return CD_TRI_YES;
		}
	return n ? CD_TRI_NO : CD_TRI_UNKNOWN;
}

void tf_probe(struct cd_facts *f, struct cd_model_facts *m)
{
	struct md_transformers *t = &m->tf;
	const char *dirs[SITE_MAX];
	size_t n = tf_site_dirs(f, &t->prefix, &t->found_via, dirs, SITE_MAX), i;

	t->knows_type = t->flash_attn = t->bitsandbytes = CD_TRI_UNKNOWN;
	if (!t->prefix) {
		t->error = "no Python environment found (no --env, VIRTUAL_ENV, CONDA_PREFIX or "
			   "python3 on PATH)";
		return;
	}
	for (i = 0; i < n && !t->path; i++)
		if (file_exists(&f->root, md_join(f, dirs[i], "transformers/__init__.py"))) {
			t->site_packages = dirs[i];
			t->path = md_join(f, dirs[i], "transformers");
		}
	if (!t->path) {
		t->error = arena_printf(&f->arena,
					"transformers is not installed in %s (%zu site-packages "
					"director%s searched)",
					t->prefix, n, n == 1 ? "y" : "ies");
	} else {
		t->version = init_version(f, t->path);
		if (!t->version)
			t->version = dist_version(f, t->site_packages, "transformers");
	}
	t->flash_attn = find_pkg(f, dirs, n, "flash_attn", "flash_attn", &t->flash_attn_version);
	t->bitsandbytes = find_pkg(f, dirs, n, "bitsandbytes", "bitsandbytes", NULL);
}

/* Does transformers define models/<type>/ (a model_type with '-' maps to a
 * directory with '_')? CD_TRI_UNKNOWN for a type that cannot be a name. */
static enum cd_tri type_dir(struct cd_facts *f, const char *path, const char *type)
{
	char *dir = arena_strdup(&f->arena, type);
	size_t i;

	for (i = 0; dir && dir[i]; i++)
		if (dir[i] == '-')
			dir[i] = '_';
	if (!dir || strchr(dir, '/') || strstr(dir, ".."))
		return CD_TRI_UNKNOWN;
	return file_is_dir(&f->root, md_join(f, md_join(f, path, "models"), dir)) ? CD_TRI_YES
										  : CD_TRI_NO;
}

/* ("model_type", "XConfig") inside CONFIG_MAPPING_NAMES of the installed
 * models/auto/configuration_auto.py, or a models/<type> directory. Either
 * one saying yes is enough: the mapping's layout changes between releases
 * (OrderedDict( in 4.x, OrderedDict[str, str]( later), and a layout this
 * reader does not follow must not turn into a false model-type-unknown. */
void tf_check_type(struct cd_facts *f, struct cd_model_facts *m)
{
	struct md_transformers *t = &m->tf;
	const char *type = m->config.model_type, *start, *end, *hit = NULL;
	enum cd_tri in_map = CD_TRI_UNKNOWN, in_dir;
	char *pat;
	struct cd_buf b;

	if (!t->path || !type || !*type)
		return;
	buf_init(&b, (size_t)16 << 20);
	if (!file_read(&f->root, md_join(f, t->path, "models/auto/configuration_auto.py"),
		       (size_t)16 << 20, &b, NULL) &&
	    (start = strstr(b.p, "CONFIG_MAPPING_NAMES ="))) {
		end = strstr(start, "\n)");
		pat = arena_printf(&f->arena, "(\"%s\",", type);
		hit = pat ? strstr(start, pat) : NULL;
		in_map = hit && (!end || hit < end) ? CD_TRI_YES : CD_TRI_NO;
	}
	buf_free(&b);
	if (in_map == CD_TRI_YES) {
		t->knows_type = CD_TRI_YES;
		t->knows_via = "models/auto/configuration_auto.py";
		return;
	}
	in_dir = type_dir(f, t->path, type);
	t->knows_type = in_dir;
	t->knows_via = in_dir == CD_TRI_YES || in_map == CD_TRI_UNKNOWN
			       ? "models/"
			       : "models/auto/configuration_auto.py and models/";
}
