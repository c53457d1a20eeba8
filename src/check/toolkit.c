/* toolkit: can a CUDA extension be built here? toolkit-missing (no toolkit,
 * CUDA_HOME pointing nowhere, no nvcc), toolkit-headers-missing (the toolkit
 * torch selects lacks headers an extension includes, and where else on disk
 * they are), and torch-arch-list-invalid through check/arch_list.c's rule
 * (TORCH_CUDA_ARCH_LIST as the installed torch reads it). The two toolkit-*
 * ids are raised here only, by the builders of check/toolkit.h that `jit`
 * calls too: error when a build is expected (`jit` was run, or
 * TORCH_CUDA_ARCH_LIST, TORCH_EXTENSIONS_DIR or a DS_BUILD_* variable is set);
 * otherwise toolkit-missing is info (warning when CUDA_HOME names nothing)
 * and toolkit-headers-missing a warning. */
#include <stdio.h>
#include <string.h>

#include "check/arch_list.h"
#include "check/check.h"
#include "check/toolkit.h"
#include "core/str.h"
#include "facts/stack.h"
#include "format/archlist.h"
#include "kb/devfiles.h"

const char *toolkit_build_expected(const struct cd_facts *f)
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

static const char *or_(const char *s, const char *d)
{
	return s ? s : d;
}

static struct cd_finding *raised(const struct cd_findings *out, const char *id)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (!strcmp(out->items[i]->id, id))
			return out->items[i];
	return NULL;
}

struct cd_finding *toolkit_missing_raised(const struct cd_findings *out)
{
	return raised(out, "toolkit-missing");
}

struct cd_finding *toolkit_files_raised(const struct cd_findings *out)
{
	return raised(out, "toolkit-headers-missing");
}

/* CUDA_HOME is set but names no toolkit directory. */
static struct cd_finding *home_missing(const struct toolkit_sel *s, const char *section,
				       struct cd_findings *out)
{
	enum cd_severity sev = s->expected ? CD_SEV_ERROR : CD_SEV_WARNING;
	struct cd_finding *x;

	if (s->via)
		x = findings_add(out, "toolkit-missing", sev, section,
				 "CUDA_HOME %s (from %s) does not exist", s->cuda_home, s->via);
	else
		x = findings_add(out, "toolkit-missing", sev, section,
				 "CUDA_HOME %s is not a toolkit directory", s->cuda_home);
	if (!x)
		return NULL;
	finding_detail(x, out->arena,
		       "%s; every extension build will fail with \"nvcc not found\" or missing "
		       "headers.",
		       or_(s->reason, "CUDA_HOME is set"));
	if (s->cuda_home[0] != '/')
		finding_evidence(x, out->arena,
				 "%s: a relative path, which depends on the directory a build "
				 "starts in",
				 s->cuda_home);
	else
		finding_evidence(x, out->arena, "%s: %s", s->cuda_home,
				 s->via ? "no such directory" : "not a directory");
	return x;
}

struct cd_finding *toolkit_missing(const struct toolkit_sel *s, const char *section,
				   struct cd_findings *out)
{
	enum cd_severity sev = s->expected ? CD_SEV_ERROR : CD_SEV_INFO;
	struct cd_finding *x;

	if (!s->cuda_home) {
		x = findings_add(
			out, "toolkit-missing", sev, section, "%s",
			s->other ? "A CUDA toolkit is installed but PyTorch will not find it"
				 : "No CUDA toolkit: CUDA extensions cannot be compiled");
		if (x)
			finding_detail(x, out->arena,
				       "torch.utils.cpp_extension (DeepSpeed ops, flash-attn "
				       "builds, load_inline) needs nvcc and the CUDA headers: %s.",
				       or_(s->reason, "no toolkit selected"));
	} else if (s->exists != CD_TRI_YES) {
		x = home_missing(s, section, out);
	} else if (!s->nvcc) {
		x = findings_add(out, "toolkit-missing", sev, section,
				 "The CUDA toolkit at %s has no nvcc", s->cuda_home);
		if (x) {
			finding_detail(x, out->arena,
				       "%s. It is a runtime-only installation: kernels run, but "
				       "CUDA extensions cannot be compiled.",
				       or_(s->reason, "CUDA_HOME is set"));
			finding_evidence(x, out->arena, "%s/bin/nvcc: absent", s->cuda_home);
		}
	} else {
		return NULL;
	}
	if (x && s->expected)
		finding_evidence(x, out->arena, "a build is expected: %s", s->expected);
	return x;
}

struct cd_finding *toolkit_files_missing(const char *root, const char *const *names, size_t n,
					 const char *expected, const char *section,
					 struct cd_findings *out)
{
	const char *more;

	if (!n)
		return NULL;
	more = n == 1	? " is"
	       : n == 2 ? " and 1 more build file are"
			: arena_printf(out->arena, " and %zu more build files are", n - 1);
	return findings_add(out, "toolkit-headers-missing",
			    expected ? CD_SEV_ERROR : CD_SEV_WARNING, section,
			    "%s%s missing where PyTorch extension builds look in %s", names[0],
			    more ? more : "", root);
}

struct cd_finding *toolkit_missing_from_build(const char *line, const char *section,
					      struct cd_findings *out)
{
	return findings_add(out, "toolkit-missing", CD_SEV_ERROR, section,
			    "The test build failed: %s", line);
}

struct cd_finding *toolkit_files_from_build(const char *line, const char *section,
					    struct cd_findings *out)
{
	return findings_add(out, "toolkit-headers-missing", CD_SEV_ERROR, section,
			    "The test build failed: %s", line);
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

/* Is w one of the blank-separated words of list? */
static int listed_word(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;

	while ((p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
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

		if (!slash || h->present == CD_TRI_YES || !h->listed || h->is_lib)
			continue; /* what the report lists, and no library in CPATH */
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

static void missing_check(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_toolkit_facts *tf = &f->toolkit;
	const struct cd_toolkit *sel = tf->selected != CD_UNK ? &tf->items[tf->selected] : NULL;
	const struct toolkit_sel s = {tf->cuda_home,
				      sel ? sel->found_via : NULL,
				      sel ? sel->exists : CD_TRI_NO,
				      sel ? sel->nvcc_path : NULL,
				      tf->selected_reason,
				      best_other(f, tf->selected) != NULL,
				      toolkit_build_expected(f)};
	struct cd_finding *x = toolkit_missing(&s, "toolkit", out);

	if (!x)
		return;
	if (sel && sel->exists == CD_TRI_YES) { /* no nvcc */
		if (s.other)
			fix_other(f, out, x, tf->selected);
		else
			fix_install(f, out, x);
	} else if (tf->cuda_home) { /* CUDA_HOME names nothing */
		fix_other(f, out, x, tf->selected);
		finding_fix(x, out->arena,
			    "unset CUDA_HOME CUDA_PATH   # torch then looks for nvcc on PATH, then "
			    "/usr/local/cuda");
	} else if (s.other) {
		fix_other(f, out, x, CD_UNK);
	} else {
		fix_install(f, out, x);
	}
}

/* The packages of data/cuda_dev_files.tsv that install the required headers
 * absent from sel, for its CUDA version: apt (NVIDIA's repository) for a
 * system toolkit, conda (the nvidia channel's label of that release: the
 * packages' own versions are the libraries') for a conda prefix. */
static void header_fixes(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x,
			 const struct cd_toolkit *sel)
{
	char pkgs[512] = "", p[DEVFILES_PKG_MAX];
	size_t i, len = 0;
	int v = sel->version ? ver_cuda_int(sel->version) : -1;
	int conda = sel->kind && !strcmp(sel->kind, "conda");

	if (v <= 0 || sel->nvcc_target || (sel->kind && !strcmp(sel->kind, "pip")))
		return; /* no package to name: unknown version, a wrapper's directory, or
			 * wheels (torch pins their versions; an unpinned install breaks it) */
	for (i = 0; i < sel->n_headers; i++) {
		const struct cd_header *h = &sel->headers[i];
		int n;
		if (!h->required || h->path)
			continue; /* present, or only out of the build's sight */
		if (devfiles_package(devfiles_find(h->name), conda ? DEVFILES_CONDA : DEVFILES_APT,
				     v / 1000, (v % 1000) / 10, p, sizeof(p)) ||
		    listed_word(pkgs, p))
			continue;
		n = snprintf(pkgs + len, sizeof(pkgs) - len, " %s", p);
		if (n > 0 && (size_t)n < sizeof(pkgs) - len)
			len += (size_t)n;
	}
	if (!len)
		return;
	if (conda)
		finding_fix(x, out->arena, "conda install -c nvidia/label/cuda-%d.%d.0%s", v / 1000,
			    (v % 1000) / 10, pkgs);
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
	const char *hidden, **names;
	size_t i, n;

	if (tf->selected == CD_UNK)
		return;
	sel = &tf->items[tf->selected];
	if (sel->exists != CD_TRI_YES || !missing_required(sel))
		return;
	names = arena_calloc(out->arena, sel->n_headers, sizeof(*names));
	for (i = n = 0; names && i < sel->n_headers; i++)
		if (sel->headers[i].required && sel->headers[i].present != CD_TRI_YES)
			names[n++] = sel->headers[i].name;
	x = toolkit_files_missing(sel->root, names, n, toolkit_build_expected(f), "toolkit", out);
	if (!x)
		return;
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
	missing_check(f, out);
	headers_missing(f, out);
	arch_list(f, out);
}
