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
#include "report/facts.h"

/* One directory on the interpreter's sys.path that holds distributions. */
struct cd_site_dir {
	const char *path;   /* in-root path */
	const char *origin; /* "PYTHONPATH" | "user" | "env" | "base" */
	size_t n_dists;	    /* *.dist-info / *.egg-info found there */
	int truncated;	    /* more entries than the scan cap */
};

struct cd_python_facts {
	const char *kind;	/* "venv" | "uv" | "conda" | "system"; NULL: none found */
	const char *found_via;	/* "--env" | "VIRTUAL_ENV" | "CONDA_PREFIX" | "PATH" | "pyenv" */
	const char *prefix;	/* sys.prefix, in-root */
	const char *executable; /* the interpreter as found (links not followed) */
	const char *executable_real; /* links followed; NULL when it does not exist */
	const char *version;	     /* "3.12.3", or "3.12" when the micro is unknown */
	const char *version_source;  /* "pyvenv.cfg" | "conda-meta" | "patchlevel.h" | ... */
	const char *version_short;   /* "3.12" */
	const char *implementation;  /* "cpython" | "pypy"; NULL unknown */
	const char *creator;	     /* venvs: "venv" | "virtualenv" | "uv" */
	const char *home;	     /* pyvenv.cfg home */
	const char *base_prefix;     /* the interpreter a venv was made from */
	enum cd_tri include_system_site_packages;
	enum cd_tri user_site_enabled;
	const char *platform_machine; /* for markers: "x86_64" */
	size_t n_site;
	struct cd_site_dir *site; /* in sys.path order: the first copy of a package wins */
	const char *problem;	  /* why the environment is unusable; NULL when fine */
	const char *searched;	  /* what was looked at when nothing was found */
	/* Python.h a C extension build includes (python_dirs.c); NULL when none
	 * of the directories looked at, in python_h_searched, has it. */
	const char *python_h;
	size_t n_python_h_searched;
	const char **python_h_searched;
};

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
