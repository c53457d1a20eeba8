/* gpus: findings about the GPUs NVML sees: gpu-none-visible,
 * gpu-inaccessible, gpu-ecc-errors, gpu-retired-pages-pending and
 * cuda-visible-devices-invalid (docs/driver.md). Reads f->gpus, f->driver
 * and the recorded environment only. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "core/str.h"
#include "format/cvd.h"

#define SEC "gpus"

static int in_container(const struct cd_facts *f)
{
	return f->container.kind && strcmp(f->container.kind, "none") != 0;
}

static const char *or_q(const char *s)
{
	return s ? s : "?";
}

static void gpu_evidence(struct cd_finding *x, struct cd_arena *a, const struct cd_gpu *g,
			 const char *what)
{
	finding_evidence(x, a, "GPU %lld %s (%s, %s): %s", (long long)g->index, or_q(g->name),
			 or_q(g->uuid), or_q(g->pci_bus_id), what);
}

static void check_none_visible(const struct cd_facts *f, struct cd_findings *out)
{
	const char *nvd = f->container.nvidia_visible_devices;
	struct cd_finding *x;

	if (f->driver.nvml.status != CD_PROBE_OK || !f->gpus_known || f->n_gpus)
		return;
	x = findings_add(out, "gpu-none-visible", CD_SEV_ERROR, SEC,
			 "The NVIDIA driver %s is loaded but sees no GPU", or_q(f->driver.version));
	finding_detail(x, out->arena,
		       in_container(f)
			       ? "This container was given no GPU (or NVIDIA_VISIBLE_DEVICES "
				 "hides them); CUDA programs will find no device."
			       : "NVML reports 0 devices: the GPU is absent, disabled, held by "
				 "another driver (vfio-pci, nouveau), or failed at boot.");
	finding_evidence(x, out->arena, "nvmlDeviceGetCount: 0");
	if (nvd)
		finding_evidence(x, out->arena, "NVIDIA_VISIBLE_DEVICES=%s", nvd);
	if (f->host.dev_nodes_known)
		finding_evidence(x, out->arena, "NVIDIA device nodes in /dev: %zu",
				 f->host.n_dev_nodes);
	if (in_container(f)) {
		finding_fix(x, out->arena,
			    "docker run --gpus all ...   # or -e NVIDIA_VISIBLE_DEVICES=all with "
			    "--runtime=nvidia");
		return;
	}
	finding_fix(x, out->arena,
		    "lspci -nnk | grep -iA3 nvidia   # present? 'Kernel driver in "
		    "use: nvidia'?");
	finding_fix(x, out->arena, "sudo dmesg -T | grep -iE 'NVRM|Xid|fallen off' | tail -20");
	finding_fix(x, out->arena, "nvidia-smi -L");
}

static void check_inaccessible(const struct cd_facts *f, struct cd_findings *out)
{
	struct cd_finding *x = NULL;
	size_t i;

	for (i = 0; i < f->n_gpus; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		if (!g->error)
			continue;
		if (!x) {
			x = findings_add(out, "gpu-inaccessible", CD_SEV_ERROR, SEC,
					 "GPU %lld cannot be queried", (long long)g->index);
			finding_detail(
				x, out->arena,
				"NVML lists the GPU but cannot open it: it has fallen off the "
				"bus, needs a reset, or is not accessible from here.");
		}
		finding_evidence(x, out->arena, "GPU %lld: %s", (long long)g->index, g->error);
		finding_fix(x, out->arena, "nvidia-smi -q -i %lld | head -40", (long long)g->index);
	}
	if (x) {
		finding_fix(x, out->arena, "sudo dmesg -T | grep -iE 'Xid|fallen off' | tail -20");
		finding_fix(x, out->arena, "sudo reboot   # a lost GPU usually needs one");
	}
}

static void check_ecc(const struct cd_facts *f, struct cd_findings *out)
{
	struct cd_finding *x = NULL;
	char what[160];
	size_t i;

	for (i = 0; i < f->n_gpus; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		int vol = g->ecc_volatile_uncorrected != CD_UNK && g->ecc_volatile_uncorrected > 0;
		int agg =
			g->ecc_aggregate_uncorrected != CD_UNK && g->ecc_aggregate_uncorrected > 0;
		int fail = g->row_remap_failure == CD_TRI_YES;
		if (!vol && !agg && !fail)
			continue;
		if (!x)
			x = findings_add(out, "gpu-ecc-errors", CD_SEV_WARNING, SEC,
					 "Uncorrectable ECC memory errors on GPU %lld",
					 (long long)g->index);
		if (!x)
			return;
		if (vol || fail)
			x->severity = CD_SEV_ERROR;
		snprintf(what, sizeof(what),
			 "%lld uncorrectable since the last reset, %lld in its "
			 "lifetime%s",
			 (long long)(vol ? g->ecc_volatile_uncorrected : 0),
			 (long long)(agg ? g->ecc_aggregate_uncorrected : 0),
			 fail ? "; row remapping FAILED" : "");
		gpu_evidence(x, out->arena, g, what);
		finding_fix(x, out->arena,
			    "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i %lld",
			    (long long)g->index);
	}
	if (!x)
		return;
	finding_detail(x, out->arena,
		       "The GPU's memory returned data ECC could not correct; jobs on it die with "
		       "Xid 48/63/94/95 or \"uncorrectable ECC error encountered\". Counts since "
		       "the last reset mean the GPU is bad now; lifetime counts are history.");
	finding_fix(x, out->arena,
		    "# drain the GPU, then reset it (sudo nvidia-smi -r -i <index>) or reboot");
	finding_fix(x, out->arena,
		    "# errors that return after a reset, or a failed row remap: the GPU needs "
		    "service (sudo nvidia-bug-report.sh for the vendor)");
}

static void check_pending(const struct cd_facts *f, struct cd_findings *out)
{
	struct cd_finding *x = NULL;
	size_t i;

	for (i = 0; i < f->n_gpus; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		int pages = g->retired_pages_pending == CD_TRI_YES;
		int rows = g->row_remap_pending == CD_TRI_YES;
		if (!pages && !rows)
			continue;
		if (!x)
			x = findings_add(out, "gpu-retired-pages-pending", CD_SEV_ERROR, SEC,
					 "GPU %lld needs a reset: bad memory is waiting to be %s",
					 (long long)g->index, pages ? "retired" : "remapped");
		gpu_evidence(x, out->arena, g,
			     pages && rows ? "retired pages and row remaps pending"
			     : pages	   ? "retired pages pending"
					   : "row remap pending");
		finding_fix(
			x, out->arena,
			"sudo nvidia-smi -r -i %lld   # reset when nothing runs on it (or reboot)",
			(long long)g->index);
	}
	if (!x)
		return;
	finding_detail(x, out->arena,
		       "The driver has marked failing memory to be retired (before Ampere) or "
		       "remapped (A100 and later), but that takes effect only at the next GPU "
		       "reset or reboot; until then the bad memory is still in use.");
	finding_fix(x, out->arena,
		    "nvidia-smi -q -d PAGE_RETIREMENT,ROW_REMAPPER   # 'Pending' should read No "
		    "after the reset");
}

/* CUDA_VISIBLE_DEVICES as recorded by the env probe, else as the driver
 * probe saw it. */
static const char *cvd_value(const struct cd_facts *f)
{
	const char *v = facts_env_var(f, "CUDA_VISIBLE_DEVICES");

	if (!v && f->driver.cuda_visible_devices_set)
		v = f->driver.cuda_visible_devices;
	return v;
}

/* The entries of v that each name a GPU (once, in order): a value to offer. */
static const char *cvd_suggest(struct cd_arena *a, const char *v, const char *const *uuids,
			       size_t n_gpus)
{
	char *res = arena_strdup(a, v), *o = res;
	int used[CVD_ENTRIES_MAX] = {0};
	size_t nused = 0, i;

	while (res && *v) {
		size_t len = strcspn(v, ",");
		struct cvd_list l;
		struct cvd_result r;
		cvd_parse((const uint8_t *)v, len, &l);
		cvd_resolve(&l, (const uint8_t *)v, len, uuids, n_gpus, &r);
		if (l.n == 1 && !l.stop && r.visible == 1 && nused < CVD_ENTRIES_MAX &&
		    (r.problem == CVD_OK || r.problem == CVD_P_MIG_UNVERIFIED)) {
			int dup = 0;
			for (i = 0; i < nused && r.gpu[0] >= 0; i++)
				dup |= used[i] == r.gpu[0];
			if (!dup) {
				used[nused++] = r.gpu[0];
				if (o != res)
					*o++ = ',';
				memcpy(o, v + l.e[0].off, l.e[0].len);
				o += l.e[0].len;
			}
		}
		v += len + (v[len] == ',');
	}
	if (o)
		*o = '\0';
	return res;
}

static const char *cvd_reason(const struct cvd_list *l, const struct cvd_result *r, size_t n_gpus,
			      char *buf, size_t cap)
{
	switch (r->problem) {
	case CVD_P_OUT_OF_RANGE:
		snprintf(buf, cap, "is out of range: there %s %zu GPU%s",
			 n_gpus == 1 ? "is" : "are", n_gpus, n_gpus == 1 ? "" : "s");
		return buf;
	case CVD_P_NO_MATCH: return "is the start of no GPU's UUID";
	case CVD_P_AMBIGUOUS: return "is the start of several GPUs' UUIDs";
	case CVD_P_DUPLICATE: return "names the same GPU as an earlier entry, which hides them all";
	default: break;
	}
	switch (l->stop) {
	case CVD_STOP_EMPTY: return "is empty, which hides every GPU";
	case CVD_STOP_NEGATIVE: return "is negative";
	case CVD_STOP_MIXED:
		return "is of another kind than the first entry (indices and GPU-/MIG- ids do not "
		       "mix)";
	case CVD_STOP_DUPLICATE: return "repeats an earlier entry, which hides every GPU";
	default: return "names no GPU";
	}
}

static void cvd_finding(const struct cd_facts *f, struct cd_findings *out, const char *v,
			const struct cvd_list *l, const struct cvd_result *r,
			const char *const *uuids)
{
	int known = f->gpus_known, none = r->visible == 0;
	size_t at_off = r->problem == CVD_P_STOPPED ? l->stop_off : l->e[r->at].off;
	size_t at_len = r->problem == CVD_P_STOPPED ? l->stop_len : l->e[r->at].len;
	const char *fix;
	struct cd_finding *x;
	char why[96];
	size_t i;

	x = findings_add(out, "cuda-visible-devices-invalid",
			 known && none ? CD_SEV_ERROR : CD_SEV_WARNING, SEC,
			 none ? "CUDA_VISIBLE_DEVICES=\"%s\" hides every GPU"
			      : "CUDA_VISIBLE_DEVICES=\"%s\" is cut short: CUDA sees %zu device%s",
			 v, r->visible, r->visible == 1 ? "" : "s");
	finding_detail(
		x, out->arena,
		"The CUDA runtime reads CUDA_VISIBLE_DEVICES up to the first entry that names "
		"no GPU and ignores the rest. Entry \"%.*s\" %s.%s",
		(int)at_len, v + at_off, cvd_reason(l, r, f->n_gpus, why, sizeof(why)),
		none && (l->stop == CVD_STOP_EMPTY || l->stop == CVD_STOP_NEGATIVE)
			? " If this job is meant to run on the CPU, that is intended."
			: "");
	finding_evidence(x, out->arena, "CUDA_VISIBLE_DEVICES=%s", v);
	for (i = 0; known && i < f->n_gpus && i < 8; i++)
		finding_evidence(x, out->arena, "NVML GPU %zu: %s %s", i, or_q(f->gpus[i].name),
				 or_q(uuids[i]));
	if (!known) {
		finding_fix(x, out->arena, "unset CUDA_VISIBLE_DEVICES");
		return;
	}
	fix = cvd_suggest(out->arena, v, uuids, f->n_gpus);
	if (fix && *fix && strcmp(fix, v))
		finding_fix(x, out->arena, "export CUDA_VISIBLE_DEVICES=%s", fix);
	finding_fix(x, out->arena, "unset CUDA_VISIBLE_DEVICES   # every GPU (%zu)", f->n_gpus);
	finding_fix(x, out->arena, "nvidia-smi -L   # GPU indices and UUIDs");
}

static void check_cvd(const struct cd_facts *f, struct cd_findings *out)
{
	const char *v = cvd_value(f), *uuids[CVD_ENTRIES_MAX] = {0};
	struct cvd_list l;
	struct cvd_result r;
	size_t i, n = f->gpus_known ? f->n_gpus : 0;
	struct cd_finding *x;

	if (!v || (f->gpus_known && f->n_gpus == 0))
		return; /* no GPU at all is gpu-none-visible's */
	if (n > CVD_ENTRIES_MAX)
		n = CVD_ENTRIES_MAX;
	for (i = 0; i < n; i++)
		uuids[i] = f->gpus[i].uuid;
	cvd_parse((const uint8_t *)v, strlen(v), &l);
	if (f->gpus_known) {
		cvd_resolve(&l, (const uint8_t *)v, strlen(v), uuids, n, &r);
	} else {
		memset(&r, 0, sizeof(r));
		r.problem = l.stop != CVD_STOP_NONE ? CVD_P_STOPPED : CVD_OK;
		r.visible = l.n;
	}
	if (r.problem == CVD_P_STOPPED && l.stop == CVD_STOP_TOO_MANY)
		r.problem = CVD_OK;
	if (r.problem != CVD_OK && r.problem != CVD_P_MIG_UNVERIFIED) {
		cvd_finding(f, out, v, &l, &r, uuids);
		return;
	}
	for (i = 0; i < l.n; i++) {
		if (!l.e[i].lenient)
			continue;
		x = findings_add(out, "cuda-visible-devices-invalid", CD_SEV_WARNING, SEC,
				 "CUDA_VISIBLE_DEVICES entry \"%.*s\" is read as %u",
				 (int)l.e[i].len, v + l.e[i].off, l.e[i].index);
		finding_detail(
			x, out->arena,
			"The CUDA runtime reads an index like strtoul: the leading digits, "
			"ignoring what follows. The value works, but probably not as meant.");
		finding_evidence(x, out->arena, "CUDA_VISIBLE_DEVICES=%s", v);
		finding_fix(x, out->arena, "nvidia-smi -L   # GPU indices and UUIDs");
		return;
	}
}

void check_gpus(const struct cd_facts *f, struct cd_findings *out)
{
	check_none_visible(f, out);
	check_inaccessible(f, out);
	check_ecc(f, out);
	check_pending(f, out);
	check_cvd(f, out);
}
