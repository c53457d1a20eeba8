/* python_dirs: where things of the environment found by python.c lie on
 * disk, for the commands that build or import from it: the directory
 * `import NAME` would load (Lib/importlib/_bootstrap_external.py FileFinder:
 * the first sys.path entry holding a regular package NAME/__init__.py wins;
 * a bare NAME/ directory is a namespace portion, used only when no entry has
 * a regular package), and the Python.h a C extension includes (sysconfig's
 * include directory: the base interpreter's prefix for a venv). */
#include <string.h>

#include "core/fsutil.h"
#include "probe/stack/python.h"

#define HEADER_DIRS_MAX 4

const char *python_module_dir(struct cd_facts *f, const struct cd_python_facts *py,
			      const char *name, size_t *site)
{
	const char *ns = NULL, *dir;
	size_t i, ns_site = 0;

	if (!py || !name || !*name || strchr(name, '/'))
		return NULL;
	for (i = 0; i < py->n_site; i++) {
		dir = fsu_path(&f->arena, py->site[i].path, name);
		if (!dir || !file_is_dir(&f->root, dir))
			continue;
		if (file_exists(&f->root, fsu_path(&f->arena, dir, "__init__.py"))) {
			if (site)
				*site = i;
			return dir;
		}
		if (!ns)
			ns = dir, ns_site = i;
	}
	if (ns && site)
		*site = ns_site;
	return ns;
}

/* Python.h under <dir>/include/pythonX.Y, once per directory, in the order
 * a person would look: the environment, its base interpreter, /usr and
 * /usr/local (a base built from source). */
void python_find_header(struct cd_facts *f, struct cd_python_facts *py)
{
	const char *dirs[HEADER_DIRS_MAX] = {py->prefix, py->base_prefix, "/usr", "/usr/local"};
	const char **seen;
	size_t i, k;

	py->python_h = NULL;
	py->n_python_h_searched = 0;
	if (!py->version_short || !py->prefix)
		return;
	seen = arena_calloc(&f->arena, HEADER_DIRS_MAX, sizeof(*seen));
	if (!seen)
		return;
	py->python_h_searched = seen;
	for (i = 0; i < HEADER_DIRS_MAX && !py->python_h; i++) {
		const char *p;
		int dup = 0;
		if (!dirs[i] || dirs[i][0] != '/')
			continue;
		p = arena_printf(&f->arena, "%s/include/python%s/Python.h",
				 strcmp(dirs[i], "/") ? dirs[i] : "", py->version_short);
		for (k = 0; p && k < py->n_python_h_searched; k++)
			dup |= !strcmp(seen[k], p);
		if (!p || dup)
			continue;
		seen[py->n_python_h_searched++] = p;
		if (file_is_reg(&f->root, p))
			py->python_h = p;
	}
}
