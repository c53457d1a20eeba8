/* jit_json: the "jit" object of `cuda-doctor jit --json` (keys in
 * docs/jit.md). Unknown is null; arrays keep the probes' order. */
#include <string.h>

#include "check/jit/jit.h"
#include "kb/hostcc.h"
#include "report/jit_render.h"

static json_t *jint(int v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *j_files(const struct jit_toolkit *tk)
{
	json_t *a = json_array();
	size_t i, k;

	for (i = 0; i < tk->n_files; i++) {
		const struct jit_file *x = &tk->files[i];
		json_t *o = json_object(), *e = json_array();
		for (k = 0; k < x->n_elsewhere; k++)
			json_array_append_new(e, json_str(x->elsewhere[k]));
		json_object_set_new(o, "name", json_str(x->name));
		json_object_set_new(o, "kind", json_string(x->is_lib ? "library" : "header"));
		json_object_set_new(o, "present", json_tri(x->present));
		json_object_set_new(o, "path", json_str(x->path));
		json_object_set_new(o, "note", json_str(x->note));
		json_object_set_new(o, "elsewhere", e);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *j_toolkit(const struct cd_jit_facts *jf)
{
	const struct jit_toolkit *tk = &jf->tk;
	json_t *o = json_object(), *others = json_array();
	size_t i;

	json_object_set_new(o, "cuda_home", json_str(tk->cuda_home));
	json_object_set_new(o, "via", json_str(tk->via));
	json_object_set_new(o, "reason", json_str(tk->reason));
	json_object_set_new(o, "exists", json_tri(tk->home_exists));
	json_object_set_new(o, "nvcc_on_path", json_str(tk->nvcc_on_path));
	json_object_set_new(o, "nvcc", json_str(tk->nvcc));
	json_object_set_new(o, "nvcc_version", json_str(tk->nvcc_version));
	json_object_set_new(o, "nvcc_version_source", json_str(tk->nvcc_version_source));
	json_object_set_new(o, "include_dir", json_str(tk->include_dir));
	json_object_set_new(o, "lib_dir", json_str(tk->lib_dir));
	json_object_set_new(o, "files", j_files(tk));
	for (i = 0; i < tk->n_others; i++)
		json_array_append_new(others,
				      json_pack("{s:o, s:o}", "root", json_str(tk->others[i]),
						"version", json_str(tk->others_version[i])));
	json_object_set_new(o, "other_toolkits", others);
	return o;
}

static json_t *j_compiler(const struct cd_jit_facts *jf, const struct jit_compiler *c, int torch)
{
	json_t *o = json_object();
	int max = c->family ? kb_max_host_compiler(jf->tk.nvcc_major, jf->tk.nvcc_minor, c->family,
						   torch)
			    : -1;

	json_object_set_new(o, "command", json_str(c->command));
	json_object_set_new(o, "via", json_str(c->via));
	json_object_set_new(o, "path", json_str(c->path));
	json_object_set_new(o, "family", json_str(c->family));
	json_object_set_new(o, "version", json_str(c->version));
	json_object_set_new(o, "version_source", json_str(c->version_source));
	json_object_set_new(o, torch ? "torch_max_major" : "nvcc_max_major", jint(max));
	return o;
}

static json_t *j_python(const struct jit_python *py)
{
	json_t *o = json_object(), *torch = json_object(), *ds = json_object(),
	       *ops = json_object();
	size_t i;

	json_object_set_new(o, "prefix", json_str(py->prefix));
	json_object_set_new(o, "kind", json_str(py->kind));
	json_object_set_new(o, "via", json_str(py->via));
	json_object_set_new(o, "version", json_str(py->version));
	json_object_set_new(o, "version_source", json_str(py->version_source));
	json_object_set_new(o, "site_packages", json_str(py->site_packages));
	json_object_set_new(o, "python_h", json_str(py->python_h));
	json_object_set_new(o, "python_h_searched", json_strv(py->searched, py->n_searched, 1));
	json_object_set_new(torch, "present", json_tri(py->torch_present));
	json_object_set_new(torch, "version", json_str(py->torch_version));
	json_object_set_new(torch, "cuda", json_str(py->torch_cuda));
	json_object_set_new(torch, "cpu_only", json_boolean(py->torch_cpu_only));
	json_object_set_new(torch, "include", json_str(py->torch_include));
	json_object_set_new(o, "torch", torch);
	json_object_set_new(ds, "present", json_tri(py->ds_present));
	json_object_set_new(ds, "version", json_str(py->ds_version));
	json_object_set_new(ds, "torch_cuda", json_str(py->ds_torch_cuda));
	json_object_set_new(ds, "torch_version", json_str(py->ds_torch_version));
	for (i = 0; i < py->n_ds_ops; i++)
		json_object_set_new(ops, py->ds_ops[i].name, json_boolean(py->ds_ops[i].installed));
	json_object_set_new(ds, "installed_ops", ops);
	json_object_set_new(o, "deepspeed", ds);
	json_object_set_new(o, "ninja_module", json_tri(py->ninja_module));
	return o;
}

static json_t *j_arch(const struct jit_arch *ar)
{
	json_t *o = json_object(), *e = json_array(), *g = json_array();
	size_t i;

	json_object_set_new(o, "torch_cuda_arch_list", json_str(ar->raw));
	json_object_set_new(o, "uses_visible_gpus", json_boolean(ar->use_gpus));
	json_object_set_new(o, "valid", json_boolean(ar->use_gpus || ar->rc == 0));
	json_object_set_new(o, "invalid_entry", json_str(ar->bad[0] ? ar->bad : NULL));
	for (i = 0; i < ar->n; i++)
		json_array_append_new(e, json_pack("{s:o, s:b, s:b, s:b}", "entry",
						   json_str(ar->entries[i].text), "valid",
						   ar->entries[i].valid, "ptx", ar->entries[i].ptx,
						   "arch_specific", ar->entries[i].arch_specific));
	json_object_set_new(o, "entries", e);
	json_object_set_new(o, "gpus_via", json_str(ar->gpus_via));
	for (i = 0; i < ar->n_gpus; i++) {
		char cc[16];
		snprintf(cc, sizeof(cc), "%d.%d", ar->gpus[i].major, ar->gpus[i].minor);
		json_array_append_new(g, json_string(cc));
	}
	json_object_set_new(o, "gpus", g);
	return o;
}

static const char *const cache_kinds[] = {"other-build",    "half-built",    "lock",
					  "lock-directory", "foreign-build", "older-than-torch"};

static json_t *j_cache(const struct jit_cache *c)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	json_object_set_new(o, "root", json_str(c->root));
	json_object_set_new(o, "via", json_str(c->via));
	json_object_set_new(o, "exists", json_tri(c->exists));
	json_object_set_new(o, "active", json_str(c->active));
	json_object_set_new(o, "builds", json_integer((json_int_t)c->n_builds));
	for (i = 0; i < c->n; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o}", "kind",
						   cache_kinds[c->items[i].kind], "path",
						   json_str(c->items[i].path), "detail",
						   json_str(c->items[i].detail), "age_seconds",
						   json_i64(c->items[i].age_s)));
	json_object_set_new(o, "items", a);
	json_object_set_new(o, "truncated", json_boolean(c->truncated));
	return o;
}

static json_t *j_ops(const struct jit_ops *ops)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < ops->n; i++) {
		const struct jit_op_row *r = &ops->rows[i];
		json_array_append_new(a,
				      json_pack("{s:o, s:o, s:s, s:o, s:o, s:b}", "name",
						json_str(r->name), "builder", json_str(r->builder),
						"state", jit_op_state_name(r->state), "reason_id",
						json_str(r->reason_id), "reason",
						json_str(r->reason), "selected", r->selected));
	}
	return a;
}

static json_t *j_smoke(const struct jit_smoke *s)
{
	static const char *const kinds[] = {"header",  "compiler",  "arch",
					    "library", "not-found", "error"};
	json_t *o, *d;
	size_t i;

	if (!s || !s->ran)
		return json_null();
	o = json_object();
	d = json_array();
	json_object_set_new(o, "status", json_str(s->status));
	json_object_set_new(o, "stage", json_str(s->stage));
	json_object_set_new(o, "detail", json_str(s->detail));
	json_object_set_new(o, "compile_ms", json_integer(s->compile_ms));
	json_object_set_new(o, "link_ms", json_integer(s->link_ms));
	json_object_set_new(o, "load_ms", json_integer(s->load_ms));
	json_object_set_new(o, "compile_command", json_str(s->compile_cmd));
	json_object_set_new(o, "link_command", json_str(s->link_cmd));
	json_object_set_new(o, "arch_flags", json_str(s->arch_flags));
	json_object_set_new(o, "arch_note", json_str(s->arch_note));
	json_object_set_new(o, "torch_headers", json_boolean(s->with_torch_headers));
	json_object_set_new(o, "loaded", json_tri(s->loaded));
	json_object_set_new(o, "kernel_ran", json_tri(s->kernel_ran));
	json_object_set_new(o, "versions", json_str(s->versions));
	json_object_set_new(o, "tmpdir", json_str(s->tmpdir));
	json_object_set_new(o, "removed", json_tri(s->cleaned));
	json_object_set_new(o, "log", json_str(s->log));
	for (i = 0; i < s->n_diags; i++)
		json_array_append_new(d,
				      json_pack("{s:s, s:o, s:o}", "kind", kinds[s->diags[i].kind],
						"subject", json_str(s->diags[i].subject), "line",
						json_str(s->diags[i].line)));
	json_object_set_new(o, "diagnostics", d);
	return o;
}

json_t *jit_json(const struct jit_report *r)
{
	const struct cd_jit_facts *jf = r->jf;
	json_t *root = json_report(r->f, r->fs, "jit"), *o = json_object();

	json_object_set_new(o, "toolkit", j_toolkit(jf));
	json_object_set_new(o, "host_compiler", j_compiler(jf, &jf->host, 0));
	json_object_set_new(o, "cxx_compiler", j_compiler(jf, &jf->cxx, 1));
	json_object_set_new(o, "cudahostcxx", json_str(jf->env.cudahostcxx));
	json_object_set_new(o, "ninja",
			    json_pack("{s:o, s:o}", "path", json_str(jf->ninja.path), "env_bin",
				      json_str(jf->ninja.env_bin)));
	json_object_set_new(o, "python", j_python(&jf->py));
	json_object_set_new(o, "arch", j_arch(&jf->arch));
	json_object_set_new(o, "cutlass",
			    json_pack("{s:o, s:o}", "ok", json_tri(jf->cutlass_ok), "note",
				      json_str(jf->cutlass_note)));
	json_object_set_new(o, "cache", j_cache(&jf->cache));
	json_object_set_new(o, "ops", j_ops(r->ops));
	json_object_set_new(o, "smoke", j_smoke(r->smoke));
	json_object_set_new(root, "jit", o);
	return root;
}
