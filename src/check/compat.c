/* compat: driver-too-old for the CUDA toolkit that extensions are built
 * with. Code nvcc X.Y produces links a CUDA X.Y runtime; it runs when the
 * driver supports CUDA X.Y (the CUDA version the driver reports), or, within
 * one major, through minor-version compatibility on a driver at or above the
 * major's floor (kb/compat.h), except that PTX newer than the driver cannot be
 * JIT-compiled. Needs the driver probe's CUDA version; no finding without it. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "core/str.h"
#include "kb/compat.h"

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

static void fixes(const struct cd_facts *f, struct cd_findings *out, struct cd_finding *x,
		  const struct compat_result *r, int rt, int dc)
{
	const struct cd_toolkit *o = fitting(f, dc);
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
	finding_fix(x, out->arena,
		    "sudo apt-get install cuda-compat-%d-%d && export "
		    "LD_LIBRARY_PATH=/usr/local/cuda-%d.%d/compat:$LD_LIBRARY_PATH   # data-center "
		    "GPUs only: forward compatibility",
		    rt / 1000, (rt % 1000) / 10, rt / 1000, (rt % 1000) / 10);
}

void check_compat(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_toolkit_facts *tf = &f->toolkit;
	const struct cd_toolkit *sel;
	struct compat_result r;
	struct cd_finding *x;
	char dcs[16], rts[16];
	int dc, rt, nv;

	if (f->driver.cuda_version_int == CD_UNK || f->driver.cuda_version_int <= 0 ||
	    tf->selected == CD_UNK)
		return;
	sel = &tf->items[tf->selected];
	dc = (int)f->driver.cuda_version_int;
	rt = sel->version ? ver_cuda_int(sel->version) : -1;
	nv = sel->nvcc_version ? ver_cuda_int(sel->nvcc_version) : -1;
	if (nv > rt)
		rt = nv; /* what nvcc emits is what must run */
	if (rt <= 0 || compat_check(rt, dc, f->driver.version, &r) == COMPAT_OK ||
	    r.verdict == COMPAT_UNKNOWN)
		return;
	ver_cuda_str(dc, dcs, sizeof(dcs));
	ver_cuda_str(rt, rts, sizeof(rts));
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
	if (r.toolkit_min[0])
		finding_evidence(x, out->arena, "CUDA %s needs driver >= %s (%s)", rts,
				 r.toolkit_min, r.toolkit_source);
	if (r.minor_min[0])
		finding_evidence(x, out->arena,
				 "minor-version compatibility for CUDA %d.x needs driver >= %s%s",
				 rt / 1000, r.minor_min,
				 r.driver_version_checked ? "" : " (driver version not known)");
	fixes(f, out, x, &r, rt, dc);
}
