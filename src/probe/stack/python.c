/* python: see python.h. The rules are CPython's own (Modules/getpath.py and
 * Lib/site.py): a pyvenv.cfg next to the interpreter or one directory up
 * makes a venv whose sys.prefix is that directory; otherwise sys.prefix is two
 * levels above the interpreter with links resolved. sys.path then holds
 * PYTHONPATH, the user site (unless disabled, or a venv without system site
 * packages), the environment's site-packages (dist-packages on Debian's
 * system Python) and, for venvs that include them, the base's. */
#include "probe/stack/python.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/opts.h"
#include "core/str.h"
#include "format/distinfo.h"

#define SMALL_FILE_MAX	 ((size_t)64 << 10) /* pyvenv.cfg, patchlevel.h, pyenv files */
#define SITE_DIRS_MAX	 16
#define PATH_ENTRIES_MAX 256

struct ctx {
	struct cd_facts *f;
	struct cd_arena *a;
	struct cd_python_facts *py;
	struct cd_site_dir site[SITE_DIRS_MAX];
	size_t n_site;
	char real[SITE_DIRS_MAX][PATH_MAX]; /* resolved site paths, for duplicates */
};

static const char *parent(struct cd_arena *a, const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return NULL;
	return s == path ? "/" : arena_strndup(a, path, (size_t)(s - path));
}

/* Read a small text file of the root into the arena; NULL when absent. */
static const char *slurp(struct ctx *c, const char *path, size_t *len)
{
	struct cd_buf b;
	const char *s = NULL;

	buf_init(&b, 0);
	if (file_read(&c->f->root, path, SMALL_FILE_MAX, &b, NULL) == 0) {
		s = arena_strndup(c->a, b.p, b.len);
		*len = b.len;
	}
	buf_free(&b);
	return s;
}

static const char *cfg_value(struct ctx *c, const char *cfg, size_t n, const char *key)
{
	const char *v = NULL;

	if (distinfo_cfg_get((const uint8_t *)cfg, n, key, c->a, &v) != 0)
		return NULL;
	return v && *v ? v : NULL;
}

/* "3.12.3.final.0" -> "3.12.3"; "3.12" stays. NULL unless it starts X.Y. */
static const char *clip_version(struct ctx *c, const char *v, int parts)
{
	size_t i = 0;
	int dots = 0;

	if (!v || !(v[0] >= '0' && v[0] <= '9'))
		return NULL;
	while (v[i] && ((v[i] >= '0' && v[i] <= '9') || v[i] == '.')) {
		if (v[i] == '.' && ++dots == parts)
			break;
		i++;
	}
	if (dots < 1 && parts > 1)
		return NULL;
	while (i && v[i - 1] == '.')
		i--;
	return arena_strndup(c->a, v, i);
}

/* ---- finding the interpreter ---------------------------------------------- */

static int is_exec_file(struct ctx *c, const char *path)
{
	return file_is_reg(&c->f->root, path);
}

/* pyenv's shims are short shell scripts that exec `pyenv exec`; the version
 * comes from $PYENV_VERSION, a .python-version up from the working directory,
 * or $PYENV_ROOT/version. Returns the real interpreter, or NULL for "system". */
static const char *pyenv_resolve(struct ctx *c, const char *shim)
{
	const char *root = facts_getenv(c->f, "PYENV_ROOT"),
		   *ver = facts_getenv(c->f, "PYENV_VERSION");
	const char *file = NULL, *dir;
	char cwd[PATH_MAX], *colon;
	size_t len;

	if (!root || !*root)
		root = parent(c->a, parent(c->a, shim)); /* $PYENV_ROOT/shims/python3 */
	if (!root)
		return NULL;
	if ((!ver || !*ver) && c->f->root.is_host && getcwd(cwd, sizeof(cwd))) {
		for (dir = cwd; dir && !file; dir = strcmp(dir, "/") ? parent(c->a, dir) : NULL)
			file = slurp(c, fsu_path(c->a, dir, ".python-version"), &len);
	}
	if ((!ver || !*ver) && !file)
		file = slurp(c, fsu_path(c->a, root, "version"), &len);
	if ((!ver || !*ver) && file)
		ver = arena_strndup(c->a, file, strcspn(file, "\r\n"));
	if (!ver || !*ver)
		return NULL;
	ver = arena_strdup(c->a, ver);
	if (ver && (colon = strchr(ver, ':')))
		*colon = '\0';
	if (!ver || !*str_trim((char *)ver) || !strcmp(ver, "system"))
		return NULL;
	c->py->found_via = "pyenv";
	return arena_printf(c->a, "%s/versions/%s/bin/python3", root, ver);
}

/* A short script naming pyenv is a shim; anything else is the interpreter. */
static const char *through_shim(struct ctx *c, const char *exe, int *is_shim)
{
	struct stat st;
	const char *text;
	size_t n = 0;

	*is_shim = 0;
	if (file_stat(&c->f->root, exe, &st) || st.st_size > 4096)
		return exe;
	text = slurp(c, exe, &n);
	if (!text || n < 2 || text[0] != '#' || text[1] != '!' || !strstr(text, "pyenv"))
		return exe;
	*is_shim = 1;
	return pyenv_resolve(c, exe);
}

static const char *path_search(struct ctx *c)
{
	const char *path = facts_getenv(c->f, "PATH"), *p;
	size_t entries = 0;

	if (!path)
		return NULL;
	for (p = path; *p && entries < PATH_ENTRIES_MAX; entries++) {
		size_t n = strcspn(p, ":");
		const char *dir = arena_strndup(c->a, p, n), *exe, *real;
		int shim;
		p += n + (p[n] == ':');
		if (!dir || dir[0] != '/')
			continue; /* relative entries depend on the working directory */
		exe = fsu_path(c->a, dir, "python3");
		if (!exe || !is_exec_file(c, exe))
			continue;
		real = through_shim(c, exe, &shim);
		if (!shim) {
			c->py->found_via = "PATH";
			return exe;
		}
		if (real)
			return real;
		/* pyenv "system": the next python3 on PATH */
	}
	return NULL;
}

/* ---- the environment at a prefix -------------------------------------------- */

static void classify(struct ctx *c)
{
	struct cd_python_facts *py = c->py;
	const char *cfg_path = fsu_path(c->a, py->prefix, "pyvenv.cfg"), *cfg, *v;
	size_t n = 0;

	if ((cfg = slurp(c, cfg_path, &n))) {
		py->kind = "venv";
		py->creator = "venv";
		if (cfg_value(c, cfg, n, "virtualenv"))
			py->creator = "virtualenv";
		if (cfg_value(c, cfg, n, "uv"))
			py->kind = py->creator = "uv";
		py->home = cfg_value(c, cfg, n, "home");
		v = cfg_value(c, cfg, n, "include-system-site-packages");
		py->include_system_site_packages = !v			    ? CD_TRI_UNKNOWN
						   : !strcasecmp(v, "true") ? CD_TRI_YES
									    : CD_TRI_NO;
		v = cfg_value(c, cfg, n, "version_info");
		if (!v)
			v = cfg_value(c, cfg, n, "version");
		if ((py->version = clip_version(c, v, 3)))
			py->version_source = "pyvenv.cfg";
		if ((v = cfg_value(c, cfg, n, "implementation"))) {
			char *lower = arena_strdup(c->a, v), *q;
			for (q = lower; q && *q; q++)
				*q = (char)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
			py->implementation = lower;
		}
		if (py->home)
			py->base_prefix = parent(c->a, py->home);
		return;
	}
	py->kind = file_is_dir(&c->f->root, fsu_path(c->a, py->prefix, "conda-meta")) ? "conda"
										      : "system";
}

/* The tool that made the environment, when it keeps a project around it:
 * uv's project (a .venv beside pyproject.toml and uv.lock) and pixi's
 * workspace (environments live in <workspace>/.pixi/envs/<name>). */
static void manager(struct ctx *c)
{
	struct cd_python_facts *py = c->py;
	const char *up = parent(c->a, py->prefix), *px = strstr(py->prefix, "/.pixi/envs/");

	if (py->kind && !strcmp(py->kind, "uv") && up &&
	    file_is_reg(&c->f->root, fsu_path(c->a, up, "uv.lock")) &&
	    file_is_reg(&c->f->root, fsu_path(c->a, up, "pyproject.toml")))
		py->uv_project = up;
	if (py->kind && !strcmp(py->kind, "conda") && px && px > py->prefix)
		py->pixi_workspace = arena_strndup(c->a, py->prefix, (size_t)(px - py->prefix));
}

/* X.Y from "python3.12" style names. */
static const char *xy_from_name(struct ctx *c, const char *name)
{
	const char *b = strrchr(name, '/');

	b = b ? b + 1 : name;
	if (!str_has_prefix(b, "python") || !(b[6] >= '0' && b[6] <= '9') || !strchr(b, '.'))
		return NULL;
	return clip_version(c, b + 6, 2);
}

/* The only (or highest) lib/pythonX.Y directory of a prefix. */
static const char *xy_from_lib(struct ctx *c, const char *prefix)
{
	DIR *d = file_opendir(&c->f->root, fsu_path(c->a, prefix, "lib"));
	struct dirent *e;
	const char *best = NULL;

	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		const char *xy = xy_from_name(c, e->d_name);
		if (xy && (!best || ver_cmp(xy, best) > 0))
			best = xy;
	}
	closedir(d);
	return best;
}

static const char *conda_python_version(struct ctx *c)
{
	DIR *d = file_opendir(&c->f->root, fsu_path(c->a, c->py->prefix, "conda-meta"));
	struct dirent *e;
	struct conda_record r;
	const char *v = NULL;

	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (str_has_prefix(e->d_name, "python-") &&
		    distinfo_conda_filename(e->d_name, c->a, &r) == 0 &&
		    !strcmp(r.name, "python")) {
			v = r.version;
			break;
		}
	closedir(d);
	return v;
}

static void find_version(struct ctx *c)
{
	struct cd_python_facts *py = c->py;
	const char *xy = NULL, *v, *h, *pyenv;
	size_t n = 0;

	if (!py->version && !strcmp(py->kind, "conda") && (v = conda_python_version(c))) {
		py->version = clip_version(c, v, 3);
		py->version_source = py->version ? "conda-meta" : NULL;
	}
	if (!py->version && py->found_via && !strcmp(py->found_via, "pyenv") &&
	    (pyenv = strstr(py->prefix, "/versions/")) && (v = clip_version(c, pyenv + 10, 3)) &&
	    strchr(v, '.') != strrchr(v, '.')) {
		py->version = v;
		py->version_source = "pyenv";
	}
	if (py->version)
		xy = clip_version(c, py->version, 2);
	if (!xy && py->executable_real)
		xy = xy_from_name(c, py->executable_real);
	if (!xy)
		xy = xy_from_lib(c, py->prefix);
	if (!xy && py->base_prefix)
		xy = xy_from_lib(c, py->base_prefix);
	py->version_short = xy;
	if (py->version || !xy)
		return;
	h = arena_printf(c->a, "%s/include/python%s/patchlevel.h",
			 py->base_prefix ? py->base_prefix : py->prefix, xy);
	if ((v = slurp(c, h, &n)) && distinfo_patchlevel((const uint8_t *)v, n, c->a, &v) == 0 &&
	    str_has_prefix(v, xy)) {
		py->version = v;
		py->version_source = "patchlevel.h";
		return;
	}
	py->version = xy;
	py->version_source = "lib/pythonX.Y";
}

/* ---- site directories -------------------------------------------------------- */

static void add_site(struct ctx *c, const char *path, const char *origin)
{
	char real[PATH_MAX];
	size_t i;

	if (!path || c->n_site == SITE_DIRS_MAX || !file_is_dir(&c->f->root, path))
		return;
	if (file_realpath(&c->f->root, path, real, sizeof(real)))
		return;
	for (i = 0; i < c->n_site; i++)
		if (!strcmp(c->real[i], real))
			return; /* lib64 -> lib and the like */
	str_copy(c->real[c->n_site], sizeof(c->real[0]), real);
	c->site[c->n_site].path = path;
	c->site[c->n_site].origin = origin;
	c->n_site++;
}

/* Debian and Ubuntu patch site.py: the system Python uses dist-packages. */
static void add_prefix_sites(struct ctx *c, const char *prefix, const char *xy, const char *origin)
{
	int debian = strcmp(c->py->kind, "system") == 0 || !strcmp(origin, "base");

	debian = debian &&
		 file_is_dir(&c->f->root, fsu_path(c->a, prefix, "lib/python3/dist-packages"));
	if (debian) {
		add_site(c, arena_printf(c->a, "%s/local/lib/python%s/dist-packages", prefix, xy),
			 origin);
		add_site(c, fsu_path(c->a, prefix, "lib/python3/dist-packages"), origin);
		add_site(c, arena_printf(c->a, "%s/lib/python%s/dist-packages", prefix, xy),
			 origin);
		return;
	}
	add_site(c, arena_printf(c->a, "%s/lib/python%s/site-packages", prefix, xy), origin);
	add_site(c, arena_printf(c->a, "%s/lib64/python%s/site-packages", prefix, xy), origin);
}

static void find_sites(struct ctx *c)
{
	struct cd_python_facts *py = c->py;
	const char *pp = facts_getenv(c->f, "PYTHONPATH"), *base, *home;
	int venv = strcmp(py->kind, "venv") == 0 || strcmp(py->kind, "uv") == 0;
	size_t k = 0;

	for (; pp && *pp && k < PATH_ENTRIES_MAX; k++) {
		size_t n = strcspn(pp, ":");
		const char *dir = arena_strndup(c->a, pp, n);
		if (dir && dir[0] == '/')
			add_site(c, dir, "PYTHONPATH");
		pp += n + (pp[n] == ':');
	}
	if (!py->version_short)
		return;
	py->user_site_enabled = facts_getenv(c->f, "PYTHONNOUSERSITE") ? CD_TRI_NO : CD_TRI_YES;
	if (venv && py->include_system_site_packages != CD_TRI_YES)
		py->user_site_enabled = CD_TRI_NO;
	if (py->user_site_enabled == CD_TRI_YES) {
		base = facts_getenv(c->f, "PYTHONUSERBASE");
		home = facts_getenv(c->f, "HOME");
		if ((!base || !*base) && home && home[0] == '/')
			base = fsu_path(c->a, home, ".local");
		if (base && base[0] == '/')
			add_site(c,
				 arena_printf(c->a, "%s/lib/python%s/site-packages", base,
					      py->version_short),
				 "user");
	}
	add_prefix_sites(c, py->prefix, py->version_short, "env");
	if (venv && py->include_system_site_packages == CD_TRI_YES && py->base_prefix)
		add_prefix_sites(c, py->base_prefix, py->version_short, "base");
}

/* ---- problems worth a finding ----------------------------------------------- */

static void check_interpreter(struct ctx *c)
{
	struct cd_python_facts *py = c->py;
	char real[PATH_MAX], link[PATH_MAX];

	if (!py->executable) {
		py->problem = arena_printf(c->a, "no bin/python3 or bin/python in %s", py->prefix);
		return;
	}
	if (file_realpath(&c->f->root, py->executable, real, sizeof(real)) == 0) {
		py->executable_real = arena_strdup(c->a, real);
	} else if (file_readlink(&c->f->root, py->executable, link, sizeof(link)) == 0) {
		py->problem = arena_printf(c->a, "%s is a link to %s, which does not exist",
					   py->executable, link);
		return;
	}
	if (py->home && !file_exists(&c->f->root, fsu_path(c->a, py->home, "python3")) &&
	    !file_exists(&c->f->root, fsu_path(c->a, py->home, "python")))
		py->problem =
			arena_printf(c->a,
				     "pyvenv.cfg names home = %s, which holds no python3: the "
				     "interpreter this venv was made from is gone",
				     py->home);
}

static void from_executable(struct ctx *c, const char *exe)
{
	struct cd_python_facts *py = c->py;
	const char *bin = parent(c->a, exe), *up = bin ? parent(c->a, bin) : NULL;
	char real[PATH_MAX];

	py->executable = exe;
	if (bin && file_exists(&c->f->root, fsu_path(c->a, bin, "pyvenv.cfg")))
		py->prefix = bin;
	else if (up && file_exists(&c->f->root, fsu_path(c->a, up, "pyvenv.cfg")))
		py->prefix = up;
	else if (file_realpath(&c->f->root, exe, real, sizeof(real)) == 0)
		py->prefix = parent(c->a, parent(c->a, real));
	else
		py->prefix = up;
}

static void from_prefix(struct ctx *c, const char *prefix)
{
	struct cd_python_facts *py = c->py;
	static const char *const names[] = {"bin/python3", "bin/python"};
	char *p = arena_strdup(c->a, prefix), link[PATH_MAX];
	size_t i, n = p ? strlen(p) : 0;

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	if (p && file_is_reg(&c->f->root, p)) { /* --env /path/to/bin/python3 */
		from_executable(c, p);
		return;
	}
	py->prefix = p;
	for (i = 0; p && i < 2 && !py->executable; i++)
		if (file_is_reg(&c->f->root, fsu_path(c->a, p, names[i])) ||
		    file_readlink(&c->f->root, fsu_path(c->a, p, names[i]), link, sizeof(link)) ==
			    0)
			py->executable = fsu_path(c->a, p, names[i]);
}

void python_probe(struct cd_facts *f, struct cd_python_facts *py)
{
	struct ctx *c = arena_alloc(&f->arena, sizeof(*c));
	const char *given = NULL, *exe;
	struct utsname u;

	memset(py, 0, sizeof(*py));
	py->include_system_site_packages = CD_TRI_UNKNOWN;
	py->user_site_enabled = CD_TRI_UNKNOWN;
	py->platform_machine = f->host.arch;
	if (!py->platform_machine && f->root.is_host && uname(&u) == 0)
		py->platform_machine = arena_strdup(&f->arena, u.machine);
	if (!c)
		return;
	c->f = f;
	c->a = &f->arena;
	c->py = py;
	if (f->opts && f->opts->env) {
		given = f->opts->env;
		py->found_via = "--env";
	} else if ((given = facts_getenv(f, "VIRTUAL_ENV")) && *given) {
		py->found_via = "VIRTUAL_ENV";
	} else if ((given = facts_getenv(f, "CONDA_PREFIX")) && *given) {
		py->found_via = "CONDA_PREFIX";
	} else {
		given = NULL;
	}
	/* Under --root the calling shell's VIRTUAL_ENV / CONDA_PREFIX describe the
	 * host, not the image: one that does not exist in the root is passed over. */
	if (given && !f->root.is_host && strcmp(py->found_via, "--env") &&
	    !file_exists(&f->root, given)) {
		given = NULL;
		py->found_via = NULL;
	}
	if (given) {
		if (!file_exists(&f->root, given)) {
			py->problem = arena_printf(c->a, "%s (from %s) does not exist", given,
						   py->found_via);
			return;
		}
		from_prefix(c, given);
	} else if ((exe = path_search(c))) {
		from_executable(c, exe);
	} else {
		py->searched =
			arena_printf(c->a,
				     "no --env, VIRTUAL_ENV or CONDA_PREFIX, and no python3 "
				     "on PATH (%s)",
				     facts_getenv(f, "PATH") ? facts_getenv(f, "PATH") : "unset");
		return;
	}
	if (!py->prefix)
		return;
	classify(c);
	manager(c);
	check_interpreter(c);
	find_version(c);
	if (!py->implementation && py->kind)
		py->implementation = "cpython";
	find_sites(c);
	python_find_header(f, py);
	py->n_site = c->n_site;
	py->site = arena_calloc(c->a, c->n_site ? c->n_site : 1, sizeof(*py->site));
	if (py->site)
		memcpy(py->site, c->site, c->n_site * sizeof(*py->site));
	else
		py->n_site = 0;
}

void python_marker_env(const struct cd_python_facts *py, struct pep508_env *env)
{
	int full = py->version && strchr(py->version, '.') != strrchr(py->version, '.');
	int pypy = py->implementation && !strcmp(py->implementation, "pypy");

	memset(env, 0, sizeof(*env));
	env->python_version = py->version_short;
	env->python_full_version = full ? py->version : NULL;
	env->implementation_name = py->implementation;
	env->implementation_version = pypy ? NULL : env->python_full_version;
	env->platform_python_implementation = !py->implementation ? NULL
					      : pypy		  ? "PyPy"
								  : "CPython";
	/* cuda-doctor diagnoses Linux machines and images. */
	env->os_name = "posix";
	env->sys_platform = "linux";
	env->platform_system = "Linux";
	env->platform_machine = py->platform_machine;
	env->extra = "";
}
