/* markdown: a report to paste into a GitHub issue: a facts table, the
 * findings with their fixes in code blocks, and the full JSON folded away. */
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "report/fix_render.h"
#include "report/render.h"

static const char *md(const char *s)
{
	return s ? s : "unknown";
}

static void row(FILE *o, const char *k, const char *v)
{
	fprintf(o, "| %s | %s |\n", k, v);
}

static void facts_table(FILE *o, const struct cd_facts *f)
{
	char buf[512], mem[32];
	size_t i;

	fprintf(o, "| | |\n|---|---|\n");
	snprintf(buf, sizeof(buf), "%s, kernel %s, %s, glibc %s",
		 md(f->host.os_pretty ? f->host.os_pretty : f->host.os_id), md(f->host.kernel),
		 md(f->host.arch), md(f->host.glibc_version));
	row(o, "Host", buf);
	row(o, "Container", md(f->container.kind));
	snprintf(buf, sizeof(buf), "%s (CUDA %s), status %s", md(f->driver.version),
		 md(f->driver.cuda_version), probe_status_name(f->driver.status));
	row(o, "Driver", buf);
	for (i = 0; i < f->n_gpus; i++) {
		char k[32];
		str_bytes(mem, sizeof(mem), f->gpus[i].memory_total_bytes);
		snprintf(k, sizeof(k), "GPU %lld", (long long)f->gpus[i].index);
		snprintf(buf, sizeof(buf), "%s, compute %s, %s", md(f->gpus[i].name),
			 md(f->gpus[i].compute_capability), mem);
		row(o, k, buf);
	}
	snprintf(buf, sizeof(buf), "%s (nvcc %s)", md(f->toolkit.cuda_home),
		 md(f->toolkit.nvcc_version));
	row(o, "CUDA toolkit", buf);
}

void markdown_report(const struct cd_render *r, const struct cd_facts *f,
		     const struct cd_findings *fs)
{
	FILE *o = r->out;
	json_t *j;
	size_t i, k;

	fprintf(o, "### cuda-doctor %s %s\n\n", CD_VERSION, r->command);
	facts_table(o, f);
	fprintf(o, "\n#### Findings\n\n");
	if (!fs->n)
		fprintf(o, "No findings.\n");
	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		const char *icon = x->severity == CD_SEV_ERROR	   ? ":x:"
				   : x->severity == CD_SEV_WARNING ? ":warning:"
								   : ":information_source:";
		fprintf(o, "- %s **%s** `%s`\n", icon, x->title ? x->title : x->id, x->id);
		if (x->detail)
			fprintf(o, "  %s\n", x->detail);
		for (k = 0; k < x->n_evidence; k++)
			fprintf(o, "  - %s\n", x->evidence[k]);
		if (x->n_fix) {
			fprintf(o, "\n  ```sh\n");
			for (k = 0; k < x->n_fix; k++)
				fprintf(o, "  %s\n", x->fix[k]);
			fprintf(o, "  ```\n");
		}
	}
	fix_first_step(r, r->plan);
	j = json_report(f, fs, r->command);
	fprintf(o, "\n<details><summary>Full report (JSON)</summary>\n\n```json\n");
	(void)!json_print(o, j); /* out of memory: the block stays empty, the report stands */
	fprintf(o, "```\n\n</details>\n");
	json_decref(j);
}
