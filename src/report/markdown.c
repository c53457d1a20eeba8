/* markdown: a report to paste into a GitHub issue: a facts table, the
 * findings with their fixes in code blocks, the key facts people ask for in
 * bug reports folded away, and how to get the rest. It stays under
 * MD_BUDGET bytes whatever the environment (GitHub refuses an issue body over
 * 65,536 characters): findings past the budget are counted, not printed, and
 * the full JSON is folded in only on request (check --full-json). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "report/fix_render.h"
#include "report/render.h"

#define MD_BUDGET ((size_t)40000) /* bytes of findings and facts, well under 65,536 */

/* A FILE and the bytes written to it. */
struct md {
	FILE *o;
	size_t n;
};

static void mdp(struct md *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mdp(struct md *m, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vfprintf(m->o, fmt, ap);
	va_end(ap);
	if (k > 0)
		m->n += (size_t)k;
}

static const char *md(const char *s)
{
	return s ? s : "unknown";
}

static void row(struct md *m, const char *k, const char *v)
{
	mdp(m, "| %s | %s |\n", k, v);
}

static void facts_table(struct md *m, const struct cd_facts *f)
{
	char buf[512], mem[32];
	size_t i;

	mdp(m, "| | |\n|---|---|\n");
	snprintf(buf, sizeof(buf), "%s, kernel %s, %s, glibc %s",
		 md(f->host.os_pretty ? f->host.os_pretty : f->host.os_id), md(f->host.kernel),
		 md(f->host.arch), md(f->host.glibc_version));
	row(m, "Host", buf);
	row(m, "Container", md(f->container.kind));
	snprintf(buf, sizeof(buf), "%s (CUDA %s), status %s", md(f->driver.version),
		 md(f->driver.cuda_version), probe_status_name(f->driver.status));
	row(m, "Driver", buf);
	for (i = 0; i < f->n_gpus && m->n < MD_BUDGET; i++) {
		char k[32];
		str_bytes(mem, sizeof(mem), f->gpus[i].memory_total_bytes);
		snprintf(k, sizeof(k), "GPU %lld", (long long)f->gpus[i].index);
		snprintf(buf, sizeof(buf), "%s, compute %s, %s", md(f->gpus[i].name),
			 md(f->gpus[i].compute_capability), mem);
		row(m, k, buf);
	}
	snprintf(buf, sizeof(buf), "%s (nvcc %s)", md(f->toolkit.cuda_home),
		 md(f->toolkit.nvcc_version));
	row(m, "CUDA toolkit", buf);
}

static void finding(struct md *m, const struct cd_finding *x)
{
	const char *icon = x->severity == CD_SEV_ERROR	   ? ":x:"
			   : x->severity == CD_SEV_WARNING ? ":warning:"
							   : ":information_source:";
	size_t k;

	mdp(m, "- %s **%s** `%s`\n", icon, x->title ? x->title : x->id, x->id);
	if (x->detail)
		mdp(m, "  %s\n", x->detail);
	for (k = 0; k < x->n_evidence; k++)
		mdp(m, "  - %s\n", x->evidence[k]);
	if (x->n_fix) {
		mdp(m, "\n  ```sh\n");
		for (k = 0; k < x->n_fix; k++)
			mdp(m, "  %s\n", x->fix[k]);
		mdp(m, "  ```\n");
	}
}

/* The packages people ask for in a CUDA bug report, when installed. */
static void key_facts(struct md *m, const struct cd_facts *f)
{
	static const char *const names[] = {"torch",
					    "transformers",
					    "accelerate",
					    "deepspeed",
					    "triton",
					    "flash-attn",
					    "xformers",
					    "bitsandbytes",
					    "vllm",
					    "nvidia-cudnn-cu12",
					    "nvidia-cudnn-cu13",
					    "nvidia-nccl-cu12",
					    "nvidia-nccl-cu13",
					    NULL};
	const struct cd_stack_facts *st = f->stack;
	size_t i;

	mdp(m, "\n<details><summary>Key facts</summary>\n\n| | |\n|---|---|\n");
	if (!st || !st->python.prefix) {
		row(m, "Python", "no environment found");
	} else {
		char buf[512];
		snprintf(buf, sizeof(buf), "%s %s, Python %s, %zu distributions%s",
			 md(st->python.kind), st->python.prefix, md(st->python.version),
			 st->n_packages, st->packages_truncated ? " (truncated)" : "");
		row(m, "Python", buf);
		if (st->torch.installed) {
			snprintf(buf, sizeof(buf), "%s, CUDA %s", md(st->torch.version),
				 st->torch.build_known ? (st->torch.cuda ? st->torch.cuda : "none")
						       : "unknown");
			row(m, "torch", buf);
		}
		for (i = 1; names[i]; i++) { /* names[0], torch, has its row above */
			const struct cd_package *p = stack_find(st, names[i]);
			if (p)
				row(m, names[i], md(p->version));
		}
	}
	mdp(m, "\n</details>\n");
}

void markdown_report(const struct cd_render *r, const struct cd_facts *f,
		     const struct cd_findings *fs)
{
	struct md m = {r->out, 0};
	json_t *j;
	size_t i;

	mdp(&m, "### cuda-doctor %s %s\n\n", CD_VERSION, r->command);
	facts_table(&m, f);
	mdp(&m, "\n#### Findings\n\n");
	if (!fs->n)
		mdp(&m, "No findings.\n");
	for (i = 0; i < fs->n && m.n < MD_BUDGET; i++)
		finding(&m, fs->items[i]);
	if (i < fs->n)
		mdp(&m, "- ... and %zu more finding%s (the JSON report has every one)\n", fs->n - i,
		    fs->n - i == 1 ? "" : "s");
	fix_first_step(r, r->plan);
	key_facts(&m, f);
	if (!r->full_json) {
		mdp(&m,
		    "\nThe full report: `cuda-doctor %s --json > cuda-doctor.json` (attach the "
		    "file), or `cuda-doctor %s --format markdown --full-json` to fold it in "
		    "here.\n",
		    r->command, r->command);
		return;
	}
	j = json_report(f, fs, r->command);
	mdp(&m, "\n<details><summary>Full report (JSON)</summary>\n\n```json\n");
	(void)!json_print(r->out, j); /* out of memory: the block stays empty, the report stands */
	mdp(&m, "```\n\n</details>\n");
	json_decref(j);
}
