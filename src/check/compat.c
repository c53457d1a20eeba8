/* compat: driver-too-old for the CUDA toolkit that extensions are built
 * with, and for the CUDA torch was built with and the libcudart it loads.
 * Code nvcc X.Y produces links a CUDA X.Y runtime; it runs when the driver
 * supports CUDA X.Y (the CUDA version the driver reports), or, within one
 * major, through minor-version compatibility on a driver at or above the
 * major's floor (kb/compat.h), except that PTX newer than the driver cannot be
 * JIT-compiled. Needs the driver probe's CUDA version; no finding without it. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "check/install.h"
#include "check/stack_check.h"
#include "core/str.h"
#include "kb/compat.h"
#include "probe/stack/libs.h"

/* A toolkit on disk the driver fully supports (newest first), or NULL. */
static const struct cd_toolkit *fitting(const struct cd_facts *f, int driver_cuda)
{
	const struct cd_toolkit *best = NULL;
	int bv = 0;
	size_t i;

	for (i = 0; i < f->toolkit.n; i++) {
		const struct cd_toolkit *t = &f->toolkit.items[i];
		int v = t->version ? ver_cuda_int(t->version) : -1;
		if (t->exists != CD_TRI_YES || !t->nvcc_path || v <= 0 || v > driver_cuda ||
		    v <= bv)
			continue;
		best = t;
		bv = v;
	}
	return best;
}

/* The torch wheel this driver runs (check/install.h): another variant of
 * the installed release, else the newest release whose CUDA it runs. */
static void torch_fix(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x)
{
	struct install_choice c;
	const struct install_variant *v;

	if (install_choose(f, NULL, out->arena, &c))
		return;
	if (c.status == INSTALL_CHOSEN) {
		v = &c.pick.variants[c.pick.chosen];
		/* the same build again, or one that also needs minor-version
		 * compatibility where the installed one already runs: no change */
		if (c.pick.chosen == c.pick.installed ||
		    (x->severity != CD_SEV_ERROR && v->verdict != INSTALL_DIRECT))
			return;
		finding_fix(x, out->arena, "%s   # CUDA %s, which this driver %s", c.line,
			    v->v.cuda,
			    v->verdict == INSTALL_MINOR ? "runs through minor-version compatibility"
							: "supports");
	} else if (c.alt_line) {
		v = &c.alt.variants[c.alt.chosen];
		finding_fix(x, out->arena,
			    "%s   # torch %s (CUDA %s): the newest release this driver runs",
			    c.alt_line, c.alt.patch.torch, v->v.cuda);
	}
}

/* The fixes: a newer driver, another runtime that fits this driver (a
 * toolkit on disk, or for torch the wheel variant of its release built for
 * the driver's CUDA), or the forward-compatibility package. */
static void fixes(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x,
		  const struct compat_result *r, int rt, int dc, int for_torch)
{
	const struct cd_toolkit *o = for_torch ? NULL : fitting(f, dc);
	int in_container = f->container.kind && strcmp(f->container.kind, "none");
	char branch[16] = "";

	if (r->toolkit_min[0])
		snprintf(branch, sizeof(branch), "%.*s", (int)strcspn(r->toolkit_min, "."),
			 r->toolkit_min);
	if (branch[0] && f->host.os_id && !strcmp(f->host.os_id, "ubuntu") && !in_container)
		finding_fix(x, out->arena, "sudo apt-get install nvidia-driver-%s   # driver >= %s",
			    branch, r->toolkit_min);
	else if (r->toolkit_min[0])
		finding_fix(x, out->arena, "# install NVIDIA driver %s or newer%s", r->toolkit_min,
			    in_container ? " on the host (containers use the host's driver)" : "");
	if (o)
		finding_fix(x, out->arena,
			    "export CUDA_HOME=%s   # CUDA %s, which this driver supports", o->root,
			    o->version);
	if (for_torch)
		torch_fix(f, out, x);
	finding_fix(x, out->arena,
		    "sudo apt-get install cuda-compat-%d-%d && export "
		    "LD_LIBRARY_PATH=/usr/local/cuda-%d.%d/compat:$LD_LIBRARY_PATH   # data-center "
		    "GPUs only: forward compatibility",
		    rt / 1000, (rt % 1000) / 10, rt / 1000, (rt % 1000) / 10);
}

static void floors(struct cd_finding *x, struct cd_arena *a, const struct compat_result *r, int rt,
		   const char *rts)
{
	if (r->toolkit_min[0])
		finding_evidence(x, a, "CUDA %s needs driver >= %s (%s)", rts, r->toolkit_min,
				 r->toolkit_source);
	if (r->minor_min[0])
		finding_evidence(x, a,
				 "minor-version compatibility for CUDA %d.x needs driver >= %s%s",
				 rt / 1000, r->minor_min,
				 r->driver_version_checked ? "" : " (driver version not known)");
}

/* The CUDA runtime torch will run: the newer of torch.version.cuda and the
 * libcudart the library probe resolved (a wheel pinned past torch's build). */
static int torch_runtime(const struct cd_facts *f, const char **cudart)
{
	const struct cd_libs_facts *L = libs_facts(f);
	int rt = f->stack->torch.cuda ? ver_cuda_int(f->stack->torch.cuda) : -1, lr;

	*cudart = NULL;
	if (L && L->cudart && L->cudart->version) {
		lr = ver_cuda_int(L->cudart->version);
		*cudart = L->cudart->realpath ? L->cudart->realpath : L->cudart->path;
		if (lr > rt)
			rt = lr;
	}
	return rt;
}

/* The verdict on code that needs CUDA rt on this driver, with both versions
 * as text (COMPAT_TEXT bytes each); 0 when there is nothing to say (it runs,
 * or one of them is unknown). */
#define COMPAT_TEXT 16
static int judge(const struct cd_facts *f, int rt, struct compat_result *r, char *dcs, char *rts)
{
	int dc = (int)f->driver.cuda_version_int;

	if (rt <= 0 || compat_check(rt, dc, f->driver.version, r) == COMPAT_OK ||
	    r->verdict == COMPAT_UNKNOWN)
		return 0;
	ver_cuda_str(dc, dcs, COMPAT_TEXT);
	ver_cuda_str(rt, rts, COMPAT_TEXT);
	return 1;
}

/* driver-too-old for the CUDA torch was built with and the runtime it loads. */
static void torch_compat(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_torch_facts *t = f->stack ? &f->stack->torch : NULL;
	const struct cd_libs_facts *L = libs_facts(f);
	struct compat_result r;
	struct cd_finding *x;
	const char *cudart;
	char dcs[COMPAT_TEXT], rts[COMPAT_TEXT];
	int dc = (int)f->driver.cuda_version_int, rt;

	if (!t || !t->installed || !t->cuda)
		return;
	rt = torch_runtime(f, &cudart);
	if (!judge(f, rt, &r, dcs, rts))
		return;
	if (r.verdict == COMPAT_TOO_OLD) {
		x = findings_add(out, "driver-too-old", CD_SEV_ERROR, "python",
				 "The driver supports CUDA %s; torch %s needs CUDA %s", dcs,
				 t->version ? t->version : "", rts);
		finding_detail(
			x, out->arena,
			"torch.cuda.is_available() is False and the first CUDA call fails "
			"with \"The NVIDIA driver on your system is too old\" (CUDA driver "
			"version is insufficient for CUDA runtime version).%s",
			rt / 1000 != dc / 1000
				? " Minor-version compatibility does not cross a major version."
				: " The driver is also below the minor-version compatibility "
				  "floor of its major.");
	} else {
		x = findings_add(out, "driver-too-old", CD_SEV_WARNING, "python",
				 "torch's CUDA %s runtime runs on this CUDA %s driver only through "
				 "minor-version compatibility",
				 rts, dcs);
		finding_detail(
			x, out->arena,
			"Kernels that exist only as PTX (and torch's run-time compiled "
			"kernels) cannot be JIT-compiled by this driver, and APIs newer than "
			"the driver fail with cudaErrorCallRequiresNewerDriver.");
	}
	if (!x)
		return;
	finding_evidence(x, out->arena, "driver %s reports CUDA %s",
			 f->driver.version ? f->driver.version : "(version unknown)", dcs);
	finding_evidence(x, out->arena, "torch %s: built with CUDA %s",
			 t->version ? t->version : "?", t->cuda);
	if (cudart)
		finding_evidence(x, out->arena, "libcudart torch loads: %s (%s)", cudart,
				 L->cudart->version);
	floors(x, out->arena, &r, rt, rts);
	fixes(f, out, x, &r, rt, dc, 1);
}

static void toolkit_compat(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_toolkit_facts *tf = &f->toolkit;
	const struct cd_toolkit *sel;
	struct compat_result r;
	struct cd_finding *x;
	char dcs[COMPAT_TEXT], rts[COMPAT_TEXT];
	int dc, rt, nv;

	if (tf->selected == CD_UNK)
		return;
	sel = &tf->items[tf->selected];
	dc = (int)f->driver.cuda_version_int;
	rt = sel->version ? ver_cuda_int(sel->version) : -1;
	nv = sel->nvcc_version ? ver_cuda_int(sel->nvcc_version) : -1;
	if (nv > rt)
		rt = nv; /* what nvcc emits is what must run */
	if (!judge(f, rt, &r, dcs, rts))
		return;
	if (r.verdict == COMPAT_TOO_OLD) {
		x = findings_add(
			out, "driver-too-old", CD_SEV_ERROR, "toolkit",
			"The driver supports CUDA %s; the toolkit extensions build with is "
			"CUDA %s",
			dcs, rts);
		finding_detail(
			x, out->arena,
			"Code compiled by this toolkit needs a CUDA %s runtime, which fails "
			"on this driver with \"CUDA driver version is insufficient for CUDA "
			"runtime version\".%s",
			rts,
			rt / 1000 != dc / 1000
				? " Minor-version compatibility does not cross a major version."
				: " The driver is also below the minor-version compatibility "
				  "floor of its major.");
	} else {
		x = findings_add(
			out, "driver-too-old", CD_SEV_WARNING, "toolkit",
			"CUDA %s code runs on this CUDA %s driver only through minor-version "
			"compatibility",
			rts, dcs);
		finding_detail(
			x, out->arena,
			"Limits: PTX that nvcc %s emits (+PTX in TORCH_CUDA_ARCH_LIST, or a "
			"GPU with no matching SASS) cannot be JIT-compiled by this driver "
			"(\"the provided PTX was compiled with an unsupported toolchain\"), and "
			"APIs newer than the driver fail with "
			"cudaErrorCallRequiresNewerDriver. Build SASS for every GPU (X.Y "
			"entries without +PTX) or upgrade the driver.",
			rts);
	}
	finding_evidence(x, out->arena, "driver %s reports CUDA %s",
			 f->driver.version ? f->driver.version : "(version unknown)", dcs);
	finding_evidence(x, out->arena, "toolkit %s: CUDA %s, nvcc %s", sel->root,
			 sel->version ? sel->version : "unknown",
			 sel->nvcc_version ? sel->nvcc_version : "absent");
	floors(x, out->arena, &r, rt, rts);
	fixes(f, out, x, &r, rt, dc, 0);
}

void check_compat(const struct cd_facts *f, struct cd_findings *out)
{
	if (f->driver.cuda_version_int == CD_UNK || f->driver.cuda_version_int <= 0)
		return;
	toolkit_compat(f, out);
	torch_compat(f, out);
}
