/* scan_infer: a diagnosis from the versions a log states, when no message
 * says it. A log that shows the driver's CUDA version (nvidia-smi's header,
 * ollama's or NCCL's report) and the CUDA release a program was built for
 * (torch's +cuXYZ, "CUDA used to build PyTorch", cudatoolkit=X.Y) holds the
 * answer even when the user pasted only torch.cuda.is_available() -> False:
 * a runtime newer than the driver, past what minor-version compatibility
 * allows, cannot initialise (data/driver_cuda.tsv, through kb/compat). */
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "kb/compat.h"

#include "explain/scan_int.h"

/* What the two diagnoses below share: with and without the minimum driver of
 * the release (data/driver_cuda.tsv has no row for a release newer than it). */
#define VERSIONS_SIG                                                                               \
	.id = "driver-older-than-runtime-stated", .category = "driver-too-old",                    \
	.severity = CD_SEV_ERROR, .role = SIG_CAUSE, .priority = 30,                               \
	.title = "the driver supports CUDA {driver_cuda}, older than the CUDA {torch_cuda} "       \
		 "the program was built for (both stated in the log)"
#define VERSIONS_WHY                                                                               \
	"The log states the CUDA version the driver supports and the CUDA release the "            \
	"framework was built with, and the driver is too old for that release: a CUDA "            \
	"runtime newer than the driver runs only within the same major version "                   \
	"(minor-version compatibility, CUDA 11 on), so this one cannot initialise. "
#define VERSIONS_FIX_BUILD                                                                         \
	"or install the framework's build for the CUDA the driver has: pip install torch "         \
	"--index-url https://download.pytorch.org/whl/cuXYZ (XYZ at most {driver_cuda})"
#define VERSIONS_FIX_CHECK                                                                         \
	"cuda-doctor check   # the driver, torch's CUDA and the verdict, on the machine"
#define VERSIONS_COMPAT "https://docs.nvidia.com/deploy/cuda-compatibility/"

static const struct sig sig_versions = {
	VERSIONS_SIG,
	.explain = VERSIONS_WHY
	"torch then reports torch.cuda.is_available() False, or CUDA "
	"errors 35, 803 or 804. No message in the log says so; the versions do.",
	.fix = {3,
		{"upgrade the NVIDIA driver to {driver_min} or newer (the minimum for CUDA "
		 "{torch_cuda}), then check with nvidia-smi",
		 VERSIONS_FIX_BUILD, VERSIONS_FIX_CHECK}},
	.source = {2,
		   {VERSIONS_COMPAT,
		    "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"}},
};

static const struct sig sig_versions_new = {
	VERSIONS_SIG,
	.explain =
		VERSIONS_WHY "cuda-doctor's table of drivers has no row for CUDA {torch_cuda} yet.",
	.fix = {3,
		{"upgrade the NVIDIA driver to one whose nvidia-smi shows CUDA Version "
		 "{torch_cuda} "
		 "or newer (NVIDIA's CUDA release notes give the minimum)",
		 VERSIONS_FIX_BUILD, VERSIONS_FIX_CHECK}},
	.source = {1, {VERSIONS_COMPAT}},
};

/* Another cause is already named, and not one a driver too old explains
 * (explain_causes.tsv): the versions do not overrule it. */
static int other_cause(const struct xs_result *r, const struct xs_db *db)
{
	int too_old = sig_category_index("driver-too-old");
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct xs_diag *d = &r->d[i];
		int k = sig_category_index(d->sig->category);
		if (xs_is_fallback(d->sig) || d->alt_of || d->sig->role != SIG_CAUSE ||
		    d->sig->severity == CD_SEV_INFO)
			continue;
		if (k == too_old)
			return 1; /* said already */
		if (k < 0 || too_old < 0 || !(db->causes[too_old] >> k & 1))
			return 1;
	}
	return 0;
}

void xs_infer(struct xs_result *r, const struct xs_db *db)
{
	int jd = sigdb_ctx_index(&db->sigs, "driver_cuda"),
	    jt = sigdb_ctx_index(&db->sigs, "torch_cuda");
	const char *dv, *tv;
	struct compat_result cr;
	struct xs_diag *d;
	char text[160];
	uint64_t ld, lt;

	if (jd < 0 || jt < 0 || !(dv = r->ctx_last[jd].value) || !(tv = r->ctx_last[jt].value) ||
	    r->ctx_last[jd].input != r->ctx_last[jt].input || r->n >= XS_DIAG_MAX)
		return;
	if (compat_check(ver_cuda_int(tv), ver_cuda_int(dv), NULL, &cr) != COMPAT_TOO_OLD ||
	    other_cause(r, db))
		return;
	ld = r->ctx_last[jd].line;
	lt = r->ctx_last[jt].line;
	snprintf(text, sizeof(text), "driver CUDA %s (line %llu), built for CUDA %s (line %llu)",
		 dv, (unsigned long long)ld, tv, (unsigned long long)lt);
	d = &r->d[r->n++];
	memset(d, 0, sizeof(*d));
	d->sig = cr.toolkit_min[0] ? &sig_versions : &sig_versions_new;
	d->input = r->ctx_last[jd].input;
	d->first_line = ld > lt ? ld : lt;
	d->count = 1;
	d->inputs = (uint64_t)1 << (d->input % 64);
	d->lines[d->n_lines++] = d->first_line; /* the line shown, then the other */
	if (ld != lt)
		d->lines[d->n_lines++] = ld < lt ? ld : lt;
	d->text = arena_strdup(&r->arena, text);
	xs_fact_add(r, d, "driver_cuda", dv, ld);
	xs_fact_add(r, d, "torch_cuda", tv, lt);
	if (cr.toolkit_min[0])
		xs_fact_add(r, d, "driver_min", cr.toolkit_min, 0);
}
