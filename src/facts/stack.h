/* facts/stack: the Python / PyTorch stack as the stack probes read it from
 * disk: the environment that would run (python), its distributions and conda
 * records (packages), torch's version.py, and (struct cd_libs_facts,
 * facts/libs.h) the libraries `import torch` would load. Everything lives in
 * the facts' arena; what cannot be read stays NULL / unknown with the reason
 * in a `problem` field. The lookups here only read. */
#ifndef CD_FACTS_STACK_H
#define CD_FACTS_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "facts/facts.h"

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
	/* Who manages the environment, for install commands (not in JSON): the
	 * uv project directory (pyproject.toml and uv.lock beside the venv:
	 * `uv add` installs there), and the pixi workspace an environment under
	 * <workspace>/.pixi/envs/ belongs to. NULL when none. */
	const char *uv_project;
	const char *pixi_workspace;
};

enum cd_pkg_source { CD_PKG_DIST = 1, CD_PKG_CONDA = 2 };

/* One distribution, by PEP 503 name. */
struct cd_package {
	const char *name;	    /* normalised: "typing-extensions" */
	const char *display;	    /* as its metadata spells it */
	const char *version;	    /* METADATA, else the directory name, else conda */
	const char *version_source; /* "METADATA" | "PKG-INFO" | "dirname" | "conda-meta" */
	unsigned sources;	    /* CD_PKG_* bits */
	const char *installer; /* INSTALLER file ("pip", "uv", "conda"); read for conda clashes */
	const char *path;      /* in-root *.dist-info / *.egg-info path */
	size_t site;	       /* index in python.site; SIZE_MAX when conda-only */
	const char *requires_python;
	int requires_known; /* every Requires-Dist was read */
	size_t n_requires;
	const char **requires;	   /* Requires-Dist values */
	const char *conda_name;	   /* conda's name when it differs ("pytorch") */
	const char *conda_version; /* from conda-meta */
	const char *conda_build;
	const char *conda_channel;
	const char *problem;	     /* unreadable / inconsistent metadata; NULL when fine */
	struct cd_package *shadowed; /* another copy later on sys.path (or same dir) */
};

struct cd_torch_facts {
	int installed;
	const char *version; /* torch/version.py __version__ */
	const char *cuda;    /* torch.version.cuda; NULL: CPU or ROCm build, or unknown */
	const char *hip;
	const char *git_version;
	enum cd_tri debug;
	const char *path;	    /* in-root torch/ package directory */
	const char *version_source; /* "torch/version.py" | "METADATA" */
	const char *problem;	    /* version.py missing or unreadable */
	/* Filled by the library probe (fatbins of libtorch_cuda.so); unknown until then. */
	int arch_list_known;
	size_t n_arch_list;
	const char **arch_list; /* "sm_80", ... */
};

struct cd_libs_facts;

struct cd_stack_facts {
	struct cd_python_facts python;
	size_t n_packages;
	struct cd_package *packages; /* sorted by name */
	int packages_known;	     /* site directories were scanned */
	int conda_meta_known;	     /* prefix/conda-meta was read */
	size_t n_conda;		     /* conda records */
	size_t n_problems;
	const char **problems; /* leftovers such as "~orch" directories, unreadable dirs */
	struct cd_torch_facts torch;
	/* Shared libraries of the stack (libcudart, libcudnn, ...): filled by
	 * the library probe; NULL until then. */
	struct cd_libs_facts *libraries;
	int64_t probe_us; /* time the stack probes took */
};

/* A package by normalised name; NULL when not installed. */
const struct cd_package *stack_find(const struct cd_stack_facts *st, const char *name);
/* The same over n packages sorted by name (packages.c). */
const struct cd_package *packages_find(const struct cd_package *pk, size_t n, const char *name);

#endif
