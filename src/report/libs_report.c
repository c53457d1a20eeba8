/* libs_report: see libs_render.h; the keys are documented in docs/json.md. */
#include <stdio.h>
#include <string.h>

#include "format/fatbin.h"
#include "probe/stack/libs.h"
#include "report/libs_render.h"

static json_t *j_copies(const struct cd_lib_copy *c, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(
			a, json_pack("{s:o, s:o, s:o, s:o}", "path", json_str(c[i].path), "version",
				     json_str(c[i].version), "version_source",
				     json_str(c[i].version_source), "owner", json_str(c[i].owner)));
	return a;
}

static json_t *j_shadow(const struct cd_lib_item *it)
{
	if (!it->intended)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:b}", "intended", json_str(it->intended),
			 "intended_version", json_str(it->intended_version), "intended_by",
			 json_str(it->intended_by), "won_by", json_str(it->shadow_by), "mixed",
			 it->mixed);
}

static json_t *j_item(const struct cd_lib_item *it)
{
	json_t *o = json_object();

	json_object_set_new(o, "soname", json_str(it->soname));
	json_object_set_new(o, "name", json_str(it->name));
	json_object_set_new(o, "path", json_str(it->path));
	json_object_set_new(o, "realpath", json_str(it->realpath));
	json_object_set_new(o, "rule", json_str(it->rule));
	json_object_set_new(o, "how", json_str(libs_how_name(it->how)));
	json_object_set_new(o, "requested_by", json_str(it->requested_by));
	json_object_set_new(o, "tag_from", json_str(it->tag_from));
	json_object_set_new(o, "when", json_str(it->when));
	json_object_set_new(o, "version", json_str(it->version));
	json_object_set_new(o, "version_source", json_str(it->version_source));
	json_object_set_new(o, "owner", json_str(it->owner));
	json_object_set_new(o, "other_copies",
			    it->cuda ? j_copies(it->copies, it->n_copies) : json_null());
	json_object_set_new(o, "shadowed", j_shadow(it));
	return o;
}

static json_t *j_missing(const struct cd_lib_missing *m)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:o}", "name", json_str(m->name),
			 "requested_by", json_str(m->requested_by), "how",
			 json_str(libs_how_name(m->how)), "error", json_str(m->error), "when",
			 json_str(m->when), "optional", m->optional, "copies",
			 j_copies(m->copies, m->n_copies));
}

static json_t *j_archset(const struct cd_archset *s)
{
	if (!s->known)
		return json_null();
	return json_pack("{s:o, s:o, s:I, s:I, s:o}", "sass",
			 json_arch_names(FATBIN_KIND_ELF, s->sass, s->n_sass), "ptx",
			 json_arch_names(FATBIN_KIND_PTX, s->ptx, s->n_ptx), "containers",
			 (json_int_t)s->containers, "containers_read", (json_int_t)s->sampled,
			 "error", json_str(s->error));
}

static json_t *j_ext(const struct cd_ext *x)
{
	json_t *o = json_object(), *abi;

	json_object_set_new(o, "path", json_str(x->path));
	json_object_set_new(o, "package", json_str(x->package));
	json_object_set_new(o, "version", json_str(x->version));
	json_object_set_new(o, "links_torch", json_boolean(x->links_torch));
	json_object_set_new(o, "archs", x->has_fatbin ? j_archset(&x->arch) : json_null());
	if (x->abi_checked) {
		abi = json_pack(
			"{s:I, s:I, s:o}", "torch_imports", (json_int_t)x->n_torch_imports,
			"missing_count", (json_int_t)x->n_missing, "missing",
			json_strv(x->missing,
				  x->n_missing < LIBS_ABI_SHOWN ? x->n_missing : LIBS_ABI_SHOWN,
				  1));
		json_object_set_new(o, "abi", abi);
	} else {
		json_object_set_new(o, "abi", json_null());
	}
	json_object_set_new(o, "error", json_str(x->error));
	return o;
}

json_t *libs_json(const struct cd_facts *f)
{
	const struct cd_libs_facts *L = libs_facts(f);
	json_t *o, *items, *miss, *ext;
	size_t i;

	if (!L || !L->torch)
		return json_null();
	o = json_object();
	items = json_array();
	miss = json_array();
	ext = json_array();
	for (i = 0; i < L->n_items; i++)
		json_array_append_new(items, j_item(&L->items[i]));
	for (i = 0; i < L->n_missing; i++)
		json_array_append_new(miss, j_missing(&L->missing[i]));
	for (i = 0; i < L->n_ext; i++)
		json_array_append_new(ext, j_ext(&L->ext[i]));
	json_object_set_new(o, "resolved_from", json_str(L->resolved_from));
	json_object_set_new(o, "program", json_str(L->program));
	json_object_set_new(o, "ld_library_path", json_str(L->ld_library_path));
	json_object_set_new(o, "ld_preload", json_str(L->ld_preload));
	json_object_set_new(o, "items", items);
	json_object_set_new(o, "not_found", miss);
	json_object_set_new(o, "truncated", json_boolean(L->truncated));
	json_object_set_new(o, "torch_cuda_library", json_str(L->torch_cuda_lib));
	json_object_set_new(o, "torch_archs", j_archset(&L->torch_arch));
	json_object_set_new(o, "extensions", ext);
	json_object_set_new(o, "extension_files_examined", json_integer((json_int_t)L->ext_files));
	json_object_set_new(o, "extensions_truncated", json_boolean(L->ext_truncated));
	json_object_set_new(o, "problem", json_str(L->problem));
	return o;
}

static json_t *j_pins(const char *const *v, size_t n)
{
	return json_strv(v, n, 1);
}

json_t *frameworks_json(const struct cd_facts *f)
{
	const struct cd_libs_facts *L = libs_facts(f);
	json_t *o, *jax = json_null(), *tf = json_null(), *pl;
	size_t i;

	if (!L)
		return json_null();
	if (L->jax.installed) {
		pl = json_array();
		for (i = 0; i < L->jax.n_plugins; i++) {
			const struct cd_jax_plugin *p = &L->jax.plugins[i];
			json_array_append_new(
				pl,
				json_pack("{s:o, s:o, s:o, s:o}", "name", json_str(p->name),
					  "version", json_str(p->version), "cuda_major",
					  p->cuda_major ? json_integer(p->cuda_major) : json_null(),
					  "nvidia_requires", j_pins(p->pins, p->n_pins)));
		}
		jax = json_pack("{s:o, s:o, s:o, s:o}", "jax", json_str(L->jax.jax), "jaxlib",
				json_str(L->jax.jaxlib), "cuda_major",
				L->jax.cuda_major ? json_integer(L->jax.cuda_major) : json_null(),
				"plugins", pl);
	}
	if (L->tf.installed)
		tf = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "package",
			       json_str(L->tf.package), "version", json_str(L->tf.version),
			       "cuda_version", json_str(L->tf.cuda_version), "cudnn_version",
			       json_str(L->tf.cudnn_version), "is_cuda_build",
			       json_tri(L->tf.is_cuda_build), "compute_capabilities",
			       L->tf.build_info ? json_strv(L->tf.caps, L->tf.n_caps, 1)
						: json_null(),
			       "nvidia_requires", j_pins(L->tf.pins, L->tf.n_pins), "build_info",
			       json_str(L->tf.build_info), "problem", json_str(L->tf.problem));
	o = json_object();
	json_object_set_new(o, "jax", jax);
	json_object_set_new(o, "tensorflow", tf);
	return o;
}

static double mb(int64_t kb)
{
	return kb == CD_UNK ? -1.0 : (double)kb / 1024.0;
}

void libs_torch_json(const struct cd_facts *f, json_t *o)
{
	const struct cd_libs_facts *L = libs_facts(f);
	const struct cd_archset *a = L ? &L->torch_arch : NULL;
	json_t *var;
	char buf[32];
	size_t i;

	json_object_set_new(o, "cudnn_version", json_str(L && L->cudnn ? L->cudnn->version : NULL));
	json_object_set_new(o, "nccl_version", json_str(L && L->nccl ? L->nccl->version : NULL));
	json_object_set_new(o, "cuda_runtime_version",
			    json_str(L && L->cudart ? L->cudart->version : NULL));
	if (!a || !a->known) {
		json_object_set_new(o, "arch_variants", json_null());
		return;
	}
	var = json_array();
	for (i = 0; i < a->n_sass; i++)
		if (a->sass[i] % 4 != FATBIN_VAR_NONE) {
			fatbin_arch_name(FATBIN_KIND_ELF, a->sass[i], buf, sizeof(buf));
			json_array_append_new(var, json_string(buf));
		}
	for (i = 0; i < a->n_ptx; i++)
		if (a->ptx[i] % 4 != FATBIN_VAR_NONE) {
			fatbin_arch_name(FATBIN_KIND_PTX, a->ptx[i], buf, sizeof(buf));
			json_array_append_new(var, json_string(buf));
		}
	json_object_set_new(o, "arch_variants", var);
}

static const char *unk(const char *s)
{
	return s ? s : "unknown";
}

static void where(const struct cd_render *r, const char *what, const struct cd_lib_item *it)
{
	if (!it)
		return;
	fprintf(r->out, "    %s %s: %s [%s]\n", what, unk(it->version),
		it->realpath ? it->realpath : it->path, it->rule ? it->rule : "?");
}

void libs_text(const struct cd_render *r, const struct cd_facts *f)
{
	const struct cd_libs_facts *L = libs_facts(f);
	const struct cd_torch_facts *t = f->stack ? &f->stack->torch : NULL;
	size_t i;

	if (!L || !L->torch || !t)
		return;
	if (L->problem)
		fprintf(r->out, "    libraries: %s\n", L->problem);
	where(r, "cuDNN", L->cudnn);
	where(r, "NCCL", L->nccl);
	where(r, "CUDA runtime", L->cudart);
	if (t->arch_list_known) {
		fprintf(r->out, "    archs:");
		for (i = 0; i < t->n_arch_list; i++)
			fprintf(r->out, " %s", t->arch_list[i]);
		fprintf(r->out, "%s\n", t->n_arch_list ? "" : " none");
	}
	if (r->verbose)
		fprintf(r->out,
			"    %zu libraries resolved, %zu not found, %zu CUDA extensions; "
			"load %.1f ms, copies %.1f ms, archs %.1f ms, extensions %.1f ms, abi %.1f "
			"ms\n",
			L->n_items, L->n_missing, L->n_ext, (double)L->us_load / 1000.0,
			(double)L->us_copies / 1000.0, (double)L->us_arch / 1000.0,
			(double)L->us_ext / 1000.0, (double)L->us_abi / 1000.0);
	if (r->verbose && L->torch)
		fprintf(r->out,
			"    peak memory after each stage (MB): load %.1f, copies %.1f, archs "
			"%.1f, "
			"extensions %.1f, abi %.1f\n",
			mb(L->kb_load), mb(L->kb_copies), mb(L->kb_arch), mb(L->kb_ext),
			mb(L->kb_abi));
}
