/* probe_json: the JSON report of `cuda-doctor probe` (schema
 * cuda-doctor.probe/1; every key is documented in docs/probe.md). Unknown is
 * null; keys are emitted in a fixed order; the only numbers that change from
 * run to run are timings, bandwidths and memory. */
#include <string.h>

#include "facts/live.h"
#include "kb/xid.h"
#include "report/probe_render.h"

static void set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

static json_t *j_step(const struct cd_live_step *s)
{
	json_t *o = json_object();

	set(o, "result", json_string(live_result_name(s->result)));
	set(o, "rc", json_i64(s->rc));
	set(o, "rc_name", json_str(s->rc_name));
	set(o, "error", json_str(s->error));
	set(o, "call", json_str(s->call));
	set(o, "us", json_i64(s->us));
	set(o, "signal", json_i64(s->signal));
	return o;
}

static json_t *j_cc(const struct cd_live_device *d)
{
	char s[48];

	if (d->cc_major == CD_UNK || d->cc_minor == CD_UNK)
		return json_null();
	snprintf(s, sizeof(s), "%lld.%lld", (long long)d->cc_major, (long long)d->cc_minor);
	return json_string(s);
}

static json_t *j_measure(const struct cd_live_device *d)
{
	json_t *o = json_object();

	set(o, "alloc_bytes", json_i64(d->alloc_bytes));
	set(o, "jit_wall_us", json_i64(d->jit_wall_us));
	set(o, "kernel_round_trip_us", json_i64(d->kernel_rtt_us));
	set(o, "fill_kernel_us", json_i64(d->launch_us));
	set(o, "h2d_bytes_per_s", json_i64(d->h2d_bps));
	set(o, "d2h_bytes_per_s", json_i64(d->d2h_bps));
	set(o, "memtest_bytes", json_i64(d->memtest_bytes));
	set(o, "memtest_bytes_per_s", json_i64(d->memtest_bps));
	set(o, "memtest_errors", json_i64(d->memtest_errors));
	set(o, "compute_threads", json_i64(d->compute_threads));
	set(o, "compute_iterations", json_i64(d->compute_iters));
	set(o, "compute_us", json_i64(d->compute_us));
	return o;
}

static json_t *j_device(const struct cd_live_device *d)
{
	json_t *o = json_object(), *steps = json_object(), *mig = json_null();
	int k;

	set(o, "label", json_str(d->label));
	set(o, "ordinal", json_i64(d->ordinal));
	set(o, "uuid", json_str(d->uuid));
	set(o, "cuda_visible_devices", json_str(d->cvd));
	set(o, "nvml_index", json_i64(d->nvml_index));
	if (d->is_mig) {
		mig = json_object();
		set(mig, "gpu_instance", json_i64(d->gi));
		set(mig, "compute_instance", json_i64(d->ci));
	}
	set(o, "mig", mig);
	set(o, "name", json_str(d->name));
	set(o, "cuda_uuid", json_str(d->cuda_uuid));
	set(o, "pci_bus_id", json_str(d->pci_bus_id));
	set(o, "compute_capability", j_cc(d));
	set(o, "sm_count", json_i64(d->sm_count));
	set(o, "clock_khz", json_i64(d->clock_khz));
	set(o, "memory_clock_khz", json_i64(d->mem_clock_khz));
	set(o, "memory_bus_width_bits", json_i64(d->bus_width_bits));
	set(o, "compute_mode", json_i64(d->compute_mode));
	set(o, "ecc_enabled", json_i64(d->ecc_enabled));
	set(o, "memory_total_bytes", json_i64(d->total_bytes));
	set(o, "memory_free_bytes", json_i64(d->free_bytes));
	set(o, "libcuda", json_str(d->lib_path));
	set(o, "absent_symbols", json_strv(d->absent, d->n_absent, d->lib_path != NULL));
	set(o, "result", json_string(live_result_name(d->result)));
	set(o, "wall_us", json_i64(d->wall_us));
	set(o, "killed_at_timeout", json_boolean(d->killed_at_timeout));
	for (k = 0; k < CD_LSTEP_N; k++)
		set(steps, live_step_name((enum cd_live_step_id)k), j_step(&d->steps[k]));
	set(o, "steps", steps);
	set(o, "measurements", j_measure(d));
	set(o, "jit_log", json_strv(d->jit_log, d->n_jit_log, 1));
	return o;
}

static json_t *j_mig(const struct cd_live_mig *m)
{
	json_t *o = json_object();

	set(o, "uuid", json_str(m->uuid));
	set(o, "name", json_str(m->name));
	set(o, "gpu_instance", json_i64(m->gi));
	set(o, "compute_instance", json_i64(m->ci));
	set(o, "memory_bytes", json_i64(m->memory_bytes));
	return o;
}

static json_t *j_gpu(const struct cd_live_gpu *g)
{
	json_t *o = json_object(), *migs = json_array();
	const struct xid_recovery *r =
		g->recovery_action == CD_UNK ? NULL : xid_recovery_find(g->recovery_action);
	size_t i;

	set(o, "index", json_i64(g->index));
	set(o, "uuid", json_str(g->uuid));
	set(o, "name", json_str(g->name));
	set(o, "pci_bus_id", json_str(g->pci_bus_id));
	set(o, "mig_enabled", json_tri(g->mig_enabled));
	for (i = 0; i < g->n_mig; i++)
		json_array_append_new(migs, j_mig(&g->migs[i]));
	set(o, "mig_instances", migs);
	set(o, "recovery_action", json_i64(g->recovery_action));
	set(o, "recovery_action_name", json_str(r ? r->name : NULL));
	set(o, "retired_pages_sbe", json_i64(g->retired_sbe));
	set(o, "retired_pages_dbe", json_i64(g->retired_dbe));
	set(o, "retired_pages_pending", json_tri(g->retired_pending));
	set(o, "remapped_rows_correctable", json_i64(g->remap_corr));
	set(o, "remapped_rows_uncorrectable", json_i64(g->remap_unc));
	set(o, "row_remap_pending", json_tri(g->remap_pending));
	set(o, "row_remap_failure", json_tri(g->remap_failure));
	return o;
}

static json_t *j_peers(const struct cd_live_peers *p)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	set(o, "child", j_step(&p->step));
	for (i = 0; i < p->n; i++) {
		const struct cd_live_peer *x = &p->pairs[i];
		json_t *e = json_object();
		set(e, "from", json_integer((json_int_t)x->from));
		set(e, "to", json_integer((json_int_t)x->to));
		set(e, "access", json_tri(x->access));
		set(e, "performance_rank", json_i64(x->perf_rank));
		set(e, "native_atomics", json_tri(x->atomics));
		set(e, "copy", j_step(&x->copy));
		set(e, "bytes_per_s", json_i64(x->bps));
		json_array_append_new(a, e);
	}
	set(o, "pairs", a);
	return o;
}

static json_t *j_nccl(const struct cd_live_nccl *n)
{
	json_t *o = json_object();

	set(o, "requested", json_boolean(n->requested));
	set(o, "path", json_str(n->path));
	set(o, "source", json_str(n->source));
	set(o, "version", json_str(n->version));
	set(o, "version_code", json_i64(n->version_code));
	set(o, "load", j_step(&n->load));
	set(o, "init", j_step(&n->init));
	set(o, "allreduce", j_step(&n->allreduce));
	set(o, "ranks", json_i64(n->ranks));
	set(o, "count", json_i64(n->count));
	set(o, "allreduce_us", json_i64(n->allreduce_us));
	set(o, "bus_bytes_per_s", json_i64(n->bus_bps));
	return o;
}

static json_t *j_xids(const struct cd_live_xids *x)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	set(o, "source", json_str(x->source));
	set(o, "readable", json_boolean(x->readable));
	set(o, "error", json_str(x->error));
	set(o, "truncated", json_boolean(x->truncated));
	for (i = 0; i < x->n; i++) {
		const struct cd_live_xid *e = &x->items[i];
		const struct xid_row *r = xid_find(e->xid);
		json_t *v = json_object();
		set(v, "xid", json_i64(e->xid));
		set(v, "name", json_str(r ? r->name : NULL));
		set(v, "pci", json_str(e->pci));
		set(v, "gpu", json_i64(e->gpu));
		set(v, "ts_us", json_i64(e->ts_us));
		set(v, "during_probe", json_boolean(e->during_probe));
		set(v, "text", json_str(e->text));
		set(v, "k8s_device_plugin", json_str(r ? r->k8s : NULL));
		set(v, "dcgm_health", json_str(r ? r->dcgm : NULL));
		set(v, "eks_node_agent", json_str(r ? r->eks : NULL));
		json_array_append_new(a, v);
	}
	set(o, "events", a);
	return o;
}

static json_t *j_driver(const struct cd_facts *f)
{
	json_t *o = json_object();

	set(o, "version", json_str(f->driver.version));
	set(o, "cuda_version", json_str(f->driver.cuda_version));
	set(o, "nvml_status", json_string(probe_status_name(f->driver.nvml.status)));
	set(o, "cuda_status", json_string(probe_status_name(f->driver.cuda.status)));
	set(o, "libcuda",
	    json_str(f->driver.cuda.path ? f->driver.cuda.path : f->driver.cuda.requested));
	set(o, "gpu_count", json_i64(f->driver.gpu_count));
	return o;
}

void probe_counts(const struct cd_facts *f, size_t counts[6])
{
	size_t i;

	memset(counts, 0, 6 * sizeof(*counts));
	for (i = 0; f->live && i < f->live->n_devices; i++)
		if ((unsigned)f->live->devices[i].result < 6)
			counts[f->live->devices[i].result]++;
}

static json_t *j_summary(const struct cd_facts *f)
{
	json_t *o = json_object();
	size_t c[6];
	int r;

	probe_counts(f, c);
	set(o, "devices", json_integer((json_int_t)f->live->n_devices));
	for (r = CD_LIVE_NOT_RUN; r <= CD_LIVE_CRASHED; r++)
		set(o, live_result_name((enum cd_live_result)r), json_integer((json_int_t)c[r]));
	return o;
}

json_t *probe_json(const struct cd_facts *f, const struct cd_findings *fs)
{
	const struct cd_live_facts *lf = f->live;
	json_t *o = json_object(), *tool, *devs = json_array(), *gpus = json_array();
	size_t i;

	if (!o || !lf)
		return o;
	set(o, "schema", json_string(CD_PROBE_SCHEMA));
	tool = json_pack("{s:s, s:s, s:s}", "name", "cuda-doctor", "version", CD_VERSION, "command",
			 "probe");
	set(o, "tool", tool);
	set(o, "hostname", json_str(f->host.hostname));
	set(o, "mode", json_string(lf->full ? "full" : "quick"));
	set(o, "timeout_ms", json_i64(lf->timeout_ms));
	set(o, "timed_out", json_boolean(lf->timed_out));
	set(o, "wall_us", json_i64(lf->wall_us));
	set(o, "peak_rss_kb", json_i64(lf->peak_rss_kb));
	set(o, "cuda_visible_devices", json_str(lf->cvd));
	set(o, "cuda_visible_devices_note", json_str(lf->cvd_note));
	set(o, "devices_option", json_str(lf->devices_opt));
	set(o, "enumerated_by", json_str(lf->enumerated_by));
	set(o, "driver", j_driver(f));
	set(o, "nvml", j_step(&lf->nvml));
	set(o, "enumerate",
	    lf->enumerated_by && !strcmp(lf->enumerated_by, "cuda") ? j_step(&lf->enumerate)
								    : json_null());
	set(o, "cuda_device_count", json_i64(lf->cuda_count));
	for (i = 0; i < lf->n_devices; i++)
		json_array_append_new(devs, j_device(&lf->devices[i]));
	set(o, "devices", devs);
	for (i = 0; i < lf->n_gpus; i++)
		json_array_append_new(gpus, j_gpu(&lf->gpus[i]));
	set(o, "gpus", gpus);
	set(o, "peers", j_peers(&lf->peers));
	set(o, "nccl", j_nccl(&lf->nccl));
	set(o, "xid", j_xids(&lf->xids));
	set(o, "summary", j_summary(f));
	set(o, "findings", json_findings(fs));
	return o;
}
