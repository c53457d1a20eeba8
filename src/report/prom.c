/* prom: see prom.h. Metric names follow Prometheus' naming practice: a
 * cuda_doctor_ prefix, _bytes for sizes, _total for counters, _info for
 * series whose labels are the value. */
#include "report/prom.h"

#include <string.h>

#include "facts/libs.h"
#include "facts/stack.h"
#include "format/jscan.h"
#include "report/fleet.h"
#include "report/render.h"

/* A label value: \, " and newline escaped (the exposition format's three);
 * other control bytes, and every byte of invalid UTF-8, become '?'. */
static void label(FILE *out, const char *name, const char *v, int first)
{
	const unsigned char *p = (const unsigned char *)(v ? v : "");
	int utf8 = !jscan_utf8_ok(p, strlen((const char *)p));

	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (; *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 0x20 || *p == 0x7f || (*p >= 0x80 && !utf8))
			fputc('?', out);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static const char *lib_version(const struct cd_lib_item *l)
{
	return l ? l->version : NULL;
}

static int info(FILE *out, const struct cd_facts *f, const struct cd_findings *fs)
{
	const struct cd_libs_facts *L = libs_facts(f);
	const struct cd_torch_facts *t =
		f->stack && f->stack->torch.installed ? &f->stack->torch : NULL;
	json_t *j = json_check_report(f, fs);
	const char *fp =
		json_string_value(json_object_get(json_object_get(j, "fleet"), "fingerprint"));

	if (!fp) {
		json_decref(j);
		return CD_ENOMEM;
	}
	head(out, "cuda_doctor_info", "gauge",
	     "The GPU software stack of this node as labels (\"\" when unknown); always 1.");
	fputs("cuda_doctor_info{", out);
	label(out, "driver", f->driver.version, 1);
	label(out, "cuda_driver", f->driver.cuda_version, 0);
	label(out, "torch", t ? t->version : NULL, 0);
	label(out, "torch_cuda", t ? t->cuda : NULL, 0);
	label(out, "cudnn", L ? lib_version(L->cudnn) : NULL, 0);
	label(out, "nccl", L ? lib_version(L->nccl) : NULL, 0);
	label(out, "cuda_runtime", L ? lib_version(L->cudart) : NULL, 0);
	label(out, "nvcc", f->toolkit.nvcc_version, 0);
	label(out, "fingerprint", fp, 0);
	label(out, "version", CD_VERSION, 0);
	fputs("} 1\n", out);
	json_decref(j);
	return 0;
}

static void gpu_labels(FILE *out, const struct cd_gpu *g)
{
	char idx[24];

	snprintf(idx, sizeof(idx), "%lld", (long long)g->index);
	fputc('{', out);
	label(out, "gpu", idx, 1);
	label(out, "uuid", g->uuid, 0);
}

/* Healthy: it answered, no uncorrectable ECC error since boot, no page
 * retirement or row remapping pending, no remapping failure. */
static int gpu_healthy(const struct cd_gpu *g)
{
	return !g->error &&
	       (g->ecc_volatile_uncorrected == CD_UNK || !g->ecc_volatile_uncorrected) &&
	       g->retired_pages_pending != CD_TRI_YES && g->row_remap_pending != CD_TRI_YES &&
	       g->row_remap_failure != CD_TRI_YES;
}

/* One gauge per GPU from the value get() returns (CD_UNK: no sample). */
static void gpu_metric(FILE *out, const struct cd_facts *f, const char *name, const char *type,
		       const char *help, int64_t (*get)(const struct cd_gpu *))
{
	size_t i;

	head(out, name, type, help);
	for (i = 0; i < f->n_gpus; i++) {
		int64_t v = get(&f->gpus[i]);
		if (v == CD_UNK)
			continue;
		fputs(name, out);
		gpu_labels(out, &f->gpus[i]);
		fprintf(out, "} %lld\n", (long long)v);
	}
}

static int64_t g_total(const struct cd_gpu *g)
{
	return g->memory_total_bytes;
}
static int64_t g_free(const struct cd_gpu *g)
{
	return g->memory_free_bytes;
}
static int64_t g_used(const struct cd_gpu *g)
{
	return g->memory_used_bytes;
}
static int64_t g_healthy(const struct cd_gpu *g)
{
	return gpu_healthy(g);
}
static int64_t g_ecc(const struct cd_gpu *g)
{
	return g->ecc_aggregate_uncorrected;
}

static void gpus(FILE *out, const struct cd_facts *f)
{
	size_t i;

	head(out, "cuda_doctor_driver_up", "gauge",
	     "1 when the NVIDIA driver answered (NVML and cuDriverGetVersion), else 0.");
	fprintf(out, "cuda_doctor_driver_up %d\n", f->driver.status == CD_PROBE_OK);
	head(out, "cuda_doctor_gpus", "gauge", "GPUs the driver reports (no sample: unknown).");
	if (f->gpus_known)
		fprintf(out, "cuda_doctor_gpus %zu\n", f->n_gpus);
	head(out, "cuda_doctor_gpu_info", "gauge",
	     "One series per GPU: name, PCI bus id and compute capability as labels; always 1.");
	for (i = 0; i < f->n_gpus; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		fputs("cuda_doctor_gpu_info", out);
		gpu_labels(out, g);
		label(out, "name", g->name, 0);
		label(out, "pci_bus_id", g->pci_bus_id, 0);
		label(out, "compute_capability", g->compute_capability, 0);
		fputs("} 1\n", out);
	}
	gpu_metric(out, f, "cuda_doctor_gpu_memory_total_bytes", "gauge",
		   "Framebuffer memory of the GPU.", g_total);
	gpu_metric(out, f, "cuda_doctor_gpu_healthy", "gauge",
		   "1 when the GPU answered with no uncorrectable ECC error since boot and no "
		   "page retirement or row remapping pending or failed, else 0.",
		   g_healthy);
	gpu_metric(out, f, "cuda_doctor_gpu_ecc_uncorrected_errors_total", "counter",
		   "Uncorrectable ECC errors over the GPU's life (NVML's aggregate counter).",
		   g_ecc);
	if (!f->opts || !f->opts->keep_volatile)
		return;
	gpu_metric(out, f, "cuda_doctor_gpu_memory_free_bytes", "gauge",
		   "Free framebuffer memory when check ran (check --volatile).", g_free);
	gpu_metric(out, f, "cuda_doctor_gpu_memory_used_bytes", "gauge",
		   "Used framebuffer memory when check ran (check --volatile).", g_used);
}

/* Findings by severity (every severity, zeros included, so alerts can say
 * "== 0"), then one series per id with how many times it was raised. */
static void findings(FILE *out, const struct cd_findings *fs)
{
	static const enum cd_severity sev[] = {CD_SEV_ERROR, CD_SEV_WARNING, CD_SEV_INFO};
	size_t i, k, n;

	head(out, "cuda_doctor_findings", "gauge", "Findings of check, by severity.");
	for (k = 0; k < 3; k++) {
		for (i = 0, n = 0; i < fs->n; i++)
			n += fs->items[i]->severity == sev[k];
		fprintf(out, "cuda_doctor_findings{severity=\"%s\"} %zu\n", severity_name(sev[k]),
			n);
	}
	head(out, "cuda_doctor_finding", "gauge",
	     "Findings of check by id (docs/findings.md) and severity: how many were raised.");
	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		for (k = 0; k < i; k++)
			if (!strcmp(fs->items[k]->id, x->id) &&
			    fs->items[k]->severity == x->severity)
				break;
		if (k < i)
			continue; /* counted with the first */
		for (k = i, n = 0; k < fs->n; k++)
			n += !strcmp(fs->items[k]->id, x->id) &&
			     fs->items[k]->severity == x->severity;
		fputs("cuda_doctor_finding{", out);
		label(out, "id", x->id, 1);
		label(out, "severity", severity_name(x->severity), 0);
		fprintf(out, "} %zu\n", n);
	}
}

int prom_report(FILE *out, const struct cd_facts *f, const struct cd_findings *fs)
{
	int rc = info(out, f, fs);

	if (rc)
		return rc;
	gpus(out, f);
	findings(out, fs);
	return ferror(out) ? CD_EIO : 0;
}
