/* jit_python: the Python environment a JIT build runs in, read from files
 * only (no interpreter is started): its prefix, version, site-packages,
 * Python.h, torch/version.py and DeepSpeed's installed op builders.
 * Self-contained readers, one function each, so they can be switched to the
 * Python stack probe's facts (struct cd_stack_facts) once it lands:
 *   env_prefix()      --env, VIRTUAL_ENV, CONDA_PREFIX, else python3 on PATH
 *   py_version()      pyvenv.cfg, conda-meta/python-*.json, lib/python3.X
 *   site_packages()   lib/python3.X/site-packages (Debian: dist-packages)
 *   python_header()   include/python3.X/Python.h of the base interpreter
 *   torch_facts()     torch/version.py: __version__, cuda
 *   deepspeed_facts() deepspeed/git_version_info_installed.py, op_builder */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/opts.h"
#include "core/str.h"
#include "probe/jit.h"

#define SMALL_FILE ((size_t)1 << 20)

static const char *join(struct cd_facts *f, const char *a, const char *b)
{
	return arena_printf(&f->arena, "%s%s%s", a, (a[0] && a[strlen(a) - 1] == '/') ? "" : "/",
			    b[0] == '/' ? b + 1 : b);
}

static const char *dir_name(struct cd_facts *f, const char *p)
{
	const char *s = strrchr(p, '/');

	if (!s)
		return NULL;
	return s == p ? "/" : arena_strndup(&f->arena, p, (size_t)(s - p));
}

/* "python3.12" (or "python3.13t") -> 1 and "3.12" in out. */
static int pydir_version(const char *name, char *out, size_t cap)
{
	return jp_find_python_version((const uint8_t *)name, strlen(name), out, cap) == 0 &&
	       !strncmp(name, "python3.", 8);
}

/* A prefix holds an environment when lib/python3.X exists. */
static int has_lib_python(struct cd_facts *f, const char *prefix)
{
	DIR *d = file_opendir(&f->root, join(f, prefix, "lib"));
	struct dirent *e;
	char v[16];
	int found = 0, n = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)) && n++ < 4096)
		found = pydir_version(e->d_name, v, sizeof(v));
	closedir(d);
	return found;
}

/* pyenv shims are scripts: follow PYENV_VERSION or <pyenv root>/version. */
static const char *pyenv_prefix(struct cd_facts *f, const char *shim_dir)
{
	const char *root = dir_name(f, shim_dir), *ver = facts_getenv(f, "PYENV_VERSION");
	char line[128];
	size_t len = 0;
	char *s;

	if (!root || strcmp(strrchr(shim_dir, '/') ? strrchr(shim_dir, '/') + 1 : "", "shims"))
		return NULL;
	if (!ver || !*ver) {
		s = jit_slurp(f, join(f, root, "version"), 4096, &len);
		if (!s)
			return NULL;
		str_ncopy(line, sizeof(line), s, strcspn(s, "\r\n :"));
		ver = line;
	}
	return join(f, join(f, root, "versions"), ver);
}

static void env_prefix(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_python *py = &jf->py;
	const char *p = jf->env.path;
	int guard = 0;

	if (f->opts && f->opts->env) {
		py->prefix = arena_strdup(&f->arena, f->opts->env), py->via = "--env";
		return;
	}
	if (jf->env.virtual_env && *jf->env.virtual_env) {
		py->prefix = jf->env.virtual_env, py->via = "VIRTUAL_ENV";
		return;
	}
	if (jf->env.conda_prefix && *jf->env.conda_prefix) {
		py->prefix = jf->env.conda_prefix, py->via = "CONDA_PREFIX";
		return;
	}
	/* The first python3 on PATH whose prefix holds lib/python3.X. */
	while (p && *p && guard++ < 256) {
		const char *colon = strchr(p, ':');
		const char *dir =
			arena_strndup(&f->arena, p, colon ? (size_t)(colon - p) : strlen(p));
		const char *exe = dir && dir[0] == '/' ? jit_which(f, dir, "python3") : NULL;
		if (exe) {
			/* A venv's bin/python3 links to the base interpreter: the venv is
			 * the directory above bin that holds pyvenv.cfg (PEP 405), so look
			 * there before following the link. */
			const char *prefix = pyenv_prefix(f, dir), *up = dir_name(f, dir);
			char real[PATH_MAX];
			if (!prefix && up &&
			    (file_exists(&f->root, join(f, up, "pyvenv.cfg")) ||
			     has_lib_python(f, up)))
				prefix = up;
			if (!prefix && file_realpath(&f->root, exe, real, sizeof(real)) == 0)
				prefix = dir_name(f, dir_name(f, real));
			if (prefix && has_lib_python(f, prefix)) {
				py->prefix = prefix, py->via = "PATH";
				return;
			}
		}
		if (!colon)
			break;
		p = colon + 1;
	}
}

static void set_version(struct cd_facts *f, struct jit_python *py, const char *v, const char *src)
{
	int ma, mi;

	if (py->version || jit_major_minor(v, &ma, &mi) || ma != 3)
		return;
	py->version = arena_printf(&f->arena, "%d.%d", ma, mi);
	py->version_source = src;
}

static void py_version(struct cd_facts *f, struct jit_python *py)
{
	size_t len = 0;
	char v[64];
	char *cfg = jit_slurp(f, join(f, py->prefix, "pyvenv.cfg"), 64 << 10, &len);
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (cfg) {
		py->kind = "venv";
		if (jp_kv((const uint8_t *)cfg, len, "version_info", '=', v, sizeof(v)) == 0)
			set_version(f, py, v, "pyvenv.cfg");
		if (jp_kv((const uint8_t *)cfg, len, "version", '=', v, sizeof(v)) == 0)
			set_version(f, py, v, "pyvenv.cfg");
	} else if (file_is_dir(&f->root, join(f, py->prefix, "conda-meta"))) {
		py->kind = "conda";
		d = file_opendir(&f->root, join(f, py->prefix, "conda-meta"));
		while (d && !py->version && (e = readdir(d)) && n++ < 8192)
			if (!strncmp(e->d_name, "python-3.", 9))
				set_version(f, py, e->d_name + 7, "conda-meta");
		if (d)
			closedir(d);
	} else {
		py->kind = "system";
	}
	d = file_opendir(&f->root, join(f, py->prefix, "lib"));
	n = 0;
	while (d && !py->version && (e = readdir(d)) && n++ < 4096)
		if (pydir_version(e->d_name, v, sizeof(v)) &&
		    file_is_dir(&f->root, join(f, join(f, join(f, py->prefix, "lib"), e->d_name),
					       "site-packages")))
			set_version(f, py, v, "lib/python3.X");
	if (d)
		closedir(d);
}

static void site_packages(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_python *py = &jf->py;
	const char *c[5];
	size_t i, k = 0;

	c[k++] = arena_printf(&f->arena, "%s/lib/python%s/site-packages", py->prefix, py->version);
	if (!strcmp(py->kind, "system")) {
		/* Debian's pip installs into /usr/local/lib/python3.X/dist-packages,
		 * `pip install --user` into ~/.local. */
		c[k++] = arena_printf(&f->arena, "%s/local/lib/python%s/dist-packages", py->prefix,
				      py->version);
		c[k++] = arena_printf(&f->arena, "%s/lib/python3/dist-packages", py->prefix);
		if (jf->env.home && jf->env.home[0] == '/')
			c[k++] = arena_printf(&f->arena, "%s/.local/lib/python%s/site-packages",
					      jf->env.home, py->version);
	}
	for (i = 0; i < k; i++)
		if (c[i] && file_is_dir(&f->root, join(f, c[i], "torch"))) {
			py->site_packages = c[i];
			return;
		}
	for (i = 0; i < k; i++)
		if (c[i] && file_is_dir(&f->root, c[i])) {
			py->site_packages = c[i];
			return;
		}
}

static void search_header(struct cd_facts *f, struct jit_python *py, const char *dir)
{
	const char *p;
	size_t i;

	if (!dir || py->python_h)
		return;
	p = arena_printf(&f->arena, "%s/include/python%s/Python.h", strcmp(dir, "/") ? dir : "",
			 py->version);
	for (i = 0; i < py->n_searched; i++)
		if (!strcmp(py->searched[i], p))
			return;
	if (py->n_searched < JIT_SEARCHED_MAX)
		py->searched[py->n_searched++] = p;
	if (file_is_reg(&f->root, p))
		py->python_h = p;
}

/* Python.h of the interpreter: a venv has none of its own, its base
 * interpreter (pyvenv.cfg `home`, the base's bin directory) does. */
static void python_header(struct cd_facts *f, struct jit_python *py)
{
	size_t len = 0;
	char home[PATH_MAX];
	char *cfg;

	search_header(f, py, py->prefix);
	cfg = jit_slurp(f, join(f, py->prefix, "pyvenv.cfg"), 64 << 10, &len);
	if (cfg && jp_kv((const uint8_t *)cfg, len, "home", '=', home, sizeof(home)) == 0 &&
	    home[0] == '/')
		search_header(f, py, dir_name(f, home));
	search_header(f, py, "/usr");
	search_header(f, py, "/usr/local");
}

static void torch_facts(struct cd_facts *f, struct jit_python *py)
{
	const char *dir = join(f, py->site_packages, "torch");
	struct stat st;
	char v[128];
	size_t len = 0;
	char *s;
	int rc;

	if (!file_is_dir(&f->root, dir)) {
		py->torch_present = CD_TRI_NO;
		return;
	}
	py->torch_present = CD_TRI_YES;
	if (file_stat(&f->root, join(f, dir, "version.py"), &st) == 0)
		py->torch_mtime = (int64_t)st.st_mtime;
	s = jit_slurp(f, join(f, dir, "version.py"), SMALL_FILE, &len);
	if (!s)
		return;
	if (jp_py_assign((const uint8_t *)s, len, "__version__", v, sizeof(v)) == 0)
		py->torch_version = arena_strdup(&f->arena, v);
	rc = jp_py_assign((const uint8_t *)s, len, "cuda", v, sizeof(v));
	if (rc == 0 && v[0])
		py->torch_cuda = arena_strdup(&f->arena, v);
	py->torch_cpu_only = rc == JP_NONE;
	if (file_is_reg(&f->root, join(f, dir, "include/ATen/cuda/CUDAContext.h")))
		py->torch_include = join(f, dir, "include");
}

struct ds_ctx {
	struct cd_facts *f;
	struct jit_python *py;
	int torch_info;
};

static int ds_item(const char *key, enum jp_pyval kind, const char *val, void *arg)
{
	struct ds_ctx *c = arg;
	struct jit_python *py = c->py;

	if (c->torch_info) {
		if (kind == JP_V_STR && !strcmp(key, "cuda_version"))
			py->ds_torch_cuda = arena_strdup(&c->f->arena, val);
		if (kind == JP_V_STR && !strcmp(key, "version"))
			py->ds_torch_version = arena_strdup(&c->f->arena, val);
		return 0;
	}
	if (py->n_ds_ops >= JIT_DS_OPS_MAX)
		return 1;
	py->ds_ops[py->n_ds_ops].name = arena_strdup(&c->f->arena, key);
	py->ds_ops[py->n_ds_ops].installed =
		kind == JP_V_TRUE || (kind == JP_V_NUM && strcmp(val, "0") != 0);
	py->n_ds_ops++;
	return 0;
}

static void deepspeed_facts(struct cd_facts *f, struct jit_python *py)
{
	const char *dir = join(f, py->site_packages, "deepspeed");
	struct ds_ctx c = {f, py, 0};
	char v[128];
	size_t len = 0;
	char *s;

	if (!file_is_dir(&f->root, dir)) {
		py->ds_present = CD_TRI_NO;
		return;
	}
	py->ds_present = CD_TRI_YES;
	s = jit_slurp(f, join(f, dir, "git_version_info_installed.py"), SMALL_FILE, &len);
	if (s) {
		if (jp_py_assign((const uint8_t *)s, len, "version", v, sizeof(v)) == 0)
			py->ds_version = arena_strdup(&f->arena, v);
		jp_py_dict((const uint8_t *)s, len, "installed_ops", ds_item, &c);
		c.torch_info = 1;
		jp_py_dict((const uint8_t *)s, len, "torch_info", ds_item, &c);
	}
	s = jit_slurp(f, join(f, dir, "ops/op_builder/builder.py"), SMALL_FILE, &len);
	if (!s)
		s = jit_slurp(f, join(f, py->site_packages, "op_builder/builder.py"), SMALL_FILE,
			      &len);
	if (s && jp_ds_minor_ok((const uint8_t *)s, len, &py->ds_minor_ok_majors) == 0)
		py->ds_minor_ok_known = 1;
}

void jit_probe_python(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_python *py = &jf->py;

	py->torch_present = py->ds_present = CD_TRI_UNKNOWN;
	py->torch_mtime = CD_UNK;
	py->ninja_module = py->cutlass_library = CD_TRI_UNKNOWN;
	env_prefix(f, jf);
	if (!py->prefix || py->prefix[0] != '/')
		return;
	py_version(f, py);
	if (!py->version)
		return;
	python_header(f, py);
	site_packages(f, jf);
	if (!py->site_packages)
		return;
	torch_facts(f, py);
	deepspeed_facts(f, py);
	py->ninja_module = file_exists(&f->root, join(f, py->site_packages, "ninja/__init__.py"))
				   ? CD_TRI_YES
				   : CD_TRI_NO;
	py->cutlass_library = file_is_dir(&f->root, join(f, py->site_packages, "cutlass_library"))
				      ? CD_TRI_YES
				      : CD_TRI_NO;
}
