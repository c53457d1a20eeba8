/* dlib: load a driver library and bind its functions from a table.
 * Used only inside an isolated child (isolate.h): loading runs the library's
 * constructors, which must never happen in the tool's own process. The
 * library stays loaded until the child exits; nothing here allocates. */
#ifndef CD_DLIB_H
#define CD_DLIB_H

#include <limits.h>
#include <stddef.h>

#include "core/err.h"

struct dlib_sym {
	const char *name;
	const char *fallback; /* older name with the same signature, or NULL */
	int required;	      /* the library is unusable without it */
};

struct dlib {
	void *handle;
	char loaded_as[PATH_MAX]; /* the file name the loader found (link map) */
	char path[PATH_MAX];	  /* its realpath: the file actually loaded */
	char error[256];	  /* dlerror() text when loading failed */
};

/* dlopen(name) with RTLD_NOW | RTLD_LOCAL; a bare SONAME goes through the
 * loader's own search (LD_LIBRARY_PATH, ld.so.cache, default directories).
 * 0, or -1 with d->error set. */
CD_WUR int dlib_open(struct dlib *d, const char *name);
/* Resolve each table entry into fns[i] (NULL when neither name exists).
 * Returns 0, or -1 with *missing naming the first required symbol absent. */
CD_WUR int dlib_bind(const struct dlib *d, const struct dlib_sym *t, size_t n, void **fns,
		     const char **missing);

/* The start of every isolated driver query (isolate.h): stage "dlopen",
 * dlib_open, dlib_bind, each outcome emitted to o ("dlerror", or
 * "loaded_as" and "path", then "missing", or one "absent" per optional
 * symbol not found). 0 when fns are bound; -1 when the query has to stop. */
struct iso_out;
CD_WUR int dlib_load_emit(struct iso_out *o, struct dlib *d, const char *name,
			  const struct dlib_sym *t, size_t n, void **fns);

/* "580.159.04" from ".../libcuda.so.580.159.04": the numeric X.Y[.Z] after
 * ".so." whose first component has at least three digits; 0 or -1. */
CD_WUR int dlib_file_version(const char *path, char *out, size_t cap);
/* 1 when path lies in a directory named "stubs" (CUDA toolkit link stubs). */
int dlib_is_stub_path(const char *path);

#endif
