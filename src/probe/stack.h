/* stack: the Python / PyTorch stack as read from disk, never by running
 * Python: the environment (python.c), its installed distributions and conda
 * records (packages.c) and torch's version.py. stack_probe allocates one
 * struct cd_stack_facts in f->arena and hangs it on f->stack; everything it
 * points to lives in the same arena. What cannot be read stays NULL / unknown
 * and the reason is kept (`problem` fields), so checks can report it. */
#ifndef CD_STACK_H
#define CD_STACK_H

#include <stddef.h>

#include "probe/python.h"
#include "report/facts.h"

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
	void *libraries;
	int64_t probe_us; /* time the stack probes took */
};

void stack_probe(struct cd_facts *f);
/* The package part of stack_probe (packages.c), after python_probe. */
void packages_probe(struct cd_facts *f, struct cd_stack_facts *st);

/* A package by normalised name; NULL when not installed. */
const struct cd_package *stack_find(const struct cd_stack_facts *st, const char *name);
/* The same over n packages sorted by name (packages.c). */
const struct cd_package *packages_find(const struct cd_package *pk, size_t n, const char *name);

#endif
