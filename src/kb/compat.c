/* compat: see compat.h. Rules (NVIDIA CUDA Compatibility guide and the
 * release notes' Tables 2 and 3):
 *  - a CUDA X.Y runtime needs a driver >= the X.Y toolkit's minimum (Table 3),
 *    which is what the driver reports as its CUDA version;
 *  - minor-version compatibility (CUDA 11 and later): any X.* runtime also
 *    runs on a driver >= the X.x floor of Table 2, except that PTX newer than
 *    the driver cannot be JIT-compiled and APIs that need a newer driver fail
 *    with cudaErrorCallRequiresNewerDriver;
 *  - nothing crosses a major without the forward-compatibility package
 *    (cuda-compat, data-center GPUs only). */
#include "kb/compat.h"

#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

#define COMPAT_ROWS_MAX	  128
#define COMPAT_SOURCE_MAX 384

struct compat_row {
	int cuda;  /* toolkit rows: X.Y as 12040; minor rows: major * 1000 */
	int minor; /* a minor_compat row */
	char driver[COMPAT_DRIVER_MAX];
	char source[COMPAT_SOURCE_MAX];
};

static struct compat_row rows[COMPAT_ROWS_MAX];
static size_t n_rows;
static int loaded;

/* ">=550.54.14" -> "550.54.14"; 0 when it is a dotted number. */
static int parse_driver(const char *s, char *out, size_t cap)
{
	size_t i;

	if (strncmp(s, ">=", 2))
		return -1;
	s += 2;
	if (!*s || str_copy(out, cap, s) >= cap)
		return -1;
	for (i = 0; out[i]; i++)
		if (out[i] != '.' && (out[i] < '0' || out[i] > '9'))
			return -1;
	return 0;
}

/* "12.x" -> 12; -1 unless it is digits, ".x". */
static int major_of(const char *s)
{
	int v = 0, n = 0;

	for (; *s >= '0' && *s <= '9' && n < 4; s++, n++)
		v = v * 10 + (*s - '0');
	return n && !strcmp(s, ".x") ? v : -1;
}

static int load_row(const struct kb_tsv *t, void *ctx)
{
	const char *ver = kb_tsv_get(t, "cuda_version"), *kind = kb_tsv_get(t, "kind");
	const char *drv = kb_tsv_get(t, "min_driver_linux"), *src = kb_tsv_get(t, "source");
	struct compat_row *r = &rows[n_rows];
	size_t vl;

	(void)ctx;
	if (!ver || !kind || !drv || parse_driver(drv, r->driver, sizeof(r->driver)))
		return 0;
	vl = strlen(ver);
	r->minor = !strcmp(kind, "minor_compat");
	if (r->minor && vl >= 3 && !strcmp(ver + vl - 2, ".x"))
		r->cuda = major_of(ver) * 1000; /* "12.x" -> 12000 */
	else if (!r->minor && !strcmp(kind, "toolkit"))
		r->cuda = ver_cuda_int(ver);
	else
		return 0;
	if (r->cuda <= 0)
		return 0;
	str_copy(r->source, sizeof(r->source), src ? src : "");
	return ++n_rows == COMPAT_ROWS_MAX;
}

static void load(void)
{
	if (loaded)
		return;
	loaded = 1;
	/* Not embedded or out of memory: no rows, and every answer is unknown. */
	(void)!kb_tsv_each("driver_cuda.tsv", load_row, NULL);
}

int compat_toolkit_min_driver(int cuda, char *out, size_t cap, const char **source)
{
	const struct compat_row *best = NULL;
	size_t i;

	load();
	for (i = 0; i < n_rows; i++)
		if (!rows[i].minor && rows[i].cuda == cuda &&
		    (!best || ver_cmp(rows[i].driver, best->driver) < 0))
			best = &rows[i];
	if (!best)
		return CD_ENOENT;
	if (str_copy(out, cap, best->driver) >= cap)
		return CD_ERANGE;
	if (source)
		*source = best->source;
	return 0;
}

int compat_minor_min_driver(int major, char *out, size_t cap, const char **source)
{
	size_t i;

	load();
	for (i = 0; i < n_rows; i++) {
		if (!rows[i].minor || rows[i].cuda != major * 1000)
			continue;
		if (str_copy(out, cap, rows[i].driver) >= cap)
			return CD_ERANGE;
		if (source)
			*source = rows[i].source;
		return 0;
	}
	return CD_ENOENT;
}

int compat_max_cuda(const char *driver_version)
{
	int best = -1;
	size_t i;

	if (!driver_version || !*driver_version || driver_version[0] < '0' ||
	    driver_version[0] > '9')
		return -1;
	load();
	for (i = 0; i < n_rows; i++)
		if (!rows[i].minor && rows[i].cuda > best &&
		    ver_cmp(driver_version, rows[i].driver) >= 0)
			best = rows[i].cuda;
	return best;
}

const char *compat_verdict_name(enum compat_verdict v)
{
	switch (v) {
	case COMPAT_OK: return "ok";
	case COMPAT_MINOR: return "minor-version-compatibility";
	case COMPAT_TOO_OLD: return "too-old";
	default: return "unknown";
	}
}

enum compat_verdict compat_check(int runtime_cuda, int driver_cuda, const char *driver_version,
				 struct compat_result *out)
{
	int rmaj = runtime_cuda / 1000, dmaj = driver_cuda / 1000;

	memset(out, 0, sizeof(*out));
	if (runtime_cuda <= 0 || driver_cuda <= 0)
		return out->verdict = COMPAT_UNKNOWN;
	/* No row (or one that does not fit): "", which the verdicts read as unknown. */
	if (compat_toolkit_min_driver(runtime_cuda, out->toolkit_min, sizeof(out->toolkit_min),
				      &out->toolkit_source) != 0)
		out->toolkit_min[0] = '\0';
	if (compat_minor_min_driver(rmaj, out->minor_min, sizeof(out->minor_min),
				    &out->minor_source) != 0)
		out->minor_min[0] = '\0';
	if (runtime_cuda <= driver_cuda)
		return out->verdict = COMPAT_OK;
	if (rmaj != dmaj || !out->minor_min[0])
		return out->verdict = COMPAT_TOO_OLD;
	if (driver_version && driver_version[0] >= '0' && driver_version[0] <= '9') {
		out->driver_version_checked = 1;
		if (ver_cmp(driver_version, out->minor_min) < 0)
			return out->verdict = COMPAT_TOO_OLD;
	}
	return out->verdict = COMPAT_MINOR;
}
