/* transformers: find the transformers package the Python environment would
 * import, and ask its installed source tree (never the interpreter) whether it
 * knows a model_type. The environment, its site directories (sys.path order)
 * and the installed distributions are the stack probe's (f->stack, see
 * stack.h); the package directories are where import finds them
 * (python_module_dir). */
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "probe/model/model.h"
#include "probe/stack/stack.h"

/* __version__ = "4.44.2" in transformers/__init__.py. */
static const char *init_version(struct cd_facts *f, const char *pkg)
{
	struct cd_buf b;
	const char *v = NULL;
	char *p, *q;

	buf_init(&b, (size_t)8 << 20);
	if (!file_read(&f->root, fsu_path(&f->arena, pkg, "__init__.py"), (size_t)8 << 20, &b,
		       NULL) &&
	    (p = strstr(b.p, "__version__ = \"")) && (q = strchr(p + 15, '"')) && q - p < 64)
		v = arena_strndup(&f->arena, p + 15, (size_t)(q - p - 15));
	buf_free(&b);
	return v;
}

/* The version of the copy of distribution dist whose dist-info sits in the
 * site directory the package is imported from; NULL when none does. */
static const char *dist_version(const struct cd_stack_facts *st, const char *dist, size_t site)
{
	const struct cd_package *p;

	for (p = stack_find(st, dist); p; p = p->shadowed)
		if ((p->sources & CD_PKG_DIST) && p->site == site)
			return p->version;
	return NULL;
}

/* A regular package (NAME/__init__.py) import would load; *site gets its
 * site directory's index. */
static const char *package(struct cd_facts *f, const struct cd_python_facts *py, const char *name,
			   size_t *site)
{
	const char *dir = python_module_dir(f, py, name, site);

	return dir && file_exists(&f->root, fsu_path(&f->arena, dir, "__init__.py")) ? dir : NULL;
}

static enum cd_tri find_pkg(struct cd_facts *f, const struct cd_stack_facts *st, const char *pkg,
			    const char *dist, const char **version)
{
	size_t site = 0;

	if (!st->python.n_site)
		return CD_TRI_UNKNOWN;
	if (!package(f, &st->python, pkg, &site))
		return CD_TRI_NO;
	if (version)
		*version = dist_version(st, dist, site);
	return CD_TRI_YES;
}

void tf_probe(struct cd_facts *f, struct cd_model_facts *m)
{
	struct md_transformers *t = &m->tf;
	const struct cd_python_facts *py;
	size_t site = 0;

	t->knows_type = t->flash_attn = t->bitsandbytes = CD_TRI_UNKNOWN;
	if (!f->stack)
		stack_probe(f);
	py = f->stack ? &f->stack->python : NULL;
	if (!py || !py->prefix) {
		t->error = py && py->problem ? py->problem
			   : py && py->searched
				   ? arena_printf(&f->arena, "no Python environment found: %s",
						  py->searched)
				   : "no Python environment found (no --env, VIRTUAL_ENV, "
				     "CONDA_PREFIX or python3 on PATH)";
		return;
	}
	t->prefix = py->prefix;
	t->found_via = py->found_via;
	t->path = package(f, py, "transformers", &site);
	if (!t->path) {
		t->error = arena_printf(&f->arena,
					"transformers is not installed in %s (%zu site-packages "
					"director%s searched)",
					t->prefix, py->n_site, py->n_site == 1 ? "y" : "ies");
	} else {
		t->site_packages = py->site[site].path;
		t->version = dist_version(f->stack, "transformers", site);
		if (!t->version)
			t->version = init_version(f, t->path);
	}
	t->flash_attn = find_pkg(f, f->stack, "flash_attn", "flash-attn", &t->flash_attn_version);
	t->bitsandbytes = find_pkg(f, f->stack, "bitsandbytes", "bitsandbytes", NULL);
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
	return file_is_dir(&f->root, fsu_path(&f->arena, fsu_path(&f->arena, path, "models"), dir))
		       ? CD_TRI_YES
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
	if (!file_read(&f->root, fsu_path(&f->arena, t->path, "models/auto/configuration_auto.py"),
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
