/* toolkit: can a CUDA extension be built here? toolkit-missing (no toolkit,
 * CUDA_HOME pointing nowhere, no nvcc), toolkit-headers-missing (the toolkit
 * torch selects lacks headers an extension includes, and where else on disk
 * they are), and torch-arch-list-invalid through check/arch_list.c's rule
 * (TORCH_CUDA_ARCH_LIST as the installed torch reads it). Severity of
 * toolkit-missing is info unless the environment shows a build is intended
 * (TORCH_CUDA_ARCH_LIST, TORCH_EXTENSIONS_DIR or a DS_BUILD_* variable set). */
#include <stdio.h>
#include <string.h>

#include "check/arch_list.h"
#include "check/check.h"
#include "core/str.h"
#include "facts/stack.h"

/* Header -> the package that installs it (NVIDIA apt repository, conda). */
static const struct {
	const char *header, *apt, *conda;
} header_pkgs[] = {
	{"cuda_runtime.h", "cuda-cudart-dev", "cuda-cudart-dev"},
	{"cusparse.h", "libcusparse-dev", "libcusparse-dev"},
	{"cublas_v2.h", "libcublas-dev", "libcublas-dev"},
	{"curand.h", "libcurand-dev", "libcurand-dev"},
	{"cusolverDn.h", "libcusolver-dev", "libcusolver-dev"},
	{"cufft.h", "libcufft-dev", "libcufft-dev"},
	{"nvrtc.h", "cuda-nvrtc-dev", "cuda-nvrtc-dev"},
};

/* Why a JIT build is expected, or NULL. */
static const char *jit_need(const struct cd_facts *f)
{
	size_t i;

	if (facts_env_var(f, "TORCH_CUDA_ARCH_LIST"))
		return "TORCH_CUDA_ARCH_LIST is set";
	if (facts_env_var(f, "TORCH_EXTENSIONS_DIR"))
		return "TORCH_EXTENSIONS_DIR is set";
	for (i = 0; i < f->env.n_vars; i++)
		if (str_has_prefix(f->env.vars[i].name, "DS_BUILD_"))
			return "a DS_BUILD_* variable is set";
	return NULL;
}

/* Required headers an extension build does not see (not in ROOT/include). */
static size_t missing_required(const struct cd_toolkit *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n_headers; i++)
		n += t->headers[i].required && t->headers[i].present != CD_TRI_YES;
	return n;
}

/* Required headers nowhere in the toolkit (not even under targets/). */
static size_t absent_required(const struct cd_toolkit *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n_headers; i++)
		n += t->headers[i].required && !t->headers[i].path;
	return n;
}

/* Is dir (n bytes) one of the ':'-separated items of list? */
static int listed(const char *list, const char *dir, size_t n)
{
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ":");
		if (k == n && !memcmp(p, dir, n))
			return 1;
		p += k + (p[k] == ':');
	}
	return 0;
}

/* "DIR1:DIR2": the directories holding headers the build does not see; NULL
 * if none. */
static const char *hidden_dirs(struct cd_arena *a, const struct cd_toolkit *t)
{
	char dirs[2048] = "";
	size_t i, len = 0;

	for (i = 0; i < t->n_headers; i++) {
		const struct cd_header *h = &t->headers[i];
		const char *slash = h->path ? strrchr(h->path, '/') : NULL;
		size_t dl;

		if (!slash || h->present == CD_TRI_YES)
			continue;
		dl = (size_t)(slash - h->path);
		if (listed(dirs, h->path, dl))
			continue;
		if (len + dl + 2 >= sizeof(dirs))
			break;
		if (len)
			dirs[len++] = ':';
		memcpy(dirs + len, h->path, dl);
		len += dl;
		dirs[len] = '\0';
	}
	return len ? arena_strdup(a, dirs) : NULL;
}

/* The toolkit to point CUDA_HOME at instead, never the excluded one, newest
 * first among: those whose headers the build sees (level 0), those with the
 * headers under targets/ (level 1: CPATH needed), any with nvcc (level 2). */
static const struct cd_toolkit *pick_other(const struct cd_facts *f, int64_t exclude, int level)
{
	const struct cd_toolkit *best = NULL;
	size_t i;

	for (i = 0; i < f->toolkit.n; i++) {
		const struct cd_toolkit *t = &f->toolkit.items[i];
		if ((int64_t)i == exclude || t->exists != CD_TRI_YES || !t->nvcc_path ||
		    t->nvcc_target || (level == 0 && missing_required(t)) ||
		    (level == 1 && absent_required(t)))
			continue;
		if (!best ||
		    (t->version && (!best->version || ver_cmp(t->version, best->version) > 0)))
			best = t;
	}
	return best;
}

static const struct cd_toolkit *best_other(const struct cd_facts *f, int64_t exclude)
{
	const struct cd_toolkit *t = pick_other(f, exclude, 0);

	if (!t)
		t = pick_other(f, exclude, 1);
	return t ? t : pick_other(f, exclude, 2);
}

static void fix_other(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x,
		      int64_t exclude)
{
	const struct cd_toolkit *o = best_other(f, exclude);
	const char *ver, *hidden;
	size_t miss;

	if (!o)
		return;
	ver = o->version ? o->version : "version unknown";
	miss = absent_required(o);
	hidden = hidden_dirs(out->arena, o);
	if (miss)
		finding_fix(x, out->arena,
			    "export CUDA_HOME=%s   # CUDA %s: nvcc, but %zu header%s "
			    "missing",
			    o->root, ver, miss, miss == 1 ? "" : "s");
	else if (hidden)
		finding_fix(x, out->arena,
			    "export CUDA_HOME=%s CPATH=%s${CPATH:+:$CPATH}   # CUDA %s", o->root,
			    hidden, ver);
	else
		finding_fix(x, out->arena, "export CUDA_HOME=%s   # CUDA %s: nvcc and every header",
			    o->root, ver);
}

static void fix_install(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x)
{
	int v = f->driver.cuda_version_int != CD_UNK ? (int)f->driver.cuda_version_int : 0;
	char apt[16] = "X-Y", conda[16] = "X.Y";

	if (v > 0) { /* no newer than the driver supports */
		snprintf(apt, sizeof(apt), "%d-%d", v / 1000, (v % 1000) / 10);
		snprintf(conda, sizeof(conda), "%d.%d", v / 1000, (v % 1000) / 10);
	}
	finding_fix(x, out->arena,
		    "python3 -c 'import torch; print(torch.version.cuda)'   "
		    "# the CUDA version torch was built with: install that one");
	finding_fix(x, out->arena, "sudo apt-get install cuda-toolkit-%s   # NVIDIA apt repository",
		    apt);
	finding_fix(x, out->arena,
		    "conda install -c nvidia cuda-toolkit=%s   # or, in a conda "
		    "environment",
		    conda);
}

static void toolkit_missing(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_toolkit_facts *tf = &f->toolkit;
	const struct cd_toolkit *sel = tf->selected != CD_UNK ? &tf->items[tf->selected] : NULL;
	const char *need = jit_need(f);
	enum cd_severity sev = need ? CD_SEV_WARNING : CD_SEV_INFO;
	struct cd_finding *x;

	if (!tf->cuda_home) {
		const struct cd_toolkit *o = best_other(f, CD_UNK);
		x = findings_add(out, "toolkit-missing", sev, "toolkit",
				 o ? "A CUDA toolkit is installed but PyTorch will not find it"
				   : "No CUDA toolkit: CUDA extensions cannot be compiled");
		finding_detail(x, out->arena,
			       "torch.utils.cpp_extension (DeepSpeed ops, flash-attn builds, "
			       "load_inline) needs nvcc and the CUDA headers: %s.",
			       tf->selected_reason ? tf->selected_reason : "no toolkit selected");
		if (need)
			finding_evidence(x, out->arena, "a build is expected: %s", need);
		if (o)
			fix_other(f, out, x, CD_UNK);
		else
			fix_install(f, out, x);
		return;
	}
	if (!sel || sel->exists != CD_TRI_YES) {
		if (tf->cuda_home[0] != '/')
			x = findings_add(out, "toolkit-missing", CD_SEV_WARNING, "toolkit",
					 "CUDA_HOME is a relative path (%s): it depends on the "
					 "directory a build starts in",
					 tf->cuda_home);
		else
			x = findings_add(out, "toolkit-missing", CD_SEV_WARNING, "toolkit",
					 "CUDA_HOME names %s, which does not exist", tf->cuda_home);
		finding_detail(x, out->arena,
			       "%s; every extension build will fail with "
			       "\"nvcc not found\" or missing headers.",
			       tf->selected_reason);
		if (tf->cuda_home[0] == '/')
			finding_evidence(x, out->arena, "%s: no such directory", tf->cuda_home);
		fix_other(f, out, x, tf->selected);
		finding_fix(x, out->arena,
			    "unset CUDA_HOME CUDA_PATH   # torch then looks for nvcc on PATH, then "
			    "/usr/local/cuda");
		return;
	}
	if (!sel->nvcc_path) {
		x = findings_add(out, "toolkit-missing", sev, "toolkit",
				 "The CUDA toolkit at %s has no nvcc", sel->root);
		finding_detail(x, out->arena,
			       "%s. It is a runtime-only installation: kernels run, but CUDA "
			       "extensions cannot be compiled.",
			       tf->selected_reason);
		finding_evidence(x, out->arena, "%s/bin/nvcc: absent", sel->root);
		if (need)
			finding_evidence(x, out->arena, "a build is expected: %s", need);
		if (best_other(f, tf->selected))
			fix_other(f, out, x, tf->selected);
		else
			fix_install(f, out, x);
	}
}

static void header_fixes(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x,
			 const struct cd_toolkit *sel)
{
	char pkgs[512] = "", ver[16], cver[16];
	size_t i, k, len = 0;
	int v = sel->version ? ver_cuda_int(sel->version) : -1;
	int conda = sel->kind && !strcmp(sel->kind, "conda");

	if (v <= 0 || sel->nvcc_target || (sel->kind && !strcmp(sel->kind, "pip")))
		return; /* no package to name: unknown version, a wrapper's directory, or
			 * wheels (torch pins their versions; an unpinned install breaks it) */
	snprintf(ver, sizeof(ver), "%d-%d", v / 1000, (v % 1000) / 10);
	snprintf(cver, sizeof(cver), "%d.%d", v / 1000, (v % 1000) / 10);
	for (i = 0; i < sel->n_headers; i++) {
		const struct cd_header *h = &sel->headers[i];
		if (!h->required || h->path)
			continue; /* present, or only out of the build's sight */
		for (k = 0; k < sizeof(header_pkgs) / sizeof(header_pkgs[0]); k++) {
			int n;
			if (strcmp(h->name, header_pkgs[k].header))
				continue;
			n = conda ? snprintf(pkgs + len, sizeof(pkgs) - len, " %s=%s",
					     header_pkgs[k].conda, cver)
				  : snprintf(pkgs + len, sizeof(pkgs) - len, " %s-%s",
					     header_pkgs[k].apt, ver);
			if (n > 0 && (size_t)n < sizeof(pkgs) - len)
				len += (size_t)n;
		}
	}
	if (!len)
		return;
	if (conda)
		finding_fix(x, out->arena, "conda install -c nvidia%s", pkgs);
	else
		finding_fix(x, out->arena, "sudo apt-get install%s   # NVIDIA apt repository",
			    pkgs);
}

static void header_line(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x,
			const struct cd_toolkit *sel, size_t i)
{
	const struct cd_toolkit_facts *tf = &f->toolkit;
	const struct cd_header *h = &sel->headers[i];
	const char *elsewhere = NULL;
	size_t k;

	if (h->path && !strcmp(h->scope, "targets")) {
		finding_evidence(x, out->arena,
				 "%s: only in %s, which nvcc searches but the host "
				 "compiler of .cpp sources does not",
				 h->name, h->path);
		return;
	}
	if (h->path) {
		finding_evidence(x, out->arena, "%s: in %s, outside %s/include", h->name, h->path,
				 sel->root);
		return;
	}
	for (k = 0; k < tf->n && !elsewhere; k++)
		if ((int64_t)k != tf->selected && tf->items[k].n_headers > i &&
		    tf->items[k].headers[i].path)
			elsewhere = tf->items[k].headers[i].path;
	if (elsewhere)
		finding_evidence(x, out->arena, "%s: absent from %s/include; present at %s",
				 h->name, sel->root, elsewhere);
	else
		finding_evidence(x, out->arena,
				 "%s: absent from %s/include and from every other toolkit found",
				 h->name, sel->root);
}

static void headers_missing(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_toolkit_facts *tf = &f->toolkit;
	const struct cd_toolkit *sel;
	struct cd_finding *x;
	const char *hidden;
	size_t i, n;

	if (tf->selected == CD_UNK)
		return;
	sel = &tf->items[tf->selected];
	if (sel->exists != CD_TRI_YES || !(n = missing_required(sel)))
		return;
	x = findings_add(out, "toolkit-headers-missing", CD_SEV_WARNING, "toolkit",
			 "%zu CUDA header%s not in %s/include, where PyTorch extension builds "
			 "look",
			 n, n == 1 ? " is" : "s are", sel->root);
	finding_detail(x, out->arena,
		       "torch.utils.cpp_extension adds -I CUDA_HOME/include and nothing else; a "
		       "build that includes a missing header stops with \"fatal error: <header>: "
		       "No such file or directory\". %s.",
		       tf->selected_reason);
	for (i = 0; i < sel->n_headers; i++)
		if (sel->headers[i].required && sel->headers[i].present != CD_TRI_YES)
			header_line(f, out, x, sel, i);
	hidden = hidden_dirs(out->arena, sel);
	if (hidden)
		finding_fix(x, out->arena,
			    "export CPATH=%s${CPATH:+:$CPATH}   # let the compilers "
			    "find them",
			    hidden);
	if (absent_required(sel)) {
		fix_other(f, out, x, tf->selected);
		header_fixes(f, out, x, sel);
	}
}

/* torch-arch-list-invalid: the one rule (check/arch_list.c) with check's
 * facts. The list is judged only when it is set: unset, nothing here says a
 * build is intended. */
static void arch_list(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_toolkit_facts *tf = &f->toolkit;
	const struct cd_toolkit *sel = tf->selected != CD_UNK ? &tf->items[tf->selected] : NULL;
	struct arch_list_input in;
	struct arch_list_gpu *gpus;
	size_t i;
	int nvcc;

	memset(&in, 0, sizeof(in));
	in.value = facts_env_var(f, "TORCH_CUDA_ARCH_LIST");
	if (!in.value)
		return;
	for (i = 0; i < f->env.n_vars; i++)
		if (!strcmp(f->env.vars[i].name, "TORCH_CUDA_ARCH_LIST"))
			in.truncated = f->env.vars[i].truncated;
	in.torch_version = f->stack ? f->stack->torch.version : NULL;
	nvcc = sel && sel->nvcc_path && tf->nvcc_version ? ver_cuda_int(tf->nvcc_version) : -1;
	in.nvcc_version = nvcc > 0 ? tf->nvcc_version : NULL;
	in.nvcc_major = nvcc > 0 ? nvcc / 1000 : -1;
	in.nvcc_minor = nvcc > 0 ? (nvcc % 1000) / 10 : -1;
	gpus = f->n_gpus ? arena_alloc(out->arena, f->n_gpus * sizeof(*gpus)) : NULL;
	for (i = 0; gpus && i < f->n_gpus; i++)
		if (f->gpus[i].cc_major != CD_UNK && f->gpus[i].cc_minor != CD_UNK)
			gpus[in.n_gpus++] = (struct arch_list_gpu){(int)f->gpus[i].cc_major,
								   (int)f->gpus[i].cc_minor};
	in.gpus = gpus;
	in.gpus_known = f->gpus_known && in.n_gpus == f->n_gpus;
	in.section = "toolkit";
	arch_list_check(&in, out);
}

void check_toolkit(const struct cd_facts *f, struct cd_findings *out)
{
	toolkit_missing(f, out);
	headers_missing(f, out);
	arch_list(f, out);
}
