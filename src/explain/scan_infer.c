/* scan_infer: diagnoses from the versions a log states, when no message says
 * them. A log often shows two versions that cannot work together without any
 * line saying so: the driver's CUDA (nvidia-smi's header, ollama's or NCCL's
 * report) and the CUDA a program was built for (torch's +cuXYZ, "CUDA used to
 * build PyTorch", cudatoolkit=X.Y); nvcc's release and torch's CUDA; the host
 * compiler's release and nvcc's. Each pair is judged by the rule the
 * environment checks use on a live machine (kb/compat: minor-version
 * compatibility, data/driver_cuda.tsv; torch's cpp_extension: the same CUDA
 * major; kb/hostcc: host_config.h's newest gcc, data/host_compiler.tsv). A
 * pair is judged only when both versions come from the same input, and the
 * diagnosis is added only when no other cause is named that this one does
 * not directly explain (explain_causes.tsv). */
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "kb/compat.h"
#include "kb/hostcc.h"

#include "explain/scan_int.h"

#define STATED_NO_MESSAGE " No message in the log says so; the versions do."
#define SRC_COMPAT	  "https://docs.nvidia.com/deploy/cuda-compatibility/"
#define SRC_CPP_EXT	  "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"

/* driver CUDA vs the CUDA the framework was built for: with and without the
 * minimum driver of the release (data/driver_cuda.tsv has no row for a
 * release newer than it). */
/* What every diagnosis from stated versions is: a cause, at error. */
#define STATED_SIG(sig_id, sig_category)                                                           \
	.id = sig_id, .category = sig_category, .severity = CD_SEV_ERROR, .role = SIG_CAUSE,       \
	.priority = 30

#define DRIVER_SIG                                                                                 \
	STATED_SIG("driver-older-than-runtime-stated", "driver-too-old"),                          \
		.title = "the driver supports CUDA {driver_cuda}, older than the CUDA "            \
			 "{torch_cuda} "                                                           \
			 "the program was built for (both stated in the log)"
#define DRIVER_WHY                                                                                 \
	"The log states the CUDA version the driver supports and the CUDA release the "            \
	"framework was built with, and the driver is too old for that release: a CUDA "            \
	"runtime newer than the driver runs only within the same major version "                   \
	"(minor-version compatibility, CUDA 11 on), so this one cannot initialise. "
#define DRIVER_FIX_BUILD                                                                           \
	"or install the framework's build for the CUDA the driver has: pip install torch "         \
	"--index-url https://download.pytorch.org/whl/cuXYZ (XYZ at most {driver_cuda})"
#define DRIVER_FIX_CHECK                                                                           \
	"cuda-doctor check   # the driver, torch's CUDA and the verdict, on the machine"

static const struct sig sig_driver = {
	DRIVER_SIG,
	.explain = DRIVER_WHY "torch then reports torch.cuda.is_available() False, or CUDA "
			      "errors 35, 803 or 804." STATED_NO_MESSAGE,
	.fix = {3,
		{"upgrade the NVIDIA driver to {driver_min} or newer (the minimum for CUDA "
		 "{torch_cuda}), then check with nvidia-smi",
		 DRIVER_FIX_BUILD, DRIVER_FIX_CHECK}},
	.source = {2,
		   {SRC_COMPAT,
		    "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"}},
};

static const struct sig sig_driver_new = {
	DRIVER_SIG,
	.explain =
		DRIVER_WHY "cuda-doctor's table of drivers has no row for CUDA {torch_cuda} yet.",
	.fix = {3,
		{"upgrade the NVIDIA driver to one whose nvidia-smi shows CUDA Version "
		 "{torch_cuda} or newer (NVIDIA's CUDA release notes give the minimum)",
		 DRIVER_FIX_BUILD, DRIVER_FIX_CHECK}},
	.source = {1, {SRC_COMPAT}},
};

/* nvcc's CUDA vs torch's: torch.utils.cpp_extension refuses to build an
 * extension when the majors differ (a minor difference is only warned of). */
static const struct sig sig_nvcc = {
	STATED_SIG("nvcc-major-differs-from-torch-stated", "nvcc-mismatch"),
	.title = "nvcc is CUDA {nvcc_cuda} and torch was built with CUDA {torch_cuda}: another "
		 "major release (both stated in the log)",
	.explain = "The log states the release of the nvcc that builds extensions (CUDA_HOME's, "
		   "or the first on PATH) and the CUDA release torch was built with, and their "
		   "major versions differ. torch.utils.cpp_extension refuses such a build "
		   "(\"The detected CUDA version mismatches the version that was used to compile "
		   "PyTorch\"), and an extension built by other means links against a CUDA "
		   "runtime torch does not load, which fails at import with undefined symbols "
		   "or at the first kernel." STATED_NO_MESSAGE,
	.fix = {3,
		{"install the CUDA toolkit of torch's release and build with it: export "
		 "CUDA_HOME=/usr/local/cuda-{torch_cuda} "
		 "PATH=/usr/local/cuda-{torch_cuda}/bin:$PATH",
		 "or install the torch build for nvcc's CUDA, where torch publishes one: pip "
		 "install "
		 "torch --index-url https://download.pytorch.org/whl/{nvcc_wheel}",
		 "cuda-doctor jit   # nvcc, CUDA_HOME, torch's CUDA and the compilers, on the "
		 "machine"}},
	.source = {2, {SRC_CPP_EXT, "https://pytorch.org/docs/stable/cpp_extension.html"}},
};

/* The host compiler vs nvcc: host_config.h stops a gcc newer than the one
 * the release supports. */
static const struct sig sig_gcc = {
	STATED_SIG("gcc-newer-than-nvcc-stated", "host-compiler"),
	.title = "gcc {gcc} is newer than CUDA {nvcc_cuda}'s nvcc accepts (gcc {gcc_max} at most; "
		 "both stated in the log)",
	.explain =
		"The log states the host compiler's release and nvcc's, and nvcc "
		"{nvcc_cuda} supports gcc up to {gcc_max}: its include/crt/host_config.h "
		"stops a newer one with \"#error -- unsupported GNU version! gcc versions later "
		"than {gcc_max} are not supported!\", and torch's BuildExtension checks the same "
		"bound." STATED_NO_MESSAGE,
	.fix = {3,
		{"install gcc {gcc_max} (or older) and build with it: export CC=gcc-{gcc_max} "
		 "CXX=g++-{gcc_max} NVCC_CCBIN=g++-{gcc_max}",
		 "or install a CUDA toolkit whose nvcc supports gcc {gcc} and point CUDA_HOME at "
		 "it",
		 "cuda-doctor jit   # nvcc, the host compiler and their bounds, on the machine"}},
	.source = {2,
		   {"https://docs.nvidia.com/cuda/cuda-installation-guide-linux/"
		    "index.html#host-compiler-support-policy",
		    SRC_CPP_EXT}},
};

/* One pair of stated versions and its verdict. */
struct stated {
	const char *a, *b; /* the context facts, the one the title names first first */
	const char *category;
	const char *la, *lb; /* the evidence's words for the two versions */
	/* NULL: the pair is fine or cannot be judged; else the signature, and
	 * the derived fact (name, value) when there is one */
	const struct sig *(*judge)(const char *a, const char *b, const char **extra, char *val,
				   size_t cap);
};

static const struct sig *judge_driver(const char *driver, const char *torch, const char **extra,
				      char *val, size_t cap)
{
	struct compat_result cr;

	if (compat_check(ver_cuda_int(torch), ver_cuda_int(driver), NULL, &cr) != COMPAT_TOO_OLD)
		return NULL;
	if (!cr.toolkit_min[0])
		return &sig_driver_new;
	*extra = "driver_min";
	snprintf(val, cap, "%s", cr.toolkit_min);
	return &sig_driver;
}

static const struct sig *judge_nvcc(const char *nvcc, const char *torch, const char **extra,
				    char *val, size_t cap)
{
	int n = ver_cuda_int(nvcc), t = ver_cuda_int(torch);

	if (n <= 0 || t <= 0 || n / 1000 == t / 1000)
		return NULL;
	*extra = "nvcc_wheel"; /* torch's name of the CUDA build: 11.8 -> cu118 */
	snprintf(val, cap, "cu%d%d", n / 1000, n % 1000 / 10);
	return &sig_nvcc;
}

static const struct sig *judge_gcc(const char *gcc, const char *nvcc, const char **extra, char *val,
				   size_t cap)
{
	int g = ver_cuda_int(gcc), n = ver_cuda_int(nvcc), max;

	if (g <= 0 || n <= 0)
		return NULL;
	max = kb_max_host_compiler(n / 1000, n % 1000 / 10, "gcc", 0);
	if (max <= 0 || g / 1000 <= max)
		return NULL;
	*extra = "gcc_max";
	snprintf(val, cap, "%d", max);
	return &sig_gcc;
}

static const struct stated stated_pairs[] = {
	{"driver_cuda", "torch_cuda", "driver-too-old", "driver CUDA", "built for CUDA",
	 judge_driver},
	{"nvcc_cuda", "torch_cuda", "nvcc-mismatch", "nvcc CUDA", "torch built with CUDA",
	 judge_nvcc},
	{"gcc", "nvcc_cuda", "host-compiler", "gcc", "nvcc CUDA", judge_gcc},
};

/* Another cause is already named, and not one the category causes directly
 * (a row of explain_causes.tsv; not through a third category: nvcc's
 * release explains an extension's undefined symbol, not a cuDNN the
 * program could not load), or the category is named already: the versions
 * do not overrule it. */
static int other_cause(const struct xs_result *r, const struct xs_db *db, const char *category)
{
	int own = sig_category_index(category);
	size_t i;

	for (i = 0; i < r->n; i++) {
		const struct xs_diag *d = &r->d[i];
		int k = sig_category_index(d->sig->category);
		if (xs_is_fallback(d->sig) || d->alt_of || d->sig->role != SIG_CAUSE ||
		    d->sig->severity == CD_SEV_INFO)
			continue;
		if (k == own)
			return 1; /* said already */
		if (k < 0 || own < 0 || !(db->direct[own] >> k & 1))
			return 1;
	}
	return 0;
}

static void add_stated(struct xs_result *r, const struct xs_db *db, const struct stated *p)
{
	int ja = sigdb_ctx_index(&db->sigs, p->a), jb = sigdb_ctx_index(&db->sigs, p->b);
	const char *va, *vb, *extra = NULL;
	const struct sig *s;
	struct xs_diag *d;
	char text[160], val[32];
	uint64_t la, lb;

	if (ja < 0 || jb < 0 || !(va = r->ctx_last[ja].value) || !(vb = r->ctx_last[jb].value) ||
	    r->ctx_last[ja].input != r->ctx_last[jb].input || r->n >= XS_DIAG_MAX)
		return;
	if (!(s = p->judge(va, vb, &extra, val, sizeof(val))) || other_cause(r, db, p->category))
		return;
	la = r->ctx_last[ja].line;
	lb = r->ctx_last[jb].line;
	snprintf(text, sizeof(text), "%s %s (line %llu), %s %s (line %llu)", p->la, va,
		 (unsigned long long)la, p->lb, vb, (unsigned long long)lb);
	d = &r->d[r->n++];
	memset(d, 0, sizeof(*d));
	d->sig = s;
	d->input = r->ctx_last[ja].input;
	d->first_line = la > lb ? la : lb;
	d->count = 1;
	d->inputs = (uint64_t)1 << (d->input % 64);
	d->lines[d->n_lines++] = d->first_line; /* the line shown, then the other */
	if (la != lb)
		d->lines[d->n_lines++] = la < lb ? la : lb;
	d->text = arena_strdup(&r->arena, text);
	xs_fact_add(r, d, p->a, va, la);
	xs_fact_add(r, d, p->b, vb, lb);
	if (extra)
		xs_fact_add(r, d, extra, val, 0);
}

void xs_infer(struct xs_result *r, const struct xs_db *db)
{
	size_t i;

	for (i = 0; i < sizeof(stated_pairs) / sizeof(stated_pairs[0]); i++)
		add_stated(r, db, &stated_pairs[i]);
}
