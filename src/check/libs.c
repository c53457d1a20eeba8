/* libs: findings about the libraries torch will really load, from the
 * library probe's facts (probe/libs.h):
 *   lib-missing     a need of torch (DT_NEEDED: error, the ImportError it
 *                   predicts) or a run-time load (dlopen: warning, the first
 *                   use fails) that no rule of the loader finds
 *   lib-shadowed    another file won over the copy the requester ships with
 *                   (LD_LIBRARY_PATH before a RUNPATH, the cache for a
 *                   library without tags, an earlier copy, a cuDNN
 *                   sub-library from another release); the corrected
 *                   LD_LIBRARY_PATH is printed
 *   lib-duplicate   (info) another version of cuDNN, NCCL or cuBLAS on disk;
 *                   names the one that loads */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "check/stack_check.h"
#include "core/str.h"
#include "format/pep508.h"
#include "kb/nvlibs.h"
#include "probe/stack/libs.h"
#include "probe/stack/libs_util.h"

#define GROUPS_MAX 8

/* Requirement q (a Requires-Dist line) is for distribution name. */
static int requires_name(const char *q, const char *name)
{
	char a[PEP508_NAME_MAX], b[PEP508_NAME_MAX];
	size_t n = strspn(q, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");

	pep508_normalize(q, n, a, sizeof(a));
	pep508_normalize(name, strlen(name), b, sizeof(b));
	return n && !strcmp(a, b);
}

/* The torch (or cuda-toolkit) requirement that installs the wheel shipping a
 * library, as written ("nvidia-cudnn-cu13==9.19.0.56"); else the wheel of
 * torch's CUDA major (data/nvidia_libs.tsv); NULL when neither is known. */
static const char *wheel_for(const struct cd_facts *f, const char *lib)
{
	static const char *const owners[] = {"torch", "cuda-toolkit"};
	struct nvlibs_wheel w[NVLIBS_WHEELS_MAX];
	const char *cuda = f->stack->torch.cuda;
	size_t n = nvlibs_wheels(lib, w, NVLIBS_WHEELS_MAX), i, k, j;
	int major = -1;

	for (k = 0; n && k < 2; k++) {
		const struct cd_package *p = stack_find(f->stack, owners[k]);
		for (j = 0; p && j < p->n_requires; j++)
			for (i = 0; i < n; i++)
				if (requires_name(p->requires[j], w[i].name))
					return arena_printf((struct cd_arena *)&f->arena, "%.*s",
							    (int)strcspn(p->requires[j], ";"),
							    p->requires[j]);
	}
	for (i = 0; cuda && cuda[i] >= '0' && cuda[i] <= '9' && i < 3; i++)
		major = (major < 0 ? 0 : major * 10) + (cuda[i] - '0');
	for (i = 0; i < n; i++)
		if (w[i].cuda_major == major)
			return w[i].name;
	return NULL;
}

static const char *dir_of(struct cd_arena *a, const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? arena_strndup(a, path, (size_t)(s - path)) : NULL;
}

static void missing_one(const struct cd_facts *f, const struct cd_lib_missing *m,
			struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	int needed = m->how == LIBS_HOW_NEEDED || m->how == LIBS_HOW_IMPORT;
	const char *w = wheel_for(f, m->name);
	struct cd_finding *x;
	size_t i;

	x = findings_add(out, "lib-missing", needed ? CD_SEV_ERROR : CD_SEV_WARNING, "python",
			 "%s, %s by %s, is found by no rule of the loader", m->name,
			 needed ? "needed" : "opened at run time",
			 m->requested_by ? m->requested_by : "torch");
	if (!x)
		return;
	if (needed)
		finding_detail(x, a,
			       "`import torch` fails with \"ImportError: %s: cannot open shared "
			       "object file: No such file or directory\" (the loader searched the "
			       "requester's RPATH or RUNPATH, LD_LIBRARY_PATH, /etc/ld.so.cache "
			       "and the default directories).",
			       m->name);
	else
		finding_detail(x, a,
			       "torch imports, but %s fails when it needs %s (%s): dlopen "
			       "searches the caller's RPATH or RUNPATH, LD_LIBRARY_PATH, "
			       "/etc/ld.so.cache and the default directories.",
			       m->requested_by ? m->requested_by : "the caller", m->name,
			       m->when ? m->when : "at first use");
	finding_evidence(x, a, "requested by %s (%s)", m->requested_by ? m->requested_by : "?",
			 libs_how_name(m->how));
	if (m->error)
		finding_evidence(x, a, "loader: %s", m->error);
	for (i = 0; i < m->n_copies && i < 4; i++)
		finding_evidence(x, a, "a copy no rule reaches: %s%s%s", m->copies[i].path,
				 m->copies[i].version ? " " : "",
				 m->copies[i].version ? m->copies[i].version : "");
	if (m->n_copies)
		finding_fix(x, a, "export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",
			    dir_of(a, m->copies[0].path));
	if (w)
		finding_fix(x, a, "%s --force-reinstall --no-deps '%s'   # the wheel that ships %s",
			    stack_pip(f), w, m->name);
}

static void missing_findings(const struct cd_facts *f, const struct cd_libs_facts *L,
			     struct cd_findings *out)
{
	size_t i;

	/* A preload that fails is caught by torch/__init__.py: not a miss of its own. */
	for (i = 0; i < L->n_missing; i++)
		if (!L->missing[i].optional && !L->missing[i].driver &&
		    L->missing[i].how != LIBS_HOW_PRELOAD)
			missing_one(f, &L->missing[i], out);
}

/* ---- shadowed ---------------------------------------------------------------- */

static int worse(const struct cd_lib_item *it)
{
	if (it->mixed)
		return !it->caller_version || libs_versions_differ(it->version, it->caller_version);
	return libs_versions_differ(it->version, it->intended_version);
}

static const char *group_key(const struct cd_lib_item *it)
{
	return it->shadow_entry ? it->shadow_entry : it->shadow_by ? it->shadow_by : "?";
}

static void shadow_fixes(const struct cd_facts *f, const struct cd_libs_facts *L,
			 struct cd_finding *x, struct cd_arena *a, const struct cd_lib_item *it)
{
	const char *drop[GROUPS_MAX * 4];
	char fixed[8192];
	size_t n = 0, i, k;

	if (it->shadow_entry) {
		for (i = 0; i < L->n_items && n < sizeof(drop) / sizeof(drop[0]); i++) {
			int dup = 0;
			if (!L->items[i].shadow_entry)
				continue;
			for (k = 0; k < n; k++)
				dup |= !strcmp(drop[k], L->items[i].shadow_entry);
			if (!dup)
				drop[n++] = L->items[i].shadow_entry;
		}
		if (libs_ldpath_without(L->ld_library_path, drop, n, fixed, sizeof(fixed)))
			finding_fix(x, a, "export LD_LIBRARY_PATH='%s'   # without %s", fixed,
				    it->shadow_entry);
		else
			finding_fix(x, a,
				    "unset LD_LIBRARY_PATH   # its only entries shadow torch's "
				    "libraries");
	} else if (it->how == LIBS_HOW_LD_PRELOAD) {
		finding_fix(x, a, "unset LD_PRELOAD   # or drop %s from it", it->path);
	} else if (it->intended && !it->mixed) {
		finding_fix(x, a, "export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}",
			    dir_of(a, it->intended));
	}
	/* Reinstalling the wheel completes a broken copy; it does not undo a
	 * variable that shadows a complete one (the fixes above do). */
	if (it->mixed && it->soname && !it->shadow_entry && it->how != LIBS_HOW_LD_PRELOAD) {
		const char *w = wheel_for(f, it->soname);
		if (w)
			finding_fix(x, a,
				    "%s --force-reinstall --no-deps '%s'   # a complete copy of "
				    "the release torch loads",
				    stack_pip(f), w);
	}
}

static void shadow_group(const struct cd_facts *f, const struct cd_libs_facts *L, const char *key,
			 struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x = NULL;
	const struct cd_lib_item *first = NULL;
	size_t i, n = 0;
	int err = 0, mixed = 0;

	for (i = 0; i < L->n_items; i++) {
		const struct cd_lib_item *it = &L->items[i];
		if (!it->intended || strcmp(group_key(it), key))
			continue;
		if (!first)
			first = it;
		n++;
		err |= worse(it);
		mixed |= it->mixed;
	}
	if (!first)
		return;
	x = findings_add(out, "lib-shadowed", err ? CD_SEV_ERROR : CD_SEV_WARNING, "python",
			 "%zu librar%s torch loads come%s from %s instead of %s", n,
			 n == 1 ? "y" : "ies", n == 1 ? "s" : "", dir_of(a, first->path),
			 dir_of(a, first->intended));
	if (!x)
		return;
	finding_detail(
		x, a, "%s wins over %s.%s", first->shadow_by ? first->shadow_by : "another rule",
		first->intended_by ? first->intended_by : "the requester's own copy",
		mixed ? " cuDNN opens its sub-libraries by SONAME with dlopen, and a RUNPATH comes "
			"after LD_LIBRARY_PATH: sub-libraries of another cuDNN release in one "
			"process fail the first convolution with "
			"CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH."
		: err ? " The two copies are different versions: expect \"undefined symbol\" "
			"errors or wrong results."
		      : "");
	for (i = 0; i < L->n_items && x->n_evidence < CD_FINDING_LINES_MAX - 2; i++) {
		const struct cd_lib_item *it = &L->items[i];
		if (!it->intended || strcmp(group_key(it), key))
			continue;
		finding_evidence(x, a, "%s: loads %s (%s, %s), should be %s (%s)", it->name,
				 it->realpath ? it->realpath : it->path,
				 it->version ? it->version : "version unknown",
				 it->rule ? it->rule : "?", it->intended,
				 it->mixed ? (it->caller_version ? it->caller_version : "?")
					   : (it->intended_version ? it->intended_version : "?"));
	}
	if (n > CD_FINDING_LINES_MAX - 2)
		finding_evidence(x, a, "... %zu in all", n);
	shadow_fixes(f, L, x, a, first);
}

static void shadow_findings(const struct cd_facts *f, const struct cd_libs_facts *L,
			    struct cd_findings *out)
{
	const char *seen[GROUPS_MAX];
	size_t n = 0, i, k;

	for (i = 0; i < L->n_items && n < GROUPS_MAX; i++) {
		const char *key;
		int dup = 0;
		if (!L->items[i].intended)
			continue;
		key = group_key(&L->items[i]);
		for (k = 0; k < n; k++)
			dup |= !strcmp(seen[k], key);
		if (dup)
			continue;
		seen[n++] = key;
		shadow_group(f, L, key, out);
	}
}

/* ---- duplicates --------------------------------------------------------------- */

static void duplicate_one(const struct cd_facts *f, const struct cd_lib_item *it, const char *what,
			  struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x = NULL;
	size_t i;

	if (!it || !it->version)
		return;
	for (i = 0; i < it->n_copies; i++) {
		const struct cd_lib_copy *c = &it->copies[i];
		if (!libs_versions_differ(it->version, c->version))
			continue;
		if (!x) {
			x = findings_add(out, "lib-duplicate", CD_SEV_INFO, "python",
					 "%s %s is on disk next to the %s %s torch loads", what,
					 c->version, what, it->version);
			if (!x)
				return;
			finding_detail(
				x, a,
				"torch loads %s; tools that search the system directories "
				"(python -m torch.utils.collect_env, ldconfig -p) report the "
				"other copy.",
				it->realpath ? it->realpath : it->path);
			finding_evidence(x, a, "loaded: %s %s (%s%s%s)",
					 it->realpath ? it->realpath : it->path, it->version,
					 it->rule ? it->rule : "?", it->owner ? ", " : "",
					 it->owner ? it->owner : "");
		}
		if (x->n_evidence < CD_FINDING_LINES_MAX)
			finding_evidence(x, a, "also on disk: %s %s%s%s", c->path, c->version,
					 c->owner ? ", " : "", c->owner ? c->owner : "");
	}
	if (x)
		finding_fix(x, a,
			    "%s -c 'import torch; print(torch.backends.cudnn.version(), "
			    "torch.cuda.nccl.version())'   # what torch reports at run time",
			    stack_python(f));
}

static void duplicate_findings(const struct cd_facts *f, const struct cd_libs_facts *L,
			       struct cd_findings *out)
{
	size_t i;

	duplicate_one(f, L->cudnn, "cuDNN", out);
	duplicate_one(f, L->nccl, "NCCL", out);
	for (i = 0; i < L->n_items; i++)
		if (L->items[i].soname && str_has_prefix(L->items[i].soname, "libcublas.so."))
			duplicate_one(f, &L->items[i], "cuBLAS", out);
}

void check_libs(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_libs_facts *L = libs_facts(f);

	if (!L || !L->torch || L->problem)
		return;
	missing_findings(f, L, out);
	shadow_findings(f, L, out);
	duplicate_findings(f, L, out);
}
