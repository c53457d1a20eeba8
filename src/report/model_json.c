/* model_json: the JSON report of `cuda-doctor model` (schema
 * cuda-doctor.report/1; every key is documented in docs/model.md). Unknown is
 * null; keys are emitted in a fixed order. */
#include <string.h>

#include "report/model_render.h"

static const char *source_name(enum md_source s)
{
	switch (s) {
	case MD_SRC_LOCAL: return "local";
	case MD_SRC_FILE: return "file";
	case MD_SRC_CACHE: return "cache";
	case MD_SRC_HUB: return "hub";
	default: return NULL;
	}
}

static json_t *u64(uint64_t v)
{
	return json_integer((json_int_t)(v > INT64_MAX ? INT64_MAX : v));
}

static void set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

static json_t *j_cache(const struct cd_model_facts *m)
{
	json_t *o;

	if (!m->cache_dir)
		return json_null();
	o = json_object();
	set(o, "dir", json_str(m->cache_dir));
	set(o, "variable", json_str(m->cache_var));
	set(o, "repo_dir", json_str(m->repo_dir));
	set(o, "commit", json_str(m->commit));
	set(o, "offline", json_tri(m->offline));
	set(o, "found_in", json_str(m->found_in));
	set(o, "incomplete_blobs", json_strv(m->incomplete, m->n_incomplete, 1));
	return o;
}

/* Present only when the Hub was asked (reports of cached and local models
 * keep their keys as they were). The token's source, never the token. */
static json_t *j_hub(const struct md_hub *h)
{
	json_t *o = json_object(), *files = json_array(), *dt;
	size_t i;

	set(o, "state", json_str(md_hub_state_name(h->state)));
	set(o, "endpoint", json_str(h->endpoint));
	set(o, "url", json_str(h->url));
	set(o, "commit", json_str(h->sha));
	set(o, "http_status", h->status ? json_integer(h->status) : json_null());
	set(o, "error_code", json_str(h->error_code));
	set(o, "error", json_str(h->error));
	set(o, "gated", json_str(h->gated));
	set(o, "token_source", json_str(h->token_source));
	set(o, "libcurl", json_str(h->libcurl));
	for (i = 0; i < h->n_files; i++) {
		const struct md_hub_file *x = &h->files[i];
		json_array_append_new(files,
				      json_pack("{s:o, s:o, s:o, s:o}", "name", json_str(x->name),
						"size", json_i64(x->size), "fetched_bytes",
						x->data ? u64(x->len) : json_null(), "error",
						json_str(x->error)));
	}
	set(o, "files", files);
	set(o, "download_bytes", u64(h->download_bytes));
	set(o, "api_parameters", h->api_parameters ? u64(h->api_parameters) : json_null());
	dt = json_array();
	for (i = 0; i < h->n_api_dtypes; i++)
		json_array_append_new(dt, json_pack("{s:s, s:o}", "dtype", h->api_dtypes[i].dtype,
						    "parameters", u64(h->api_dtypes[i].params)));
	set(o, "api_dtypes", dt);
	set(o, "requests", u64(h->n_requests));
	set(o, "bytes_read", u64(h->bytes_read));
	set(o, "limited", json_boolean(h->limited));
	return o;
}

static json_t *j_config(const struct md_config *c)
{
	json_t *o = json_object(), *files = json_array();
	size_t i;

	set(o, "present", json_tri(c->present));
	set(o, "error", json_str(c->error));
	set(o, "model_type", json_str(c->model_type));
	set(o, "architectures", json_strv(c->architectures, c->n_arch, c->architectures != NULL));
	set(o, "transformers_version", json_str(c->transformers_version));
	set(o, "dtype", json_str(c->dtype));
	set(o, "quant_method", json_str(c->quant_method));
	set(o, "attn_implementation", json_str(c->attn_implementation));
	set(o, "auto_map", json_strv(c->auto_map, c->n_auto_map, 1));
	for (i = 0; i < c->n_remote_files; i++)
		json_array_append_new(files,
				      json_pack("{s:o, s:o}", "file", json_str(c->remote_files[i]),
						"present", json_tri(c->remote_present[i])));
	set(o, "remote_code_files", files);
	set(o, "num_hidden_layers", json_i64(c->num_hidden_layers));
	set(o, "num_attention_heads", json_i64(c->num_attention_heads));
	set(o, "num_key_value_heads", json_i64(c->num_key_value_heads));
	set(o, "hidden_size", json_i64(c->hidden_size));
	set(o, "head_dim", json_i64(c->head_dim));
	set(o, "max_position_embeddings", json_i64(c->max_position_embeddings));
	return o;
}

static json_t *j_tf(const struct md_transformers *t)
{
	json_t *o = json_object();

	set(o, "prefix", json_str(t->prefix));
	set(o, "found_via", json_str(t->found_via));
	set(o, "site_packages", json_str(t->site_packages));
	set(o, "path", json_str(t->path));
	set(o, "version", json_str(t->version));
	set(o, "knows_model_type", json_tri(t->knows_type));
	set(o, "checked_in", json_str(t->knows_via));
	set(o, "flash_attn", json_tri(t->flash_attn));
	set(o, "flash_attn_version", json_str(t->flash_attn_version));
	set(o, "bitsandbytes", json_tri(t->bitsandbytes));
	set(o, "error", json_str(t->error));
	return o;
}

static json_t *j_gguf(const struct md_gguf *g)
{
	json_t *o;

	if (!g->file)
		return json_null();
	o = json_object();
	set(o, "file", json_str(g->file));
	set(o, "version", g->version ? json_integer(g->version) : json_null());
	set(o, "architecture", json_str(g->architecture));
	set(o, "name", json_str(g->name));
	set(o, "file_type", json_i64(g->file_type));
	set(o, "context_length", json_i64(g->context_length));
	set(o, "block_count", json_i64(g->block_count));
	set(o, "head_count", json_i64(g->head_count));
	set(o, "head_count_kv", json_i64(g->head_count_kv));
	set(o, "embedding_length", json_i64(g->embedding_length));
	set(o, "unknown_tensor_types", json_integer((json_int_t)g->n_unknown_types));
	return o;
}

static json_t *j_files(const struct md_weights *w)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < w->n_files; i++) {
		const struct md_file *f = &w->files[i];
		json_t *o = json_object();
		set(o, "name", json_str(f->name));
		set(o, "state", json_string(md_fstate_name(f->state)));
		set(o, "problem", json_str(f->problem));
		set(o, "size_bytes", json_i64(f->size));
		set(o, "blob", json_str(f->blob));
		set(o, "tensors", json_integer((json_int_t)f->n_tensors));
		set(o, "parameters", u64(f->n_params));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *j_weights(const struct md_weights *w)
{
	json_t *o = json_object(), *d = json_array();
	size_t i;

	set(o, "format", json_str(w->format));
	set(o, "index", json_str(w->index));
	set(o, "index_error", json_str(w->index_error));
	set(o, "files", j_files(w));
	set(o, "tensors", json_integer((json_int_t)w->n_tensors));
	set(o, "parameters", w->n_params || w->params_exact ? u64(w->n_params) : json_null());
	set(o, "parameters_exact", json_boolean(w->params_exact));
	set(o, "bytes_on_disk", u64(w->disk_bytes));
	for (i = 0; i < w->n_dtypes; i++)
		json_array_append_new(d, json_pack("{s:s, s:o, s:o}", "dtype", w->dtypes[i].dtype,
						   "parameters", u64(w->dtypes[i].params), "bytes",
						   u64(w->dtypes[i].bytes)));
	set(o, "dtypes", d);
	set(o, "index_missing_tensors", json_integer((json_int_t)w->n_index_missing));
	set(o, "index_extra_tensors", json_integer((json_int_t)w->n_index_extra));
	set(o, "pickle", json_boolean(w->has_pickle));
	set(o, "other_gguf_files", json_integer((json_int_t)w->n_other_gguf));
	set(o, "gguf", j_gguf(&w->gguf));
	return o;
}

static json_t *j_devices(const struct cd_model_plan *p)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < p->n_devices; i++) {
		const struct mp_device *d = &p->devices[i];
		json_t *o = json_object();
		set(o, "name", json_str(d->name));
		set(o, "gpu", json_str(d->model));
		set(o, "compute_capability", json_str(d->cc));
		set(o, "free_bytes", json_i64(d->free));
		set(o, "free_is_total", json_boolean(d->free_is_total));
		set(o, "usable_bytes", json_i64(d->usable));
		set(o, "budget_bytes", d->usable == CD_UNK ? json_null() : json_i64(d->budget));
		set(o, "placed_bytes", u64(d->assigned));
		set(o, "units", json_integer((json_int_t)d->n_units));
		set(o, "first_unit", json_str(d->first_unit));
		set(o, "last_unit", json_str(d->last_unit));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *j_memory(const struct mp_request *r, const struct cd_model_plan *p)
{
	json_t *o = json_object(), *alts = json_array();
	size_t i;

	set(o, "device", json_str(p->device));
	set(o, "device_error", json_str(p->device_error));
	set(o, "dtype", json_str(p->dtype));
	set(o, "dtype_reason", json_str(p->dtype_reason));
	set(o, "estimated", json_boolean(p->estimated));
	set(o, "partial", json_boolean(p->partial));
	set(o, "weights_bytes", u64(p->weights_bytes));
	set(o, "kv_cache_bytes", p->kv_known ? u64(p->kv_bytes) : json_null());
	set(o, "seq_len", json_i64(r->seq_len));
	set(o, "batch", r->seq_len == CD_UNK ? json_null() : json_i64(r->batch));
	set(o, "kv_note", json_str(p->kv_note));
	set(o, "overhead_bytes_per_gpu", u64(p->overhead));
	set(o, "headroom", json_real(r->headroom));
	set(o, "required_bytes", u64(p->required));
	set(o, "usable_bytes", json_i64(p->usable));
	set(o, "fits", json_tri(p->fits));
	set(o, "offload_bytes", u64(p->offload_bytes));
	set(o, "devices", j_devices(p));
	for (i = 0; i < p->n_alts; i++)
		json_array_append_new(
			alts,
			json_pack("{s:s, s:o, s:o, s:o}", "what", p->alts[i].what, "required_bytes",
				  u64(p->alts[i].required), "fits", json_tri(p->alts[i].fits),
				  "gpus",
				  p->alts[i].count ? json_integer(p->alts[i].count) : json_null()));
	set(o, "alternatives", alts);
	return o;
}

json_t *model_json(const struct cd_facts *f, const struct cd_model_facts *m,
		   const struct mp_request *r, const struct cd_model_plan *p,
		   const struct cd_findings *fs)
{
	json_t *o = json_object(), *mo = json_object();

	set(o, "schema", json_string(CD_SCHEMA));
	set(o, "tool",
	    json_pack("{s:s, s:s, s:s, s:o}", "name", "cuda-doctor", "version", CD_VERSION,
		      "command", "model", "root", json_str(f->root.is_host ? "/" : f->root.dir)));
	set(mo, "spec", json_str(m->spec));
	set(mo, "revision", json_str(m->revision));
	set(mo, "source", json_str(source_name(m->source)));
	set(mo, "path", json_str(m->dir));
	set(mo, "file", json_str(m->file));
	set(mo, "not_found", json_str(m->not_found));
	set(mo, "cache", j_cache(m));
	if (m->hub.state != MD_HUB_NOT_ASKED)
		set(mo, "hub", j_hub(&m->hub));
	set(mo, "config", j_config(&m->config));
	set(mo, "transformers", j_tf(&m->tf));
	set(mo, "tokenizer",
	    json_pack("{s:o, s:o}", "files", json_strv(m->tok.files, m->tok.n_files, 1),
		      "tokenizer_class", json_str(m->tok.tokenizer_class)));
	set(mo, "weights", j_weights(&m->w));
	set(mo, "task",
	    json_pack("{s:o, s:o}", "name", json_str(p->task), "source", json_str(p->task_source)));
	set(mo, "memory", j_memory(r, p));
	set(o, "model", mo);
	set(o, "findings", json_findings(fs));
	return o;
}
