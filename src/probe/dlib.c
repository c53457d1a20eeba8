/* dlib: see dlib.h. */
#include "probe/dlib.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "probe/isolate.h"

int dlib_open(struct dlib *d, const char *name)
{
	struct link_map *lm = NULL;
	const char *e;

	memset(d, 0, sizeof(*d));
	dlerror();
	d->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!d->handle) {
		e = dlerror();
		str_copy(d->error, sizeof(d->error), e ? e : "dlopen failed");
		return -1;
	}
	if (dlinfo(d->handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		str_copy(d->loaded_as, sizeof(d->loaded_as), lm->l_name);
	else
		str_copy(d->loaded_as, sizeof(d->loaded_as), name);
	if (!realpath(d->loaded_as, d->path))
		str_copy(d->path, sizeof(d->path), d->loaded_as);
	return 0;
}

int dlib_bind(const struct dlib *d, const struct dlib_sym *t, size_t n, void **fns,
	      const char **missing)
{
	size_t i;
	int rc = 0;

	*missing = NULL;
	for (i = 0; i < n; i++) {
		fns[i] = dlsym(d->handle, t[i].name);
		if (!fns[i] && t[i].fallback)
			fns[i] = dlsym(d->handle, t[i].fallback);
		if (!fns[i] && t[i].required && !*missing) {
			*missing = t[i].name;
			rc = -1;
		}
	}
	return rc;
}

int dlib_load_emit(struct iso_out *o, struct dlib *d, const char *name, const struct dlib_sym *t,
		   size_t n, void **fns)
{
	const char *missing;
	size_t i;

	iso_stage(o, "dlopen");
	if (dlib_open(d, name)) {
		iso_emit(o, "dlerror", d->error);
		return -1;
	}
	iso_emit(o, "loaded_as", d->loaded_as);
	iso_emit(o, "path", d->path);
	if (dlib_bind(d, t, n, fns, &missing)) {
		iso_emit(o, "missing", missing);
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!fns[i])
			iso_emit(o, "absent", t[i].name);
	return 0;
}

int dlib_file_version(const char *path, char *out, size_t cap)
{
	const char *base = strrchr(path, '/'), *v, *p;
	int dots = 0;

	base = base ? base + 1 : path;
	v = strstr(base, ".so.");
	if (!v)
		return -1;
	v += 4;
	for (p = v; *p; p++) {
		if (*p == '.') {
			if (p == v || p[-1] == '.' || !p[1])
				return -1;
			dots++;
		} else if (*p < '0' || *p > '9') {
			return -1;
		}
	}
	/* "libcuda.so.1" (the SONAME link) and WSL's "libcuda.so.1.1" are not
	 * driver versions; those start with at least three digits (">= 100"). */
	if (dots < 1 || p - v > 32 || strspn(v, "0123456789") < 3)
		return -1;
	return str_copy(out, cap, v) < cap ? 0 : -1;
}

int dlib_is_stub_path(const char *path)
{
	return strstr(path, "/stubs/") != NULL;
}
