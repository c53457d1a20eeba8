/* cudadrv: see cudadrv.h. Declares only the three driver API functions it
 * calls, with the signatures of cuda.h. cuInit is never called here: it
 * would create driver state and can take seconds; `check` reports what the
 * library is and which CUDA version it supports, nothing more. */
#include "probe/driver/cudadrv.h"

#include <stdint.h>
#include <string.h>

#include "core/str.h"
#include "probe/dlib.h"

typedef int CUresult; /* an enum in cuda.h: int-sized */

enum { C_VERSION, C_ERRNAME, C_ERRSTR, C_N };

static const struct dlib_sym syms[C_N] = {
	/* CUresult cuDriverGetVersion(int *driverVersion): 13000 for 13.0 */
	[C_VERSION] = {"cuDriverGetVersion", NULL, 1},
	/* CUresult cuGetErrorName(CUresult error, const char **pStr) */
	[C_ERRNAME] = {"cuGetErrorName", NULL, 0},
	/* CUresult cuGetErrorString(CUresult error, const char **pStr) */
	[C_ERRSTR] = {"cuGetErrorString", NULL, 0},
};

typedef CUresult (*fn_version)(int *);
typedef CUresult (*fn_errtext)(CUresult, const char **);

static void error_text(struct iso_out *o, void **fn, CUresult rc)
{
	const char *s = NULL;

	if (fn[C_ERRNAME] && ((fn_errtext)fn[C_ERRNAME])(rc, &s) == 0 && s)
		iso_emit(o, "error_name", s);
	s = NULL;
	if (fn[C_ERRSTR] && ((fn_errtext)fn[C_ERRSTR])(rc, &s) == 0 && s)
		iso_emit(o, "error", s);
}

void cudadrv_query(struct iso_out *o, void *arg)
{
	void *fn[C_N];
	struct dlib d;
	CUresult rc;
	int v = 0;

	if (dlib_load_emit(o, &d, (const char *)arg, syms, C_N, fn))
		return;
	iso_stage(o, syms[C_VERSION].name);
	rc = ((fn_version)fn[C_VERSION])(&v);
	iso_emitf(o, "rc", "%d", rc);
	if (rc == 0)
		iso_emitf(o, "version", "%d", v);
	else
		error_text(o, fn, rc);
	iso_emit(o, "done", "1");
}

const char *cudadrv_error_name(int64_t rc)
{
	/* CUresult values cuDriverGetVersion and library loading can produce
	 * (cuda.h), for when the library cannot name its own error (a stub). */
	static const struct {
		int rc;
		const char *name;
	} t[] = {
		{0, "CUDA_SUCCESS"},
		{1, "CUDA_ERROR_INVALID_VALUE"},
		{3, "CUDA_ERROR_NOT_INITIALIZED"},
		{4, "CUDA_ERROR_DEINITIALIZED"},
		{34, "CUDA_ERROR_STUB_LIBRARY"},
		{100, "CUDA_ERROR_NO_DEVICE"},
		{101, "CUDA_ERROR_INVALID_DEVICE"},
		{304, "CUDA_ERROR_OPERATING_SYSTEM"},
		{801, "CUDA_ERROR_NOT_SUPPORTED"},
		{802, "CUDA_ERROR_SYSTEM_NOT_READY"},
		{803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
		{804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
		{999, "CUDA_ERROR_UNKNOWN"},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].rc == rc)
			return t[i].name;
	return NULL;
}

void cudadrv_apply(struct cd_facts *f, const char *key, const char *val)
{
	struct cd_driver_lib *l = &f->driver.cuda;
	int n;

	if (!strcmp(key, "rc") && !str_to_int(val, -1000000, 1000000, &n)) {
		l->rc = n;
	} else if (!strcmp(key, "version") && !str_to_int(val, 1000, 999999, &n)) {
		f->driver.cuda_version_int = n;
		f->driver.cuda_version_source = "cuDriverGetVersion";
	} else if (!strcmp(key, "error") && val[0]) {
		l->error = arena_strdup(&f->arena, val);
	} else if (!strcmp(key, "error_name") && val[0] && !l->error) {
		l->error = arena_strdup(&f->arena, val);
	}
}
