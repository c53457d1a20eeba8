/* gpuarch: see gpuarch.h. Compute capabilities are kept as
 * cudaDriverGetVersion-style integers (ver_cuda_int: "8.9" -> 8090), so rows
 * and callers compare as numbers ("10.0" after "9.0"). */
#include "kb/gpuarch.h"

#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

#define ARCH_ROWS_MAX	64
#define KERNEL_ROWS_MAX 16

struct arch_row {
	int cc;
	char name[8];		    /* "8.9", as written */
	enum gpuarch_answer has[2]; /* by enum gpuarch_feature */
};

struct kernel_row {
	char kernel[48];
	int cc;
	char error[160];
};

static struct arch_row arch[ARCH_ROWS_MAX];
static size_t n_arch;
static struct kernel_row kernels[KERNEL_ROWS_MAX];
static size_t n_kernels;
static int loaded;

static enum gpuarch_answer answer(const char *cell)
{
	if (cell && !strcmp(cell, "yes"))
		return GPUARCH_YES;
	if (cell && !strcmp(cell, "no"))
		return GPUARCH_NO;
	return GPUARCH_UNKNOWN; /* blank: the source does not say */
}

static int arch_row(const struct kb_tsv *t, void *ctx)
{
	const char *cc = kb_tsv_get(t, "compute_capability");
	struct arch_row *r = &arch[n_arch];

	(void)ctx;
	if (!cc || (r->cc = ver_cuda_int(cc)) <= 0 ||
	    str_copy(r->name, sizeof(r->name), cc) >= sizeof(r->name))
		return 0;
	r->has[GPUARCH_BF16] = answer(kb_tsv_get(t, "bf16_hw"));
	r->has[GPUARCH_FP8] = answer(kb_tsv_get(t, "fp8_hw"));
	return ++n_arch == ARCH_ROWS_MAX;
}

static int kernel_row(const struct kb_tsv *t, void *ctx)
{
	const char *k = kb_tsv_get(t, "kernel"), *cc = kb_tsv_get(t, "min_cc");
	struct kernel_row *r = &kernels[n_kernels];

	(void)ctx;
	if (!k || !*k || !cc || (r->cc = ver_cuda_int(cc)) <= 0 ||
	    str_copy(r->kernel, sizeof(r->kernel), k) >= sizeof(r->kernel))
		return 0;
	str_copy(r->error, sizeof(r->error), kb_tsv_get(t, "error"));
	return ++n_kernels == KERNEL_ROWS_MAX;
}

static void load(void)
{
	if (loaded)
		return;
	loaded = 1;
	/* Not embedded or out of memory: no rows, and every answer is unknown. */
	(void)!kb_tsv_each("gpu_arch.tsv", arch_row, NULL);
	(void)!kb_tsv_each("kernel_arch.tsv", kernel_row, NULL);
}

static const struct arch_row *first_yes(enum gpuarch_feature f)
{
	const struct arch_row *best = NULL;
	size_t i;

	load();
	for (i = 0; i < n_arch; i++)
		if (arch[i].has[f] == GPUARCH_YES && (!best || arch[i].cc < best->cc))
			best = &arch[i];
	return best;
}

enum gpuarch_answer gpuarch_has(int major, int minor, enum gpuarch_feature f)
{
	const struct arch_row *first;
	int cc = major * 1000 + minor * 10;
	size_t i;

	if (major < 0 || major > 1000 || minor < 0 || minor > 99 ||
	    (f != GPUARCH_BF16 && f != GPUARCH_FP8))
		return GPUARCH_UNKNOWN;
	load();
	for (i = 0; i < n_arch; i++)
		if (arch[i].cc == cc && arch[i].has[f] != GPUARCH_UNKNOWN)
			return arch[i].has[f];
	/* The source states a floor ("BF16 requires compute capability 8.0 or
	 * higher"): below the first yes row the answer is no, with or without a
	 * row of its own. Above it, a blank cell stays unknown. */
	first = first_yes(f);
	return first && cc < first->cc ? GPUARCH_NO : GPUARCH_UNKNOWN;
}

const char *gpuarch_first(enum gpuarch_feature f)
{
	const struct arch_row *best;

	if (f != GPUARCH_BF16 && f != GPUARCH_FP8)
		return NULL;
	best = first_yes(f);
	return best ? best->name : NULL;
}

int gpuarch_kernel_floor(const char *kernel, int *major, int *minor, const char **error)
{
	size_t i;

	load();
	for (i = 0; kernel && i < n_kernels; i++) {
		if (strcmp(kernels[i].kernel, kernel))
			continue;
		*major = kernels[i].cc / 1000;
		*minor = (kernels[i].cc % 1000) / 10;
		if (error)
			*error = kernels[i].error[0] ? kernels[i].error : NULL;
		return 0;
	}
	return CD_ENOENT;
}
