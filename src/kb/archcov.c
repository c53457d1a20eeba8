/* archcov: see archcov.h. Tegra parts (no cubin binary compatibility, PG
 * §6.1.2): 5.3 (TX1), 6.2 (TX2), 7.2 (Xavier), 8.7 (Orin), 10.1 / 11.0
 * (Thor). Families (PTX ISA "Architecture Families"): sm_10x, sm_11x
 * (sm_101 is sm_110 renamed), sm_12x. */
#include "kb/archcov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "format/fatbin.h"
#include "kb/compat.h"
#include "kb/kb.h"
#include "kb/torchrel.h"

static int tegra(unsigned arch)
{
	return arch == 53 || arch == 62 || arch == 72 || arch == 87 || arch == 101 || arch == 110;
}

static unsigned family(unsigned arch)
{
	return arch == 101 ? 11 : arch / 10;
}

static int sass_runs(uint32_t key, unsigned gpu)
{
	unsigned arch = key / 4, var = key % 4;

	if (var == FATBIN_VAR_A)
		return arch == gpu;
	if (var == FATBIN_VAR_F)
		return family(arch) == family(gpu) && arch <= gpu;
	if (tegra(gpu))
		return arch == gpu;
	return arch / 10 == gpu / 10 && arch <= gpu;
}

static int ptx_runs(uint32_t key, unsigned gpu)
{
	unsigned arch = key / 4, var = key % 4;

	if (var == FATBIN_VAR_A)
		return arch == gpu;
	if (var == FATBIN_VAR_F)
		return family(arch) == family(gpu) && arch <= gpu;
	return arch <= gpu;
}

enum archcov archcov_covers(const uint32_t *sass, size_t n_sass, const uint32_t *ptx, size_t n_ptx,
			    int cc_major, int cc_minor, uint32_t *via)
{
	unsigned gpu;
	size_t i;

	if (cc_major < 1 || cc_minor < 0 || cc_minor > 9 || cc_major > 99)
		return ARCHCOV_NONE;
	gpu = (unsigned)cc_major * 10 + (unsigned)cc_minor;
	for (i = n_sass; i-- > 0;)
		if (sass_runs(sass[i], gpu)) {
			if (via)
				*via = sass[i];
			return ARCHCOV_SASS;
		}
	for (i = n_ptx; i-- > 0;)
		if (ptx_runs(ptx[i], gpu)) {
			if (via)
				*via = ptx[i];
			return ARCHCOV_PTX;
		}
	return ARCHCOV_NONE;
}

size_t archcov_parse_list(const char *s, uint32_t *sass, size_t *n_sass, uint32_t *ptx,
			  size_t *n_ptx, size_t cap)
{
	size_t entries = 0;

	*n_sass = *n_ptx = 0;
	while (s && *s >= '0' && *s <= '9') {
		unsigned major = 0, minor;
		int digits = 0;
		while (*s >= '0' && *s <= '9' && digits < 3)
			major = major * 10 + (unsigned)(*s++ - '0'), digits++;
		if (*s != '.' || s[1] < '0' || s[1] > '9')
			break;
		minor = (unsigned)(s[1] - '0');
		s += 2;
		if (*n_sass < cap)
			sass[(*n_sass)++] = FATBIN_KEY(major * 10 + minor, FATBIN_VAR_NONE);
		if (!strncmp(s, "+PTX", 4)) {
			s += 4;
			if (*n_ptx < cap)
				ptx[(*n_ptx)++] = FATBIN_KEY(major * 10 + minor, FATBIN_VAR_NONE);
		}
		entries++;
		if (*s != ';')
			break;
		s++;
	}
	return entries;
}

int archcov_nvcc_builds(int nvcc_major, int nvcc_minor, int cc10, char *why, size_t cap)
{
	struct kb_tsv *t;
	char want[16];
	int v = nvcc_major * 1000 + nvcc_minor * 10, rc = -1;

	if (cap)
		why[0] = '\0';
	if (nvcc_major < 0 || cc10 < 0 || !(t = malloc(sizeof(*t))))
		return -1;
	if (kb_tsv_open(t, "gpu_arch.tsv")) {
		free(t);
		return -1;
	}
	snprintf(want, sizeof(want), "%d.%d", cc10 / 10, cc10 % 10);
	while (rc < 0 && kb_tsv_next(t)) {
		const char *cc = kb_tsv_get(t, "compute_capability");
		const char *first = kb_tsv_get(t, "first_cuda_toolkit");
		const char *last = kb_tsv_get(t, "last_cuda_toolkit");
		if (!cc || strcmp(cc, want))
			continue;
		rc = 1;
		if (first && *first && ver_cuda_int(first) > v) {
			snprintf(why, cap, "sm_%d needs CUDA %s or newer", cc10, first);
			rc = 0;
		} else if (last && *last && ver_cuda_int(last) >= 0 && ver_cuda_int(last) < v) {
			snprintf(why, cap, "sm_%d was last supported by CUDA %s", cc10, last);
			rc = 0;
		}
	}
	free(t);
	return rc;
}

static void release_of(const char *v, char *out, size_t cap)
{
	size_t n = strspn(v, "0123456789");

	if (v[n] == '.')
		n += 1 + strspn(v + n + 1, "0123456789");
	snprintf(out, cap, "%.*s", (int)n, v);
}

/* 2: the driver supports this CUDA (or cannot be asked); 1: through
 * minor-version compatibility only; 0: not at all. */
static int driver_ok(const char *cuda, int driver_cuda)
{
	struct compat_result r;
	int rt = cuda ? ver_cuda_int(cuda) : -1;
	enum compat_verdict v;

	if (driver_cuda <= 0 || rt <= 0)
		return 2;
	v = compat_check(rt, driver_cuda, NULL, &r);
	return v == COMPAT_TOO_OLD ? 0 : v == COMPAT_MINOR ? 1 : 2;
}

/* Better by: the installed release, the driver, the newest torch, the newest CUDA. */
static int better(const struct archcov_pick *a, const struct archcov_pick *b)
{
	int c;

	if (a->same_release != b->same_release)
		return a->same_release > b->same_release;
	if (a->driver_ok != b->driver_ok)
		return a->driver_ok > b->driver_ok;
	c = ver_cmp(a->torch, b->torch);
	if (c)
		return c > 0;
	return ver_cmp(a->cuda, b->cuda) > 0;
}

static int pick(const char *torch_version, int cc_major, int cc_minor, int driver_cuda,
		int any_arch, struct archcov_pick *out)
{
	char rels[TORCHREL_RELEASES_MAX][8];
	struct torchrel_variant v[TORCHREL_VARIANTS_MAX];
	struct archcov_pick cand, best;
	char rel[16] = "";
	size_t nr, nv, i, k;
	int found = 0;

	if (torchrel_releases(rels, TORCHREL_RELEASES_MAX, &nr))
		return CD_ENOENT;
	if (torch_version)
		release_of(torch_version, rel, sizeof(rel));
	memset(&best, 0, sizeof(best));
	for (i = 0; i < nr; i++) {
		if (torchrel_variants(rels[i], v, TORCHREL_VARIANTS_MAX, &nv))
			continue;
		for (k = 0; k < nv; k++) {
			if (!any_arch &&
			    (!v[k].arch_known ||
			     archcov_covers(v[k].sass, v[k].n_sass, v[k].ptx, v[k].n_ptx, cc_major,
					    cc_minor, NULL) == ARCHCOV_NONE))
				continue;
			memset(&cand, 0, sizeof(cand));
			str_copy(cand.torch, sizeof(cand.torch), v[k].release);
			str_copy(cand.variant, sizeof(cand.variant), v[k].variant);
			str_copy(cand.cuda, sizeof(cand.cuda), v[k].cuda);
			str_copy(cand.archs, sizeof(cand.archs), v[k].archs);
			cand.same_release = rel[0] && !strcmp(rel, v[k].release);
			cand.driver_ok = driver_ok(v[k].cuda, driver_cuda);
			if (any_arch && (!cand.same_release || cand.driver_ok < 2))
				continue;
			if (!found || better(&cand, &best))
				best = cand;
			found = 1;
		}
	}
	if (!found)
		return CD_ENOENT;
	*out = best;
	return 0;
}

int archcov_pick_torch(const char *torch_version, int cc_major, int cc_minor, int driver_cuda,
		       struct archcov_pick *out)
{
	return pick(torch_version, cc_major, cc_minor, driver_cuda, 0, out);
}

int archcov_pick_for_driver(const char *torch_version, int driver_cuda, struct archcov_pick *out)
{
	if (!torch_version || driver_cuda <= 0)
		return CD_ENOENT;
	return pick(torch_version, 0, 0, driver_cuda, 1, out);
}
