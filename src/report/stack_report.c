/* stack_report: the Python / PyTorch parts of the reports: the JSON sections
 * "python", "packages", "torch" and "libraries" (json.c's stack_json hook,
 * documented in docs/json.md) and the text report's section. Read only. */
#include <stdio.h>
#include <string.h>

#include "probe/stack/stack.h"
#include "report/libs_render.h"
#include "report/render.h"

/* ML packages shown in the text report when installed, in this order. */
static const char *const shown[] = {
	"torchvision",
	"torchaudio",
	"triton",
	"transformers",
	"tokenizers",
	"accelerate",
	"deepspeed",
	"flash-attn",
	"xformers",
	"bitsandbytes",
	"vllm",
	"peft",
	"safetensors",
	"huggingface-hub",
	"jax",
	"jaxlib",
	"tensorflow",
	"nvidia-cudnn-cu13",
	"nvidia-cudnn-cu12",
	"nvidia-nccl-cu13",
	"nvidia-nccl-cu12",
};

static json_t *j_python(const struct cd_python_facts *py)
{
	json_t *o = json_object(), *sites = json_array();
	size_t i;

	json_object_set_new(o, "kind", json_str(py->kind));
	json_object_set_new(o, "found_via", json_str(py->found_via));
	json_object_set_new(o, "prefix", json_str(py->prefix));
	json_object_set_new(o, "executable", json_str(py->executable));
	json_object_set_new(o, "executable_real", json_str(py->executable_real));
	json_object_set_new(o, "version", json_str(py->version));
	json_object_set_new(o, "version_source", json_str(py->version_source));
	json_object_set_new(o, "implementation", json_str(py->implementation));
	json_object_set_new(o, "creator", json_str(py->creator));
	json_object_set_new(o, "home", json_str(py->home));
	json_object_set_new(o, "base_prefix", json_str(py->base_prefix));
	json_object_set_new(o, "include_system_site_packages",
			    json_tri(py->include_system_site_packages));
	json_object_set_new(o, "user_site_enabled", json_tri(py->user_site_enabled));
	for (i = 0; i < py->n_site; i++)
		json_array_append_new(
			sites, json_pack("{s:o, s:o, s:I, s:b}", "path", json_str(py->site[i].path),
					 "origin", json_str(py->site[i].origin), "distributions",
					 (json_int_t)py->site[i].n_dists, "truncated",
					 py->site[i].truncated));
	json_object_set_new(o, "site_packages", py->prefix ? sites : json_null());
	if (!py->prefix)
		json_decref(sites);
	json_object_set_new(o, "problem", json_str(py->problem));
	json_object_set_new(o, "searched", json_str(py->searched));
	return o;
}

static json_t *j_packages(const struct cd_stack_facts *st)
{
	json_t *o;
	size_t i;

	if (!st->packages_known)
		return json_null();
	o = json_object();
	for (i = 0; i < st->n_packages; i++)
		json_object_set_new(o, st->packages[i].name, json_str(st->packages[i].version));
	return o;
}

static json_t *j_torch(const struct cd_stack_facts *st)
{
	const struct cd_torch_facts *t = &st->torch;
	json_t *o;

	if (!st->packages_known)
		return json_null();
	o = json_object();
	json_object_set_new(o, "installed", json_boolean(t->installed));
	json_object_set_new(o, "version", json_str(t->version));
	json_object_set_new(o, "cuda", json_str(t->cuda));
	json_object_set_new(o, "hip", json_str(t->hip));
	json_object_set_new(o, "git_version", json_str(t->git_version));
	json_object_set_new(o, "debug", json_tri(t->debug));
	json_object_set_new(o, "arch_list",
			    json_strv(t->arch_list, t->n_arch_list, t->arch_list_known));
	json_object_set_new(o, "path", json_str(t->path));
	json_object_set_new(o, "version_source", json_str(t->version_source));
	json_object_set_new(o, "problem", json_str(t->problem));
	return o;
}

json_t *stack_json(const struct cd_facts *f, const char *key);

json_t *stack_json(const struct cd_facts *f, const char *key)
{
	const struct cd_stack_facts *st = f->stack;

	json_t *t;

	if (!strcmp(key, "libraries"))
		return libs_json(f);
	if (!strcmp(key, "frameworks"))
		return frameworks_json(f);
	if (!st)
		return NULL;
	if (!strcmp(key, "python"))
		return j_python(&st->python);
	if (!strcmp(key, "packages"))
		return j_packages(st);
	if (!strcmp(key, "torch")) {
		t = j_torch(st);
		if (json_is_object(t))
			libs_torch_json(f, t);
		return t;
	}
	return NULL;
}

/* ---- text ------------------------------------------------------------------ */

static const char *unk(const char *s)
{
	return s ? s : "unknown";
}

static void mark_line(const struct cd_render *r, const struct cd_findings *fs)
{
	enum cd_severity worst = CD_SEV_INFO;
	size_t i;
	int any = 0;

	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		if (!x->section || strcmp(x->section, "python") || x->severity == CD_SEV_INFO)
			continue;
		any = 1;
		if (x->severity > worst)
			worst = x->severity;
	}
	if (!any)
		fprintf(r->out, "\n%s✓%s", r->color ? "\033[32m" : "", r->color ? "\033[0m" : "");
	else
		fprintf(r->out, "\n%s%s%s",
			r->color ? (worst == CD_SEV_ERROR ? "\033[31m" : "\033[33m") : "",
			worst == CD_SEV_ERROR ? "✗" : "!", r->color ? "\033[0m" : "");
	fprintf(r->out, " %sPython / PyTorch%s\n", r->color ? "\033[1m" : "",
		r->color ? "\033[0m" : "");
}

static void packages_line(const struct cd_render *r, const struct cd_stack_facts *st)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		const struct cd_package *p = stack_find(st, shown[i]);
		if (!p)
			continue;
		fprintf(r->out, "%s%s %s", n ? ", " : "    ", p->name, unk(p->version));
		if (++n % 4 == 0)
			fprintf(r->out, "\n"), n = 0;
	}
	if (n)
		fprintf(r->out, "\n");
}

void stack_text(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs)
{
	const struct cd_stack_facts *st = f->stack;
	const struct cd_python_facts *py;
	const struct cd_torch_facts *t;
	size_t i;

	if (!st)
		return;
	py = &st->python;
	t = &st->torch;
	mark_line(r, fs);
	if (!py->prefix) {
		fprintf(r->out, "    no Python environment: %s\n",
			py->problem ? py->problem : unk(py->searched));
		return;
	}
	fprintf(r->out, "    %s %s (via %s), Python %s\n", unk(py->kind), py->prefix,
		unk(py->found_via), unk(py->version));
	for (i = 0; i < py->n_site; i++)
		if (r->verbose || py->site[i].n_dists)
			fprintf(r->out, "    %s (%zu distributions%s%s)\n", py->site[i].path,
				py->site[i].n_dists,
				strcmp(py->site[i].origin, "env") ? ", not the environment's own"
								  : "",
				py->site[i].truncated
					? "; truncated at the scan's cap: torch, nvidia-*, "
					  "transformers, deepspeed, accelerate, triton always "
					  "read, "
					  "other absent packages unknown"
					: "");
	if (t->installed && !t->build_known)
		fprintf(r->out, "    torch %s (build unknown: %s)\n", unk(t->version),
			unk(t->problem));
	else if (t->installed)
		fprintf(r->out, "    torch %s%s%s%s\n", unk(t->version),
			t->cuda ? " (CUDA " : (t->hip ? " (ROCm " : " (CPU build"),
			t->cuda ? t->cuda : (t->hip ? t->hip : ""), ")");
	else
		fprintf(r->out, "    torch not installed\n");
	libs_text(r, f);
	packages_line(r, st);
	if (r->verbose)
		fprintf(r->out, "    %zu distributions, %zu conda records, read in %.1f ms\n",
			st->n_packages, st->n_conda, (double)st->probe_us / 1000.0);
}
