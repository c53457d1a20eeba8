/* python: find the Python environment that would run, by reading files only:
 * --env PREFIX, else $VIRTUAL_ENV, else $CONDA_PREFIX, else the first python3
 * on PATH (links followed inside --root, pyenv shims resolved). Learns the
 * kind (venv, uv, conda, system), the version (pyvenv.cfg, conda-meta,
 * patchlevel.h, lib/pythonX.Y) and the site-packages directories in sys.path
 * order. Strings live in f->arena; what is not found stays NULL and
 * `problem` / `searched` say why. Never executes the interpreter. */
#ifndef CD_PYTHON_H
#define CD_PYTHON_H

#include <stddef.h>

#include "format/pep508.h"
#include "facts/stack.h"

void python_probe(struct cd_facts *f, struct cd_python_facts *py);
/* The values PEP 508 markers see in this environment (Linux, CPython unless
 * the environment says otherwise); unknown facts stay NULL. */
void python_marker_env(const struct cd_python_facts *py, struct pep508_env *env);

/* python_dirs.c. The directory `import NAME` loads a top-level package from:
 * the first site directory (sys.path order) holding NAME/__init__.py, else
 * the first holding a NAME/ directory (a namespace package). *site, when
 * given, gets its index in py->site. NULL when no site directory has it. */
const char *python_module_dir(struct cd_facts *f, const struct cd_python_facts *py,
			      const char *name, size_t *site);
/* Fill python_h and python_h_searched: include/pythonX.Y/Python.h of the
 * prefix, the base prefix, /usr, /usr/local. Run by python_probe. */
void python_find_header(struct cd_facts *f, struct cd_python_facts *py);

#endif
