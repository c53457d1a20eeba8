/* jit_more: findings about the torch extensions cache, the op builders' own
 * gates (deepspeed-op-incompatible) and DeepSpeed ops prebuilt for another
 * torch or CUDA (extension-abi-mismatch, raised through check/arch.c's
 * builder, which owns the id). */
#include <stdio.h>
#include <string.h>

#include "check/arch.h"
#include "check/jit/jit_int.h"
#include "core/str.h"

#define SEC "jit"

const char *jit_sq(struct cd_arena *a, const char *p)
{
	const char *c;

	for (c = p; *c; c++)
		if (!(*c == '/' || *c == '.' || *c == '_' || *c == '-' || *c == '+' ||
		      (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= 'A' && *c <= 'Z')))
			break;
	if (!*c)
		return p;
	if (strchr(p, '\''))
		return arena_printf(a, "\"%s\"",
				    p); /* rare; paths with both quotes are not fixed */
	return arena_printf(a, "'%s'", p);
}

static void age_text(int64_t s, char *out, size_t cap)
{
	if (s == CD_UNK)
		snprintf(out, cap, "age unknown");
	else if (s < 3600)
		snprintf(out, cap, "%lld min old", (long long)(s / 60));
	else if (s < 2 * 86400)
		snprintf(out, cap, "%lld h old", (long long)(s / 3600));
	else
		snprintf(out, cap, "%lld days old", (long long)(s / 86400));
}

static void locks(const struct cd_jit_facts *jf, struct cd_findings *out)
{
	const struct jit_cache *c = &jf->cache;
	struct cd_finding *x = NULL;
	size_t i;
	int fresh = 1;

	for (i = 0; i < c->n; i++) {
		const struct jit_cache_item *it = &c->items[i];
		if (jit_lock_stale(it))
			fresh = 0;
	}
	for (i = 0; i < c->n; i++) {
		const struct jit_cache_item *it = &c->items[i];
		char age[32];
		if (it->kind != JIT_C_LOCK && it->kind != JIT_C_LOCK_DIR)
			continue;
		if (!x) {
			x = findings_add(out, "jit-cache-lock",
					 fresh ? CD_SEV_WARNING : CD_SEV_ERROR, SEC,
					 "A torch extension build lock was left behind");
			finding_detail(
				x, out->arena,
				"torch's FileBaton waits while `lock` exists, so the next load "
				"of that extension hangs ('Waiting for lock' / no output)%s.",
				fresh ? "; it is recent, a build may be running now" : "");
		}
		age_text(it->age_s, age, sizeof(age));
		if (it->kind == JIT_C_LOCK_DIR) {
			finding_evidence(x, out->arena,
					 "%s is a directory: the lock can never be taken",
					 it->path);
			finding_fix(x, out->arena, "rm -rf %s", jit_sq(out->arena, it->path));
		} else {
			finding_evidence(x, out->arena, "%s (%s)", it->path, age);
			finding_fix(x, out->arena, "rm -f %s", jit_sq(out->arena, it->path));
		}
	}
}

static struct cd_finding *add_stale(struct cd_findings *out, int info)
{
	struct cd_finding *x;

	if (info) {
		x = findings_add(
			out, "jit-cache-stale", CD_SEV_INFO, SEC,
			"Extension builds for another Python or CUDA take space in the cache");
		finding_detail(x, out->arena,
			       "torch keeps one py<XY>_cu<XYZ> folder per Python and CUDA; this "
			       "environment does not use these.");
		return x;
	}
	x = findings_add(out, "jit-cache-stale", CD_SEV_WARNING, SEC,
			 "Stale or half-finished torch extension builds in the cache");
	finding_detail(x, out->arena,
		       "A half-finished build (build.ninja without the .so), a .so older than the "
		       "installed torch (ninja finds nothing to rebuild and torch loads it: "
		       "'undefined symbol'), or a build made with another nvcc or Python. "
		       "Removing the folder makes the next load build it afresh.");
	return x;
}

static void stale(const struct cd_jit_facts *jf, struct cd_findings *out, int info)
{
	const struct jit_cache *c = &jf->cache;
	struct cd_finding *x = NULL;
	size_t i;

	for (i = 0; i < c->n; i++) {
		const struct jit_cache_item *it = &c->items[i];
		if (it->kind == JIT_C_LOCK || it->kind == JIT_C_LOCK_DIR ||
		    (it->kind == JIT_C_OTHER_BUILD) != info)
			continue;
		if (!x) {
			x = add_stale(out, info);
		}
		finding_evidence(x, out->arena, "%s: %s", it->path, it->detail ? it->detail : "");
		finding_fix(x, out->arena, "rm -rf %s", jit_sq(out->arena, it->path));
	}
	if (x && c->truncated)
		finding_evidence(x, out->arena, "(more entries not listed)");
}

void jit_check_cache(const struct cd_jit_facts *jf, struct cd_findings *out)
{
	locks(jf, out);
	stale(jf, out, 0);
	stale(jf, out, 1);
}

static const char *upper(struct cd_arena *a, const char *s)
{
	char *u = arena_strdup(a, s), *p;

	for (p = u; p && *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return u;
}

static void incompatible(const struct cd_jit_facts *jf, const struct jit_op_row *r,
			 struct cd_findings *out)
{
	struct cd_finding *x = findings_add(
		out, "deepspeed-op-incompatible", r->selected ? CD_SEV_ERROR : CD_SEV_INFO, SEC,
		"DeepSpeed op %s cannot be built here: %s", r->name, r->reason);

	finding_detail(x, out->arena, "From the op builder's is_compatible() (%s).", r->builder);
	if (!strcmp(r->requires, "CUTLASS_PATH") && jf->cutlass_ok != CD_TRI_YES) {
		finding_fix(x, out->arena,
			    "git clone --depth 1 --branch v3.5.1 https://github.com/NVIDIA/cutlass "
			    "$HOME/cutlass && export CUTLASS_PATH=$HOME/cutlass");
		finding_fix(x, out->arena,
			    "pip install nvidia-cutlass && export "
			    "CUTLASS_PATH=DS_USE_CUTLASS_PYTHON_BINDINGS");
	} else if (strstr(r->reason, "no GPU visible")) {
		finding_fix(x, out->arena,
			    "TORCH_CUDA_ARCH_LIST=\"9.0\" DS_BUILD_%s=1 pip install deepspeed "
			    "--no-build-isolation --force-reinstall   # prebuild it without a GPU",
			    upper(out->arena, r->name));
	}
}

static void abi(const struct cd_jit_facts *jf, const struct jit_ops *ops, struct cd_findings *out)
{
	const struct arch_abi ds = {"DeepSpeed's prebuilt ops", 0, jf->py.torch_version};
	struct cd_finding *x = NULL;
	size_t i;

	for (i = 0; i < ops->n; i++) {
		const struct jit_op_row *r = &ops->rows[i];
		if ((ops->any_selected && !r->selected) || !r->reason_id ||
		    strcmp(r->reason_id, "extension-abi-mismatch"))
			continue;
		if (!x) {
			x = arch_abi_finding(out, SEC, &ds);
			if (!x)
				return;
			finding_detail(
				x, out->arena,
				"DeepSpeed checks torch_info of git_version_info_installed.py and "
				"stops: 'CUDA version mismatch! DeepSpeed ops were compiled and "
				"installed with a different version than what is being used at "
				"runtime' (torch %s, CUDA %s now).",
				jf->py.torch_version ? jf->py.torch_version : "?",
				jf->py.torch_cuda ? jf->py.torch_cuda : "?");
			finding_fix(x, out->arena,
				    "pip install --force-reinstall --no-cache-dir deepspeed   # "
				    "ops are "
				    "then JIT-built for this torch");
		}
		finding_evidence(x, out->arena, "%s: %s", r->name, r->reason);
	}
}

void jit_check_ops(const struct cd_jit_facts *jf, const struct jit_ops *ops,
		   struct cd_findings *out)
{
	struct cd_finding *x = NULL;
	size_t i;

	for (i = 0; i < ops->n; i++) {
		const struct jit_op_row *r = &ops->rows[i];
		if ((ops->any_selected && !r->selected) || !r->reason_id ||
		    strcmp(r->reason_id, "deepspeed-op-incompatible"))
			continue;
		if (r->selected) {
			incompatible(jf, r, out);
			continue;
		}
		/* Ops nobody asked for: one note, not an error each. */
		if (!x) {
			x = findings_add(
				out, "deepspeed-op-incompatible", CD_SEV_INFO, SEC,
				"Some DeepSpeed ops cannot be built here (name one with --op "
				"to see why and the fix)");
		}
		finding_evidence(x, out->arena, "%s: %s", r->name, r->reason);
	}
	abi(jf, ops, out);
}
