/* jit_text: the human `cuda-doctor jit` report and its Markdown form.
 * Sections (each with ✓ ! ✗ from the findings that belong to it): the
 * toolkit torch would use, the compilers, build tools and Python, arch
 * flags, the extensions cache, the op table, the test build, then the
 * findings with evidence and fixes. */
#include <string.h>

#include "check/jit/jit.h"
#include "kb/hostcc.h"
#include "report/color.h"
#include "report/fix_render.h"
#include "report/jit_render.h"

static const char *u(const char *s)
{
	return s ? s : "unknown";
}

/* The worst finding among ids (NULL-terminated); -1 when none. */
static int worst(const struct cd_findings *fs, const char *const *ids)
{
	size_t i, k;
	int w = -1;

	for (i = 0; i < fs->n; i++)
		for (k = 0; ids[k]; k++)
			if (!strcmp(fs->items[i]->id, ids[k]) &&
			    fs->items[i]->severity != CD_SEV_INFO &&
			    (int)fs->items[i]->severity > w)
				w = (int)fs->items[i]->severity;
	return w;
}

static void mark_heading(const struct cd_render *o, int w, const char *title)
{
	fprintf(o->out, "\n");
	if (w < 0)
		fprintf(o->out, "%s✓%s", col(o, C_GRN), col(o, C_OFF));
	else if (w == CD_SEV_ERROR)
		fprintf(o->out, "%s✗%s", col(o, C_RED), col(o, C_OFF));
	else
		fprintf(o->out, "%s!%s", col(o, C_YEL), col(o, C_OFF));
	fprintf(o->out, " %s%s%s\n", col(o, C_BOLD), title, col(o, C_OFF));
}

static void heading(const struct cd_render *o, const struct jit_report *r, const char *title,
		    const char *const *ids)
{
	mark_heading(o, worst(r->fs, ids), title);
}

static void toolkit(const struct cd_render *o, const struct jit_report *r)
{
	static const char *const ids[] = {"toolkit-missing", "nvcc-torch-mismatch",
					  "toolkit-headers-missing", "extension-abi-mismatch",
					  NULL};
	const struct cd_jit_facts *jf = r->jf;
	const struct jit_toolkit *tk = &jf->tk;
	const struct jit_python *py = &jf->py;
	size_t i, missing = 0;

	heading(o, r, "CUDA toolkit torch would use", ids);
	fprintf(o->out, "    CUDA_HOME %s  [%s]\n", tk->cuda_home ? tk->cuda_home : "None",
		u(tk->via));
	if (tk->reason)
		fprintf(o->out, "    %s%s%s\n", col(o, C_DIM), tk->reason, col(o, C_OFF));
	if (tk->cuda_home)
		fprintf(o->out, "    nvcc %s, CUDA %s%s%s%s\n", tk->nvcc ? tk->nvcc : "absent",
			u(tk->nvcc_version), tk->nvcc_version_source ? " (from " : "",
			tk->nvcc_version_source ? tk->nvcc_version_source : "",
			tk->nvcc_version_source ? ")" : "");
	if (py->torch_present == CD_TRI_YES)
		fprintf(o->out, "    torch %s, built with CUDA %s\n", u(py->torch_version),
			py->torch_cpu_only ? "none (CPU-only)" : u(py->torch_cuda));
	else
		fprintf(o->out, "    torch: not found%s%s\n", py->site_packages ? " in " : "",
			py->site_packages ? py->site_packages : "");
	for (i = 0; i < tk->n_files; i++)
		missing += tk->files[i].present == CD_TRI_NO;
	if (tk->cuda_home && tk->home_exists == CD_TRI_YES)
		fprintf(o->out, "    build files: %zu of %zu present in %s, %s\n",
			tk->n_files - missing, tk->n_files, u(tk->include_dir), u(tk->lib_dir));
	for (i = 0; i < tk->n_others; i++)
		fprintf(o->out, "    other toolkit: %s (CUDA %s)\n", tk->others[i],
			u(tk->others_version[i]));
}

static void compiler_line(const struct cd_render *o, const struct cd_jit_facts *jf,
			  const struct jit_compiler *c, int torch)
{
	int max = c->family ? kb_max_host_compiler(jf->tk.nvcc_major, jf->tk.nvcc_minor, c->family,
						   torch)
			    : -1;

	fprintf(o->out, "    %s: %s", c->role, c->path ? c->path : c->command);
	if (!c->path)
		fprintf(o->out, " (not found)");
	fprintf(o->out, " [%s]", u(c->via));
	if (c->path)
		fprintf(o->out, ", %s %s", c->family ? c->family : "compiler", u(c->version));
	if (max > 0)
		fprintf(o->out, "; %s accepts %s <= %d",
			torch ? "torch's setup.py check" : "this nvcc", c->family, max);
	fprintf(o->out, "\n");
}

static void tools(const struct cd_render *o, const struct jit_report *r)
{
	static const char *const cids[] = {"host-compiler-unsupported", NULL};
	static const char *const tids[] = {"ninja-missing", "python-headers-missing", NULL};
	const struct cd_jit_facts *jf = r->jf;
	const struct jit_python *py = &jf->py;

	heading(o, r, "Compilers", cids);
	compiler_line(o, jf, &jf->host, 0);
	compiler_line(o, jf, &jf->cxx, 1);
	if (jf->env.cudahostcxx)
		fprintf(o->out,
			"    %sCUDAHOSTCXX=%s is read by CMake only; torch and nvcc ignore it%s\n",
			col(o, C_DIM), jf->env.cudahostcxx, col(o, C_OFF));
	heading(o, r, "Build tools and Python", tids);
	fprintf(o->out, "    ninja: %s%s%s\n", jf->ninja.path ? jf->ninja.path : "not on PATH",
		jf->ninja.env_bin && !jf->ninja.path ? "; in the environment: " : "",
		jf->ninja.env_bin && !jf->ninja.path ? jf->ninja.env_bin : "");
	if (!py->prefix) {
		fprintf(o->out, "    Python environment: not found\n");
		return;
	}
	fprintf(o->out, "    Python %s at %s (%s, from %s)\n", u(py->version), py->prefix,
		u(py->kind), u(py->via));
	fprintf(o->out, "    Python.h: %s\n", py->python_h ? py->python_h : "missing");
	if (py->ds_present == CD_TRI_YES)
		fprintf(o->out, "    DeepSpeed %s%s%s\n", u(py->ds_version),
			py->ds_torch_cuda ? ", prebuilt ops for CUDA " : "",
			py->ds_torch_cuda ? py->ds_torch_cuda : "");
}

static void arch(const struct cd_render *o, const struct jit_report *r)
{
	static const char *const ids[] = {"torch-arch-list-invalid", NULL};
	const struct jit_arch *ar = &r->jf->arch;
	size_t i;

	heading(o, r, "GPU architectures", ids);
	if (ar->use_gpus)
		fprintf(o->out, "    TORCH_CUDA_ARCH_LIST %s: torch builds for the visible GPUs\n",
			ar->raw && *ar->raw ? "is \"native\"" : "is unset");
	else
		fprintf(o->out, "    TORCH_CUDA_ARCH_LIST=\"%s\"\n", ar->raw);
	fprintf(o->out, "    GPUs (%s):", u(ar->gpus_via));
	for (i = 0; i < ar->n_gpus; i++)
		fprintf(o->out, " %d.%d", ar->gpus[i].major, ar->gpus[i].minor);
	fprintf(o->out, "%s\n", ar->n_gpus ? "" : " none");
}

static void cache(const struct cd_render *o, const struct jit_report *r)
{
	static const char *const ids[] = {"jit-cache-stale", "jit-cache-lock", NULL};
	const struct jit_cache *c = &r->jf->cache;

	heading(o, r, "Extensions cache", ids);
	if (!c->root) {
		fprintf(o->out, "    unknown (no HOME)\n");
		return;
	}
	fprintf(o->out, "    %s [%s]: %s", c->root, u(c->via),
		c->exists == CD_TRI_YES ? "" : "absent");
	if (c->exists == CD_TRI_YES)
		fprintf(o->out, "%zu extension build%s, %zu problem%s", c->n_builds,
			c->n_builds == 1 ? "" : "s", c->n, c->n == 1 ? "" : "s");
	fprintf(o->out, "\n");
	if (c->active && strcmp(c->active, c->root))
		fprintf(o->out, "    %sthis environment builds in %s%s\n", col(o, C_DIM), c->active,
			col(o, C_OFF));
}

static void ops(const struct cd_render *o, const struct jit_report *r)
{
	int w = -1;
	size_t i;

	for (i = 0; i < r->ops->n; i++) {
		const struct jit_op_row *x = &r->ops->rows[i];
		if (r->ops->any_selected && !x->selected)
			continue;
		if (x->state == JIT_OP_NOT_READY)
			w = CD_SEV_ERROR;
		else if (x->state == JIT_OP_UNKNOWN && w < 0)
			w = CD_SEV_WARNING;
	}
	mark_heading(o, w, "Ops");
	for (i = 0; i < r->ops->n; i++) {
		const struct jit_op_row *x = &r->ops->rows[i];
		const char *c = x->state == JIT_OP_NOT_READY ? C_RED
				: x->state == JIT_OP_UNKNOWN ? C_YEL
							     : C_GRN;
		if (r->ops->any_selected && !x->selected && !o->verbose)
			continue;
		fprintf(o->out, "    %-22s %s%-10s%s", x->name, col(o, c),
			jit_op_state_name(x->state), col(o, C_OFF));
		if (x->reason)
			fprintf(o->out, " %s%s%s", x->reason_id ? x->reason_id : "",
				x->reason_id ? ": " : "", x->reason);
		fprintf(o->out, "\n");
	}
}

static void smoke(const struct cd_render *o, const struct jit_report *r)
{
	const struct jit_smoke *s = r->smoke;
	int ok, failed;

	if (!s || !s->ran)
		return;
	ok = !strcmp(s->status, "ok");
	failed = !ok && strcmp(s->status, "skipped");
	mark_heading(o, ok ? -1 : failed ? CD_SEV_ERROR : CD_SEV_WARNING, "Test build (--compile)");
	fprintf(o->out, "    %s", s->status);
	if (s->detail)
		fprintf(o->out, ": %s", s->detail);
	else if (s->n_diags)
		fprintf(o->out, ": %s", s->diags[0].line);
	fprintf(o->out, "\n");
	if (!strcmp(s->status, "skipped") || !s->compile_cmd)
		return;
	if (s->stage && !strcmp(s->stage, "compile")) {
		fprintf(o->out, "    compile %.1f s\n", (double)s->compile_ms / 1000);
	} else {
		fprintf(o->out, "    compile %.1f s, link %.1f s", (double)s->compile_ms / 1000,
			(double)s->link_ms / 1000);
		if (!s->stage || strcmp(s->stage, "link"))
			fprintf(o->out, ", load %.1f s; kernel %s", (double)s->load_ms / 1000,
				s->kernel_ran == CD_TRI_YES  ? "ran"
				: s->kernel_ran == CD_TRI_NO ? "failed"
							     : "not run (no GPU)");
		fprintf(o->out, "\n");
	}
	if (s->versions)
		fprintf(o->out, "    loaded: %s\n", s->versions);
	fprintf(o->out, "    arch: %s%s\n",
		s->arch_flags && *s->arch_flags ? s->arch_flags : "nvcc default",
		s->with_torch_headers ? "; with torch's ATen/cuda/CUDAContext.h" : "");
	if (s->arch_note)
		fprintf(o->out, "    %s%s%s\n", col(o, C_DIM), s->arch_note, col(o, C_OFF));
	if (o->verbose && s->compile_cmd) {
		fprintf(o->out, "    %s%s%s\n", col(o, C_DIM), s->compile_cmd, col(o, C_OFF));
		fprintf(o->out, "    %s%s%s\n", col(o, C_DIM), u(s->link_cmd), col(o, C_OFF));
	}
	if (s->tmpdir)
		fprintf(o->out, "    %s %s\n", s->tmpdir,
			s->cleaned == CD_TRI_YES ? "removed" : "NOT removed");
}

void jit_text(const struct cd_render *o, const struct jit_report *r)
{
	const struct cd_findings *fs = r->fs;

	if (!o->quiet) {
		fprintf(o->out, "cuda-doctor %s jit%s\n", CD_VERSION,
			r->f->root.is_host ? "" : "  (--root)");
		toolkit(o, r);
		tools(o, r);
		arch(o, r);
		cache(o, r);
		ops(o, r);
		smoke(o, r);
	}
	text_findings(o, fs);
	fix_first_step(o, o->plan);
}

void jit_markdown(const struct cd_render *o, const struct jit_report *r)
{
	const struct cd_jit_facts *jf = r->jf;
	FILE *out = o->out;
	json_t *j;
	size_t i, k;

	fprintf(out, "### cuda-doctor %s jit\n\n| | |\n|---|---|\n", CD_VERSION);
	fprintf(out, "| CUDA_HOME | %s (%s) |\n", jf->tk.cuda_home ? jf->tk.cuda_home : "None",
		u(jf->tk.via));
	fprintf(out, "| nvcc | %s |\n", u(jf->tk.nvcc_version));
	fprintf(out, "| torch | %s (CUDA %s) |\n", u(jf->py.torch_version), u(jf->py.torch_cuda));
	fprintf(out, "| host compiler | %s %s |\n", u(jf->host.path), u(jf->host.version));
	fprintf(out, "| Python.h | %s |\n", u(jf->py.python_h));
	fprintf(out, "\n| op | state | reason |\n|---|---|---|\n");
	for (i = 0; i < r->ops->n; i++)
		fprintf(out, "| %s | %s | %s |\n", r->ops->rows[i].name,
			jit_op_state_name(r->ops->rows[i].state),
			r->ops->rows[i].reason ? r->ops->rows[i].reason : "");
	fprintf(out, "\n#### Findings\n\n%s", r->fs->n ? "" : "No findings.\n");
	for (i = 0; i < r->fs->n; i++) {
		const struct cd_finding *x = r->fs->items[i];
		fprintf(out, "- %s **%s** `%s`\n",
			x->severity == CD_SEV_ERROR	? ":x:"
			: x->severity == CD_SEV_WARNING ? ":warning:"
							: ":information_source:",
			x->title ? x->title : x->id, x->id);
		for (k = 0; k < x->n_evidence; k++)
			fprintf(out, "  - %s\n", x->evidence[k]);
		if (x->n_fix) {
			fprintf(out, "\n  ```sh\n");
			for (k = 0; k < x->n_fix; k++)
				fprintf(out, "  %s\n", x->fix[k]);
			fprintf(out, "  ```\n");
		}
	}
	fix_first_step(o, o->plan);
	j = jit_json(r);
	fprintf(out, "\n<details><summary>Full report (JSON)</summary>\n\n```json\n");
	(void)!json_print(out, j); /* out of memory: the block stays empty, the report stands */
	fprintf(out, "```\n\n</details>\n");
	json_decref(j);
}
