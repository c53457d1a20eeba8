/* prom: see prom.h. Metric names follow Prometheus' naming practice: a
 * cuda_doctor_ prefix, _bytes for sizes, _total for counters, _info for
 * series whose labels are the value. */
#include "report/prom.h"

#include <stddef.h>
#include <string.h>

#include "facts/libs.h"
#include "facts/live.h"
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
static void findings(FILE *out, const struct cd_findings *fs, const char *prefix,
		     const char *command)
{
	static const enum cd_severity sev[] = {CD_SEV_ERROR, CD_SEV_WARNING, CD_SEV_INFO};
	char name[64], help[128];
	size_t i, k, n;

	snprintf(name, sizeof(name), "%sfindings", prefix);
	snprintf(help, sizeof(help), "Findings of %s, by severity.", command);
	head(out, name, "gauge", help);
	for (k = 0; k < 3; k++) {
		for (i = 0, n = 0; i < fs->n; i++)
			n += fs->items[i]->severity == sev[k];
		fprintf(out, "%s{severity=\"%s\"} %zu\n", name, severity_name(sev[k]), n);
	}
	snprintf(name, sizeof(name), "%sfinding", prefix);
	snprintf(help, sizeof(help),
		 "Findings of %s by id (docs/findings.md) and severity: how many were raised.",
		 command);
	head(out, name, "gauge", help);
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
		fprintf(out, "%s{", name);
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
	findings(out, fs, "cuda_doctor_", "check");
	return ferror(out) ? CD_EIO : 0;
}

/* The probe's series: one per device (and step) it probed, labelled by the
 * device's ordinal as a CUDA program here sees it and its UUID. */
static void dev_labels(FILE *out, const struct cd_live_device *d)
{
	char ord[24];

	snprintf(ord, sizeof(ord), "%lld", (long long)d->ordinal);
	fputc('{', out);
	label(out, "device", d->ordinal == CD_UNK ? "" : ord, 1);
	label(out, "uuid", d->uuid ? d->uuid : d->cuda_uuid, 0);
}

/* A value in base units: microseconds become seconds; CD_UNK is no sample. */
static void dev_sample(FILE *out, const char *name, const struct cd_live_device *d, int64_t v,
		       double scale)
{
	if (v == CD_UNK)
		return;
	fputs(name, out);
	dev_labels(out, d);
	if (scale == 1.0)
		fprintf(out, "} %lld\n", (long long)v);
	else
		fprintf(out, "} %.9g\n", (double)v * scale);
}

struct probe_metric {
	const char *name, *type, *help;
	size_t offset; /* of the int64_t in struct cd_live_device */
	double scale;
};

#define PM(n, t, h, field, sc)                                                                     \
	{                                                                                          \
		n, t, h, offsetof(struct cd_live_device, field), sc                                \
	}
static const struct probe_metric probe_metrics[] = {
	PM("cuda_doctor_probe_device_seconds", "gauge", "The device's child, fork to exit.",
	   wall_us, 1e-6),
	PM("cuda_doctor_probe_memory_total_bytes", "gauge", "cuDeviceTotalMem.", total_bytes, 1.0),
	PM("cuda_doctor_probe_memory_free_bytes", "gauge", "cuMemGetInfo's free memory.",
	   free_bytes, 1.0),
	PM("cuda_doctor_probe_jit_seconds", "gauge",
	   "The embedded PTX compiled by the driver (CU_JIT_WALL_TIME).", jit_wall_us, 1e-6),
	PM("cuda_doctor_probe_kernel_round_trip_seconds", "gauge",
	   "Best launch-to-completion of a one-block kernel.", kernel_rtt_us, 1e-6),
	PM("cuda_doctor_probe_h2d_bytes_per_second", "gauge", "Pinned host to device copies.",
	   h2d_bps, 1.0),
	PM("cuda_doctor_probe_d2h_bytes_per_second", "gauge", "Pinned device to host copies.",
	   d2h_bps, 1.0),
	PM("cuda_doctor_probe_memtest_bytes", "gauge", "Memory pattern-tested (--full).",
	   memtest_bytes, 1.0),
	PM("cuda_doctor_probe_memtest_errors", "gauge", "Words read back wrong (--full).",
	   memtest_errors, 1.0),
};

static int64_t dev_field(const struct cd_live_device *d, size_t offset)
{
	int64_t v;

	memcpy(&v, (const char *)d + offset, sizeof(v));
	return v;
}

static void probe_devices(FILE *out, const struct cd_live_facts *L)
{
	size_t i, k;

	head(out, "cuda_doctor_probe_devices", "gauge", "Devices (GPUs or MIG instances) probed.");
	fprintf(out, "cuda_doctor_probe_devices %zu\n", L->n_devices);
	head(out, "cuda_doctor_probe_device_passed", "gauge",
	     "1 when every step of the device passed (or was skipped), else 0.");
	for (i = 0; i < L->n_devices; i++)
		dev_sample(out, "cuda_doctor_probe_device_passed", &L->devices[i],
			   live_result_rank(L->devices[i].result) == 0, 1.0);
	head(out, "cuda_doctor_probe_device_result", "gauge",
	     "The device's worst step result as a label (passed, failed, hung, crashed, "
	     "not-run); always 1.");
	for (i = 0; i < L->n_devices; i++) {
		const struct cd_live_device *d = &L->devices[i];
		fputs("cuda_doctor_probe_device_result", out);
		dev_labels(out, d);
		label(out, "name", d->name, 0);
		label(out, "result", live_result_name(d->result), 0);
		fputs("} 1\n", out);
	}
	head(out, "cuda_doctor_probe_step_seconds", "gauge",
	     "How long each step took (until killed, for a hung one).");
	for (i = 0; i < L->n_devices; i++)
		for (k = 0; k < CD_LSTEP_N; k++) {
			const struct cd_live_step *s = &L->devices[i].steps[k];
			if (s->us == CD_UNK)
				continue;
			fputs("cuda_doctor_probe_step_seconds", out);
			dev_labels(out, &L->devices[i]);
			label(out, "step", live_step_name((enum cd_live_step_id)k), 0);
			fprintf(out, "} %.9g\n", (double)s->us * 1e-6);
		}
	for (k = 0; k < sizeof(probe_metrics) / sizeof(probe_metrics[0]); k++) {
		const struct probe_metric *m = &probe_metrics[k];
		head(out, m->name, m->type, m->help);
		for (i = 0; i < L->n_devices; i++)
			dev_sample(out, m->name, &L->devices[i],
				   dev_field(&L->devices[i], m->offset), m->scale);
	}
}

static void probe_nccl(FILE *out, const struct cd_live_nccl *n)
{
	if (!n->requested)
		return;
	head(out, "cuda_doctor_probe_nccl_passed", "gauge",
	     "1 when NCCL loaded, built a communicator and verified an all-reduce, else 0.");
	fprintf(out, "cuda_doctor_probe_nccl_passed %d\n", n->allreduce.result == CD_LIVE_PASSED);
	head(out, "cuda_doctor_probe_nccl_bus_bytes_per_second", "gauge",
	     "The all-reduce's bus bandwidth (nccl-tests' busbw).");
	if (n->bus_bps != CD_UNK)
		fprintf(out, "cuda_doctor_probe_nccl_bus_bytes_per_second %lld\n",
			(long long)n->bus_bps);
}

int prom_probe(FILE *out, const struct cd_facts *f, const struct cd_findings *fs)
{
	const struct cd_live_facts *L = f->live;
	size_t i, n = 0;

	head(out, "cuda_doctor_probe_info", "gauge",
	     "The driver the probe ran under as labels (\"\" when unknown); always 1.");
	fputs("cuda_doctor_probe_info{", out);
	label(out, "driver", f->driver.version, 1);
	label(out, "cuda_driver", f->driver.cuda_version, 0);
	label(out, "mode", L && L->full ? "full" : "quick", 0);
	label(out, "version", CD_VERSION, 0);
	fputs("} 1\n", out);
	if (L) {
		head(out, "cuda_doctor_probe_seconds", "gauge", "The whole probe, wall time.");
		if (L->wall_us != CD_UNK)
			fprintf(out, "cuda_doctor_probe_seconds %.9g\n", (double)L->wall_us * 1e-6);
		head(out, "cuda_doctor_probe_timed_out", "gauge",
		     "1 when the probe's --timeout ran out, else 0.");
		fprintf(out, "cuda_doctor_probe_timed_out %d\n", L->timed_out);
		probe_devices(out, L);
		probe_nccl(out, &L->nccl);
		for (i = 0; i < L->xids.n; i++)
			n += L->xids.items[i].during_probe != 0;
		head(out, "cuda_doctor_probe_xid_events", "gauge",
		     "Xid lines the kernel logged while the probe ran.");
		if (L->xids.readable)
			fprintf(out, "cuda_doctor_probe_xid_events %zu\n", n);
	}
	findings(out, fs, "cuda_doctor_probe_", "probe");
	return ferror(out) ? CD_EIO : 0;
}
