/* json: the JSON report (schema cuda-doctor.report/1, documented key by key in
 * docs/json.md). Keys are emitted in a fixed order; arrays are in the order
 * the probes sorted them, so output is deterministic. */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "format/fatbin.h"
#include "report/fleet.h"
#include "report/render.h"

/* Copy s, replacing each byte that does not start a valid UTF-8 sequence
 * with U+FFFD, so jansson accepts it. */
static json_t *repair_utf8(const char *s)
{
	struct cd_buf b;
	const unsigned char *p = (const unsigned char *)s;
	json_t *j;
	int rc = 0;

	buf_init(&b, 0);
	while (*p && !rc) {
		size_t n = 0, k;
		if (*p < 0x80)
			n = 1;
		else if ((*p & 0xE0) == 0xC0 && *p >= 0xC2)
			n = 2;
		else if ((*p & 0xF0) == 0xE0)
			n = 3;
		else if ((*p & 0xF8) == 0xF0 && *p <= 0xF4)
			n = 4;
		for (k = 1; k < n; k++)
			if ((p[k] & 0xC0) != 0x80)
				n = 0;
		if (n > 1) { /* overlong / surrogate: jansson rejects it */
			json_t *ok = json_stringn((const char *)p, n);
			if (!ok)
				n = 0;
			json_decref(ok);
		}
		if (n) {
			rc = buf_append(&b, p, n);
			p += n;
		} else {
			rc = buf_puts(&b, "\xEF\xBF\xBD");
			p++;
		}
	}
	j = rc ? NULL : json_string(b.p ? b.p : "");
	buf_free(&b);
	return j;
}

json_t *json_str(const char *s)
{
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	return j ? j : repair_utf8(s);
}

json_t *json_i64(int64_t v)
{
	return v == CD_UNK ? json_null() : json_integer((json_int_t)v);
}

json_t *json_tri(enum cd_tri t)
{
	return t == CD_TRI_UNKNOWN ? json_null() : json_boolean(t == CD_TRI_YES);
}

json_t *json_strv(const char *const *v, size_t n, int known)
{
	json_t *a;
	size_t i;

	if (!known)
		return json_null();
	a = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_str(v[i]));
	return a;
}

json_t *json_arch_names(int kind, const uint32_t *keys, size_t n)
{
	json_t *a = json_array();
	char name[32];
	size_t i;

	for (i = 0; i < n; i++) {
		fatbin_arch_name(kind, keys[i], name, sizeof(name));
		json_array_append_new(a, json_string(name));
	}
	return a;
}

static json_t *j_tool(const struct cd_facts *f, const char *command)
{
	return json_pack("{s:s, s:s, s:s, s:o}", "name", "cuda-doctor", "version", CD_VERSION,
			 "command", command, "root", json_str(f->root.is_host ? "/" : f->root.dir));
}

static json_t *j_host(const struct cd_host_facts *h)
{
	json_t *o = json_object();

	json_object_set_new(o, "hostname", json_str(h->hostname));
	json_object_set_new(o, "os_id", json_str(h->os_id));
	json_object_set_new(o, "os_version", json_str(h->os_version));
	json_object_set_new(o, "os_pretty_name", json_str(h->os_pretty));
	json_object_set_new(o, "kernel", json_str(h->kernel));
	json_object_set_new(o, "arch", json_str(h->arch));
	json_object_set_new(o, "glibc_version", json_str(h->glibc_version));
	json_object_set_new(o, "dev_nodes",
			    json_strv(h->dev_nodes, h->n_dev_nodes, h->dev_nodes_known));
	json_object_set_new(o, "shm_size_bytes", json_i64(h->shm_size_bytes));
	return o;
}

static json_t *j_lib(const struct cd_driver_lib *l)
{
	json_t *o = json_object();

	json_object_set_new(o, "requested", json_str(l->requested));
	json_object_set_new(o, "path", json_str(l->path));
	json_object_set_new(o, "status", json_string(probe_status_name(l->status)));
	json_object_set_new(o, "rc", json_i64(l->rc));
	json_object_set_new(o, "error", json_str(l->error));
	json_object_set_new(o, "is_stub", json_tri(l->is_stub));
	json_object_set_new(o, "loaded_as", json_str(l->loaded_as));
	json_object_set_new(o, "file_version", json_str(l->file_version));
	json_object_set_new(o, "stage", json_str(l->stage));
	json_object_set_new(o, "absent_symbols", json_strv(l->absent, l->n_absent, 1));
	return o;
}

static json_t *j_driver(const struct cd_driver_facts *d)
{
	json_t *o = json_object();

	json_object_set_new(o, "status", json_string(probe_status_name(d->status)));
	json_object_set_new(o, "version", json_str(d->version));
	json_object_set_new(o, "cuda_version", json_str(d->cuda_version));
	json_object_set_new(o, "cuda_version_int", json_i64(d->cuda_version_int));
	json_object_set_new(o, "nvml_version", json_str(d->nvml_version));
	json_object_set_new(o, "kernel_module_version", json_str(d->kernel_module_version));
	json_object_set_new(o, "nvml", j_lib(&d->nvml));
	json_object_set_new(o, "cuda", j_lib(&d->cuda));
	json_object_set_new(o, "timeout_ms", json_i64(d->timeout_ms));
	json_object_set_new(o, "signal", json_i64(d->signal));
	json_object_set_new(o, "version_source", json_str(d->version_source));
	json_object_set_new(o, "cuda_version_source", json_str(d->cuda_version_source));
	json_object_set_new(o, "kernel_module_type", json_str(d->kernel_module_type));
	json_object_set_new(o, "gpu_count", json_i64(d->gpu_count));
	return o;
}

static json_t *j_gpu(const struct cd_gpu *g)
{
	json_t *o = json_object();

	json_object_set_new(o, "index", json_i64(g->index));
	json_object_set_new(o, "name", json_str(g->name));
	json_object_set_new(o, "uuid", json_str(g->uuid));
	json_object_set_new(o, "pci_bus_id", json_str(g->pci_bus_id));
	json_object_set_new(o, "compute_capability", json_str(g->compute_capability));
	json_object_set_new(o, "memory_total_bytes", json_i64(g->memory_total_bytes));
	json_object_set_new(o, "memory_free_bytes", json_i64(g->memory_free_bytes));
	json_object_set_new(o, "memory_used_bytes", json_i64(g->memory_used_bytes));
	json_object_set_new(o, "memory_reserved_bytes", json_i64(g->memory_reserved_bytes));
	json_object_set_new(o, "mig_mode", json_str(g->mig_mode));
	json_object_set_new(o, "persistence_mode", json_str(g->persistence_mode));
	json_object_set_new(o, "compute_mode", json_str(g->compute_mode));
	json_object_set_new(o, "ecc_mode", json_str(g->ecc_mode));
	json_object_set_new(o, "ecc_volatile_uncorrected", json_i64(g->ecc_volatile_uncorrected));
	json_object_set_new(o, "ecc_aggregate_uncorrected", json_i64(g->ecc_aggregate_uncorrected));
	json_object_set_new(o, "retired_pages_pending", json_tri(g->retired_pages_pending));
	json_object_set_new(o, "row_remap_pending", json_tri(g->row_remap_pending));
	json_object_set_new(o, "row_remap_failure", json_tri(g->row_remap_failure));
	json_object_set_new(o, "error", json_str(g->error));
	return o;
}

static json_t *j_gpus(const struct cd_facts *f)
{
	json_t *a;
	size_t i;

	if (!f->gpus_known)
		return json_null();
	a = json_array();
	for (i = 0; i < f->n_gpus; i++)
		json_array_append_new(a, j_gpu(&f->gpus[i]));
	return a;
}

static json_t *j_toolkit_item(const struct cd_toolkit *t, int selected)
{
	json_t *o = json_object(), *h = json_array(), *missing = json_array();
	size_t i;

	json_object_set_new(o, "root", json_str(t->root));
	json_object_set_new(o, "found_via", json_str(t->found_via));
	json_object_set_new(o, "kind", json_str(t->kind));
	json_object_set_new(o, "version", json_str(t->version));
	json_object_set_new(o, "version_source", json_str(t->version_source));
	json_object_set_new(o, "nvcc_path", json_str(t->nvcc_path));
	json_object_set_new(o, "nvcc_version", json_str(t->nvcc_version));
	json_object_set_new(o, "selected", json_boolean(selected));
	json_object_set_new(o, "exists", json_tri(t->exists));
	json_object_set_new(o, "realpath", json_str(t->realpath));
	json_object_set_new(o, "nvcc_target", json_str(t->nvcc_target));
	for (i = 0; i < t->n_headers; i++) {
		const struct cd_header *hd = &t->headers[i];
		if (!hd->listed) /* the files only jit's ops need: in the jit report */
			continue;
		json_array_append_new(h,
				      json_pack("{s:o, s:o, s:b, s:o}", "name", json_str(hd->name),
						"present", json_tri(hd->present), "required",
						hd->required, "path", json_str(hd->path)));
		json_object_set_new(json_array_get(h, json_array_size(h) - 1), "scope",
				    json_str(hd->scope));
		if (hd->present == CD_TRI_NO)
			json_array_append_new(missing, json_str(hd->name));
	}
	json_object_set_new(o, "headers", h);
	json_object_set_new(o, "headers_missing", missing);
	return o;
}

static json_t *j_toolkit(const struct cd_toolkit_facts *t)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	json_object_set_new(o, "cuda_home", json_str(t->cuda_home));
	json_object_set_new(o, "nvcc_version", json_str(t->nvcc_version));
	json_object_set_new(o, "selected_reason", json_str(t->selected_reason));
	for (i = 0; i < t->n; i++)
		json_array_append_new(a, j_toolkit_item(&t->items[i], (int64_t)i == t->selected));
	json_object_set_new(o, "installations", a);
	return o;
}

static json_t *j_env(const struct cd_env_facts *e)
{
	json_t *o = json_object(), *vars = json_object(), *ld = json_array();
	size_t i, k;

	for (i = 0; i < e->n_vars; i++)
		json_object_set_new(vars, e->vars[i].name, json_str(e->vars[i].value));
	json_object_set_new(o, "variables", vars);
	for (i = 0; i < e->n_ld_library_path; i++) {
		const struct cd_ldpath_entry *l = &e->ld_library_path[i];
		json_t *majors = json_array();
		for (k = 0; k < l->n_majors; k++)
			json_array_append_new(majors, json_integer(l->cuda_majors[k]));
		if (!l->libs) { /* the directory was not read: its contents are unknown */
			json_decref(majors);
			majors = json_null();
		}
		json_array_append_new(ld,
				      json_pack("{s:o, s:o, s:o, s:o}", "path", json_str(l->path),
						"exists", json_tri(l->exists), "cuda_libraries",
						json_strv(l->libs, l->n_libs, l->libs != NULL),
						"cuda_majors", majors));
	}
	json_object_set_new(o, "ld_library_path", e->ld_library_path_set ? ld : json_null());
	if (!e->ld_library_path_set)
		json_decref(ld);
	json_object_set_new(o, "ld_library_path_empty_entries",
			    json_integer((json_int_t)e->n_ld_library_path_empty));
	json_object_set_new(o, "ld_library_path_total_entries",
			    json_integer((json_int_t)e->n_ld_library_path_total));
	json_object_set_new(o, "ld_library_path_duplicate_entries",
			    json_integer((json_int_t)e->n_ld_library_path_duplicate));
	json_object_set_new(o, "ld_library_path_truncated",
			    json_boolean(e->ld_library_path_truncated));
	{
		json_t *tr = json_array();
		for (i = 0; i < e->n_vars; i++)
			if (e->vars[i].truncated)
				json_array_append_new(tr, json_str(e->vars[i].name));
		json_object_set_new(o, "truncated_variables", tr);
	}
	return o;
}

static json_t *j_container(const struct cd_container_facts *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "kind", json_str(c->kind));
	json_object_set_new(o, "evidence", json_str(c->evidence));
	json_object_set_new(o, "nvidia_require_cuda", json_str(c->nvidia_require_cuda));
	json_object_set_new(o, "nvidia_visible_devices", json_str(c->nvidia_visible_devices));
	json_object_set_new(o, "nvidia_driver_capabilities",
			    json_str(c->nvidia_driver_capabilities));
	return o;
}

/* The image under --root judged against this host: only with check
 * --host-driver or --image-config (other reports have no "image" key). */
static json_t *j_lib_list(const struct cd_image_lib *l, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "path", json_str(l[i].path));
		json_object_set_new(o, "version", json_str(l[i].version));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *j_image(const struct cd_image_facts *im)
{
	json_t *o = json_object(), *v = json_object();
	size_t i;

	json_object_set_new(o, "host_driver", json_boolean(im->host_driver));
	json_object_set_new(o, "config", json_str(im->config));
	for (i = 0; i < im->n_vars; i++)
		json_object_set_new(v, im->vars[i].name, json_str(im->vars[i].value));
	json_object_set_new(o, "variables", im->config ? v : (json_decref(v), json_null()));
	json_object_set_new(o, "libcuda", j_lib_list(im->libcuda, im->n_libcuda));
	json_object_set_new(o, "compat", j_lib_list(im->compat, im->n_compat));
	json_object_set_new(o, "compat_forced", json_str(im->compat_forced));
	json_object_set_new(o, "compat_forced_by", json_str(im->compat_forced_by));
	return o;
}

json_t *json_findings(const struct cd_findings *fs)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_str(x->id));
		json_object_set_new(o, "severity", json_string(severity_name(x->severity)));
		json_object_set_new(o, "section", json_str(x->section));
		json_object_set_new(o, "title", json_str(x->title));
		json_object_set_new(o, "detail", json_str(x->detail));
		json_object_set_new(o, "evidence", json_strv(x->evidence, x->n_evidence, 1));
		json_object_set_new(o, "fix", json_strv(x->fix, x->n_fix, 1));
		if (x->line) { /* only findings of a file have a place (dockerfile, compose) */
			json_t *l = json_object();
			json_object_set_new(l, "file", json_str(x->file));
			json_object_set_new(l, "line", json_integer(x->line));
			json_object_set_new(l, "end_line", json_integer(x->end_line));
			json_object_set_new(o, "location", l);
		}
		json_array_append_new(a, o);
	}
	return a;
}

/* Sections owned by the Python / PyTorch stack probes; null until probed. */
__attribute__((weak)) json_t *stack_json(const struct cd_facts *f, const char *key);

json_t *json_report(const struct cd_facts *f, const struct cd_findings *fs, const char *command)
{
	static const char *const stack_keys[] = {"python", "packages", "torch", "libraries",
						 "frameworks"};
	json_t *o = json_object();
	size_t i;

	json_object_set_new(o, "schema", json_string(CD_SCHEMA));
	json_object_set_new(o, "tool", j_tool(f, command));
	json_object_set_new(o, "host", j_host(&f->host));
	json_object_set_new(o, "driver", j_driver(&f->driver));
	json_object_set_new(o, "gpus", j_gpus(f));
	json_object_set_new(o, "toolkit", j_toolkit(&f->toolkit));
	for (i = 0; i < sizeof(stack_keys) / sizeof(stack_keys[0]); i++) {
		json_t *v = stack_json ? stack_json(f, stack_keys[i]) : NULL;
		json_object_set_new(o, stack_keys[i], v ? v : json_null());
	}
	json_object_set_new(o, "env", j_env(&f->env));
	json_object_set_new(o, "container", j_container(&f->container));
	if (f->image.probed)
		json_object_set_new(o, "image", j_image(&f->image));
	json_object_set_new(o, "findings", json_findings(fs));
	return o;
}

json_t *json_check_report(const struct cd_facts *f, const struct cd_findings *fs)
{
	return fleet_stamp(json_report(f, fs, "check"), f->opts && f->opts->keep_volatile);
}

int json_print(FILE *out, json_t *root)
{
	if (!root || json_dumpf(root, out, JSON_INDENT(2)) != 0)
		return CD_ENOMEM;
	fputc('\n', out);
	return 0;
}
