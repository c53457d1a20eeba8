/* text: the human report. Sections with a mark each (✓ fine, ? unknown, ! warning,
 * ✗ error), then the findings with their evidence and fix, then a summary.
 * Colour only when the caller says so (a tty without NO_COLOR). */
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "report/color.h"
#include "report/fix_render.h"
#include "report/render.h"

static enum cd_severity section_worst(const struct cd_findings *fs, const char *section, int *any)
{
	enum cd_severity w = CD_SEV_INFO;
	size_t i;

	*any = 0;
	for (i = 0; i < fs->n; i++) {
		if (!fs->items[i]->section || strcmp(fs->items[i]->section, section))
			continue;
		if (fs->items[i]->severity == CD_SEV_INFO)
			continue;
		*any = 1;
		if (fs->items[i]->severity > w)
			w = fs->items[i]->severity;
	}
	return w;
}

/* known: the section's facts were read; nothing found in an unknown is "?". */
static void mark(const struct cd_render *r, int any, enum cd_severity s, int known)
{
	if (!any && !known)
		fprintf(r->out, "%s?%s", col(r, C_YEL), col(r, C_OFF));
	else if (!any)
		fprintf(r->out, "%s✓%s", col(r, C_GRN), col(r, C_OFF));
	else if (s == CD_SEV_ERROR)
		fprintf(r->out, "%s✗%s", col(r, C_RED), col(r, C_OFF));
	else
		fprintf(r->out, "%s!%s", col(r, C_YEL), col(r, C_OFF));
}

static void heading_known(const struct cd_render *r, const struct cd_findings *fs,
			  const char *section, const char *title, int known)
{
	int any;
	enum cd_severity s = section_worst(fs, section, &any);

	fprintf(r->out, "\n");
	mark(r, any, s, known);
	fprintf(r->out, " %s%s%s\n", col(r, C_BOLD), title, col(r, C_OFF));
}

static void heading(const struct cd_render *r, const struct cd_findings *fs, const char *section,
		    const char *title)
{
	heading_known(r, fs, section, title, 1);
}

static const char *or_unknown(const char *s)
{
	return s ? s : "unknown";
}

static void host_section(const struct cd_render *r, const struct cd_facts *f,
			 const struct cd_findings *fs)
{
	const struct cd_host_facts *h = &f->host;
	char shm[32];

	heading(r, fs, "host", "Host");
	fprintf(r->out, "    %s, kernel %s, %s, glibc %s\n",
		h->os_pretty ? h->os_pretty : or_unknown(h->os_id), or_unknown(h->kernel),
		or_unknown(h->arch), or_unknown(h->glibc_version));
	fprintf(r->out, "    container: %s%s%s%s\n", or_unknown(f->container.kind),
		f->container.evidence ? " (" : "",
		f->container.evidence ? f->container.evidence : "",
		f->container.evidence ? ")" : "");
	str_bytes(shm, sizeof(shm), h->shm_size_bytes);
	fprintf(r->out, "    /dev/shm: %s; NVIDIA device nodes: %zu\n", shm, h->n_dev_nodes);
}

static void lib_line(const struct cd_render *r, const struct cd_driver_lib *l)
{
	if (!l->requested)
		return;
	if (l->path && l->status != CD_PROBE_OK)
		fprintf(r->out, "    %s -> %s: %s\n", l->requested, l->path,
			l->error ? l->error : probe_status_name(l->status));
	else if (l->path)
		fprintf(r->out, "    %s -> %s\n", l->requested, l->path);
	else
		fprintf(r->out, "    %s: %s\n", l->requested,
			l->error ? l->error : probe_status_name(l->status));
	if (r->verbose && l->query_us != CD_UNK)
		fprintf(r->out, "       %squeried in %.1f ms (isolated)%s\n", col(r, C_DIM),
			(double)l->query_us / 1000.0, col(r, C_OFF));
}

static void driver_section(const struct cd_render *r, const struct cd_facts *f,
			   const struct cd_findings *fs)
{
	const struct cd_driver_facts *d = &f->driver;

	heading_known(r, fs, "driver", "NVIDIA driver", d->status != CD_PROBE_NOT_RUN);
	if (d->status == CD_PROBE_NOT_RUN) {
		fprintf(r->out, "    not queried (%s)\n",
			f->root.is_host ? "no driver probe ran"
					: "--root given without --nvml-lib/--cuda-lib");
	} else {
		fprintf(r->out, "    driver %s, supports CUDA %s", or_unknown(d->version),
			or_unknown(d->cuda_version));
		if (d->nvml_version)
			fprintf(r->out, ", NVML %s", d->nvml_version);
		if (d->version && d->version_source && strcmp(d->version_source, "nvml"))
			fprintf(r->out, " (version from %s)", d->version_source);
		fprintf(r->out, "\n");
	}
	if (d->kernel_module_version)
		fprintf(r->out, "    kernel module %s\n", d->kernel_module_version);
	lib_line(r, &d->nvml);
	lib_line(r, &d->cuda);
}

static void gpu_section(const struct cd_render *r, const struct cd_facts *f,
			const struct cd_findings *fs)
{
	char title[64], tot[32], fre[32];
	size_t i;

	snprintf(title, sizeof(title), "GPUs (%s)", f->gpus_known ? "" : "unknown");
	if (f->gpus_known)
		snprintf(title, sizeof(title), "GPUs (%zu)", f->n_gpus);
	heading_known(r, fs, "gpus", title, f->gpus_known);
	for (i = 0; i < f->n_gpus; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		str_bytes(tot, sizeof(tot), g->memory_total_bytes);
		str_bytes(fre, sizeof(fre), g->memory_free_bytes);
		fprintf(r->out, "    %lld  %s  compute %s  %s total, %s free  %s\n",
			(long long)g->index, or_unknown(g->name), or_unknown(g->compute_capability),
			tot, fre, or_unknown(g->pci_bus_id));
		if (g->error)
			fprintf(r->out, "       %s\n", g->error);
		if (r->verbose)
			fprintf(r->out,
				"       %s; MIG %s, persistence %s, compute mode %s, ECC %s\n",
				or_unknown(g->uuid), or_unknown(g->mig_mode),
				or_unknown(g->persistence_mode), or_unknown(g->compute_mode),
				or_unknown(g->ecc_mode));
	}
}

static void toolkit_section(const struct cd_render *r, const struct cd_facts *f,
			    const struct cd_findings *fs)
{
	const struct cd_toolkit_facts *t = &f->toolkit;
	char title[64];
	size_t i, k;

	snprintf(title, sizeof(title), "CUDA toolkits (%zu)", t->n);
	heading(r, fs, "toolkit", title);
	for (i = 0; i < t->n; i++) {
		const struct cd_toolkit *tk = &t->items[i];
		size_t missing = 0;
		fprintf(r->out, "    %s  %s  nvcc %s  [%s]%s\n", or_unknown(tk->root),
			or_unknown(tk->version),
			tk->nvcc_path ? or_unknown(tk->nvcc_version) : "absent",
			or_unknown(tk->found_via),
			(int64_t)i == t->selected ? "  <- extension builds use this" : "");
		if (tk->exists == CD_TRI_NO)
			fprintf(r->out, "       no such directory\n");
		if (tk->nvcc_target)
			fprintf(r->out, "       bin/nvcc runs %s\n", tk->nvcc_target);
		for (k = 0; k < tk->n_headers; k++)
			missing += tk->headers[k].required && tk->headers[k].present == CD_TRI_NO;
		if (missing) {
			fprintf(r->out, "       missing:");
			for (k = 0; k < tk->n_headers; k++)
				if (tk->headers[k].required && tk->headers[k].present == CD_TRI_NO)
					fprintf(r->out, " %s", tk->headers[k].name);
			fprintf(r->out, "\n");
		}
	}
	if (t->selected_reason)
		fprintf(r->out, "    %sselection: %s%s\n", col(r, C_DIM), t->selected_reason,
			col(r, C_OFF));
}

static void env_section(const struct cd_render *r, const struct cd_facts *f,
			const struct cd_findings *fs)
{
	const struct cd_env_facts *e = &f->env;
	size_t i;

	heading(r, fs, "env", "Environment");
	if (!e->n_vars)
		fprintf(r->out, "    no CUDA-related variables set\n");
	for (i = 0; i < e->n_vars; i++) {
		if (!strcmp(e->vars[i].name, "LD_LIBRARY_PATH") && e->n_ld_library_path > 4 &&
		    !r->verbose) {
			fprintf(r->out, "    LD_LIBRARY_PATH: %zu entries\n", e->n_ld_library_path);
			continue;
		}
		fprintf(r->out, "    %s=%s\n", e->vars[i].name, e->vars[i].value);
	}
	if (e->ld_library_path_set &&
	    (e->n_ld_library_path_empty || e->n_ld_library_path_duplicate))
		fprintf(r->out, "    LD_LIBRARY_PATH: %zu entries, %zu empty, %zu repeated\n",
			e->n_ld_library_path_total, e->n_ld_library_path_empty,
			e->n_ld_library_path_duplicate);
}

/* Only with check --host-driver or --image-config under --root. */
static void image_section(const struct cd_render *r, const struct cd_facts *f,
			  const struct cd_findings *fs)
{
	const struct cd_image_facts *im = &f->image;
	size_t i;

	if (!im->probed)
		return;
	heading(r, fs, "container", "Image under --root, against this host");
	fprintf(r->out, "    driver: %s\n",
		!im->host_driver    ? "not queried (no --host-driver)"
		: f->driver.version ? f->driver.version
				    : "queried, no answer");
	if (im->config) {
		fprintf(r->out, "    configuration %s:%s\n", im->config,
			im->n_vars ? "" : " no NVIDIA_* variable");
		for (i = 0; i < im->n_vars; i++)
			fprintf(r->out, "      %s=%s\n", im->vars[i].name, im->vars[i].value);
	} else {
		fprintf(r->out,
			"    no --image-config: NVIDIA_REQUIRE_CUDA and the image's ENV unknown\n");
	}
	for (i = 0; i < im->n_libcuda; i++)
		fprintf(r->out, "    libcuda in the image: %s\n", im->libcuda[i].path);
	for (i = 0; i < im->n_compat; i++)
		fprintf(r->out, "    cuda-compat: %s\n", im->compat[i].path);
	if (im->compat_forced)
		fprintf(r->out, "    %s on the loader's path through %s\n", im->compat_forced,
			im->compat_forced_by);
}

static void text_finding(const struct cd_render *r, const struct cd_finding *x)
{
	size_t i;

	fprintf(r->out, "  ");
	if (x->severity == CD_SEV_INFO)
		fprintf(r->out, "%si%s", col(r, C_DIM), col(r, C_OFF));
	else
		mark(r, 1, x->severity, 1);
	fprintf(r->out, " %s%s%s\n", col(r, C_BOLD), x->title ? x->title : x->id, col(r, C_OFF));
	fprintf(r->out, "      %s[%s %s]%s\n", col(r, C_DIM), severity_name(x->severity), x->id,
		col(r, C_OFF));
	if (x->line)
		fprintf(r->out, "      at %s:%u\n", x->file ? x->file : "", x->line);
	if (x->detail)
		fprintf(r->out, "      %s\n", x->detail);
	for (i = 0; i < x->n_evidence; i++)
		fprintf(r->out, "      - %s\n", x->evidence[i]);
	for (i = 0; i < x->n_fix; i++)
		fprintf(r->out, "      %sfix:%s %s\n", col(r, C_GRN), col(r, C_OFF), x->fix[i]);
}

void text_findings(const struct cd_render *r, const struct cd_findings *fs)
{
	size_t i, n[3] = {0, 0, 0};

	for (i = 0; i < fs->n; i++)
		if ((unsigned)fs->items[i]->severity < 3)
			n[fs->items[i]->severity]++;
	if (fs->n)
		fprintf(r->out, "%sFindings\n", r->quiet ? "" : "\n");
	for (i = 0; i < fs->n; i++)
		if (!r->quiet || fs->items[i]->severity != CD_SEV_INFO)
			text_finding(r, fs->items[i]);
	fprintf(r->out, "\n%zu error%s, %zu warning%s, %zu note%s\n", n[CD_SEV_ERROR],
		n[CD_SEV_ERROR] == 1 ? "" : "s", n[CD_SEV_WARNING],
		n[CD_SEV_WARNING] == 1 ? "" : "s", n[CD_SEV_INFO], n[CD_SEV_INFO] == 1 ? "" : "s");
}

void text_report(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs)
{
	if (!r->quiet) {
		fprintf(r->out, "cuda-doctor %s %s%s\n", CD_VERSION, r->command,
			f->root.is_host ? "" : "  (--root)");
		host_section(r, f, fs);
		driver_section(r, f, fs);
		gpu_section(r, f, fs);
		toolkit_section(r, f, fs);
		stack_text(r, f, fs);
		env_section(r, f, fs);
		image_section(r, f, fs);
	}
	text_findings(r, fs);
	fix_first_step(r, r->plan);
}
