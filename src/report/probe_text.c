/* probe_text: the human `cuda-doctor probe` report and its Markdown form.
 * One block per device: its identity, then each step with its mark (✓ passed,
 * ✗ failed, hung or crashed, - skipped, · not run), its time and what it
 * measured; then peers, NCCL, the GPUs' recovery state, the Xid lines of the
 * kernel log, and the findings with evidence and fixes. */
#include <string.h>

#include "core/str.h"
#include "facts/live.h"
#include "kb/xid.h"
#include "report/color.h"
#include "report/probe_render.h"

static const char *u(const char *s)
{
	return s ? s : "unknown";
}

static const char *mark(const struct cd_render *r, enum cd_live_result res)
{
	switch (res) {
	case CD_LIVE_PASSED: return r->color ? C_GRN "✓" C_OFF : "✓";
	case CD_LIVE_FAILED:
	case CD_LIVE_HUNG:
	case CD_LIVE_CRASHED: return r->color ? C_RED "✗" C_OFF : "✗";
	case CD_LIVE_SKIPPED: return "-";
	default: return "·";
	}
}

/* "52.1 GB/s" (decimal gigabytes, as bandwidths are quoted) */
static const char *rate(char *b, size_t cap, int64_t bps)
{
	if (bps == CD_UNK || bps < 0)
		return "unknown";
	snprintf(b, cap, "%.1f GB/s", (double)bps / 1e9);
	return b;
}

static const char *ms(char *b, size_t cap, int64_t us)
{
	if (us == CD_UNK)
		snprintf(b, cap, "      ");
	else if (us < 10000)
		snprintf(b, cap, "%4.1f ms", (double)us / 1000.0);
	else
		snprintf(b, cap, "%4lld ms", (long long)(us / 1000));
	return b;
}

/* What a passed step measured, on its line. */
static void measured(FILE *o, const struct cd_live_device *d, int k)
{
	char a[32], b[32], c[32];

	switch (k) {
	case CD_LSTEP_LOAD: fprintf(o, "  %s", u(d->lib_path)); break;
	case CD_LSTEP_DEVICE:
		if (d->cc_major != CD_UNK)
			fprintf(o, "  sm_%lld%lld, %lld SMs, %s", (long long)d->cc_major,
				(long long)d->cc_minor, (long long)d->sm_count,
				str_bytes(a, sizeof(a), d->total_bytes));
		break;
	case CD_LSTEP_MEMINFO:
		fprintf(o, "  %s free", str_bytes(a, sizeof(a), d->free_bytes));
		break;
	case CD_LSTEP_ALLOC:
		fprintf(o, "  %s on the GPU, 2 x %s pinned",
			str_bytes(a, sizeof(a), d->alloc_bytes),
			str_bytes(b, sizeof(b), d->alloc_bytes));
		break;
	case CD_LSTEP_COPY:
		fprintf(o, "  %s written, read back, identical",
			str_bytes(a, sizeof(a), d->alloc_bytes));
		break;
	case CD_LSTEP_MODULE:
		if (d->jit_wall_us != CD_UNK)
			fprintf(o, "  PTX JIT %s", ms(a, sizeof(a), d->jit_wall_us));
		break;
	case CD_LSTEP_LAUNCH:
		fprintf(o, "  round trip %lld us, fill of %s verified", (long long)d->kernel_rtt_us,
			str_bytes(a, sizeof(a), d->alloc_bytes));
		break;
	case CD_LSTEP_BANDWIDTH:
		fprintf(o, "  host to device %s, device to host %s", rate(a, sizeof(a), d->h2d_bps),
			rate(b, sizeof(b), d->d2h_bps));
		break;
	case CD_LSTEP_MEMTEST:
		fprintf(o, "  %s, 2 patterns, %s", str_bytes(a, sizeof(a), d->memtest_bytes),
			rate(b, sizeof(b), d->memtest_bps));
		break;
	case CD_LSTEP_COMPUTE:
		fprintf(o, "  %lld threads x %lld iterations in %s, verified",
			(long long)d->compute_threads, (long long)d->compute_iters,
			ms(c, sizeof(c), d->compute_us));
		break;
	default: break;
	}
}

static void step_line(const struct cd_render *r, const struct cd_live_device *d, int k)
{
	const struct cd_live_step *s = &d->steps[k];
	FILE *o = r->out;
	char t[32];

	fprintf(o, "    %s %-9s %s", mark(r, s->result), live_step_name((enum cd_live_step_id)k),
		ms(t, sizeof(t), s->us));
	switch (s->result) {
	case CD_LIVE_PASSED: measured(o, d, k); break;
	case CD_LIVE_FAILED:
		if (s->rc != CD_UNK && s->rc != 0)
			fprintf(o, "  %s returned %s (%lld)", u(s->call),
				s->rc_name ? s->rc_name : "?", (long long)s->rc);
		if (s->error)
			fprintf(o, "%s%s", s->rc != CD_UNK && s->rc != 0 ? ": " : "  ", s->error);
		break;
	case CD_LIVE_HUNG: fprintf(o, "  hung in %s: %s", u(s->call), u(s->error)); break;
	case CD_LIVE_CRASHED: fprintf(o, "  crashed in %s: %s", u(s->call), u(s->error)); break;
	default:
		if (s->error)
			fprintf(o, "  %s", s->error);
		break;
	}
	fputc('\n', o);
}

static void device(const struct cd_render *r, const struct cd_live_device *d)
{
	const char *id = d->uuid ? d->uuid : d->cuda_uuid;
	int k;

	fprintf(r->out, "\n%s %s%s%s  %s%s%s: %s", mark(r, d->result), col(r, C_BOLD), u(d->label),
		col(r, C_OFF), d->name ? d->name : "", d->name && id ? ", " : "", id ? id : "",
		live_result_name(d->result));
	if (d->wall_us != CD_UNK)
		fprintf(r->out, " in %.3f s", (double)d->wall_us / 1e6);
	fputc('\n', r->out);
	if (r->quiet && d->result == CD_LIVE_PASSED)
		return;
	for (k = 0; k < CD_LSTEP_N; k++)
		step_line(r, d, k);
	for (k = 0; r->verbose && (size_t)k < d->n_jit_log; k++)
		fprintf(r->out, "      %sJIT: %s%s\n", col(r, C_DIM), d->jit_log[k], col(r, C_OFF));
}

static void header(const struct cd_render *r, const struct cd_facts *f)
{
	const struct cd_live_facts *lf = f->live;

	fprintf(r->out, "cuda-doctor %s probe  (%s, --timeout %.1f s)\n", CD_VERSION,
		lf->full ? "full" : "quick", (double)lf->timeout_ms / 1000.0);
	fprintf(r->out, "driver %s, CUDA %s, libcuda %s\n", u(f->driver.version),
		u(f->driver.cuda_version),
		u(f->driver.cuda.path ? f->driver.cuda.path : f->driver.cuda.requested));
	if (lf->cvd)
		fprintf(r->out, "CUDA_VISIBLE_DEVICES=%s\n", lf->cvd);
	if (lf->cvd_note)
		fprintf(r->out, "%s\n", lf->cvd_note);
	if (lf->enumerated_by && !strcmp(lf->enumerated_by, "cuda"))
		fprintf(r->out, "devices listed by CUDA itself (cuInit %s%s%s): %lld\n",
			live_result_name(lf->enumerate.result), lf->enumerate.rc_name ? ", " : "",
			lf->enumerate.rc_name ? lf->enumerate.rc_name : "",
			(long long)(lf->cuda_count == CD_UNK ? 0 : lf->cuda_count));
}

static void peers(const struct cd_render *r, const struct cd_live_facts *lf)
{
	char a[32];
	size_t i;

	fprintf(r->out, "\n%s peers: %s%s%s\n", mark(r, lf->peers.step.result),
		live_result_name(lf->peers.step.result), lf->peers.step.error ? ", " : "",
		lf->peers.step.error ? lf->peers.step.error : "");
	for (i = 0; i < lf->peers.n; i++) {
		const struct cd_live_peer *p = &lf->peers.pairs[i];
		fprintf(r->out, "    %s -> %s  access %s", u(lf->devices[p->from].label),
			u(lf->devices[p->to].label),
			p->access == CD_TRI_YES	 ? "yes"
			: p->access == CD_TRI_NO ? "no"
						 : "?");
		if (p->copy.result != CD_LIVE_NOT_RUN)
			fprintf(r->out, ", copy %s %s", live_result_name(p->copy.result),
				p->copy.result == CD_LIVE_PASSED ? rate(a, sizeof(a), p->bps)
								 : u(p->copy.error));
		fputc('\n', r->out);
	}
}

static void nccl(const struct cd_render *r, const struct cd_live_nccl *n)
{
	char a[32];
	const struct cd_live_step *w = n->allreduce.result != CD_LIVE_NOT_RUN ? &n->allreduce
				       : n->init.result != CD_LIVE_NOT_RUN    ? &n->init
									      : &n->load;

	if (!n->requested)
		return;
	fprintf(r->out, "\n%s NCCL %s (%s): %s", mark(r, w->result), u(n->version), u(n->path),
		live_result_name(w->result));
	if (w->result == CD_LIVE_PASSED)
		fprintf(r->out, ", all-reduce of %lld ints over %lld rank%s exact, bus %s",
			(long long)n->count, (long long)n->ranks, n->ranks == 1 ? "" : "s",
			rate(a, sizeof(a), n->bus_bps));
	else if (w->error)
		fprintf(r->out, ": %s", w->error);
	fputc('\n', r->out);
}

static void xids(const struct cd_render *r, const struct cd_live_xids *x)
{
	size_t i;

	if (!x->source)
		return;
	if (!x->readable) {
		fprintf(r->out, "\n? Xid: %s unreadable: %s\n", x->source, u(x->error));
		return;
	}
	fprintf(r->out, "\n%s Xid: %zu in %s since boot\n", x->n ? "!" : "✓", x->n, x->source);
	for (i = 0; i < x->n && i < 16; i++) {
		const struct xid_row *row = xid_find(x->items[i].xid);
		fprintf(r->out, "    Xid %lld (%s) at PCI %s", (long long)x->items[i].xid,
			row ? row->name : "not in cuda-doctor's table", u(x->items[i].pci));
		if (x->items[i].gpu != CD_UNK)
			fprintf(r->out, ", GPU %lld", (long long)x->items[i].gpu);
		fprintf(r->out, "%s\n", x->items[i].during_probe ? ", during this probe" : "");
	}
}

void probe_text(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs)
{
	const struct cd_live_facts *lf = f->live;
	size_t i, c[6];

	if (!lf)
		return;
	if (!r->quiet)
		header(r, f);
	for (i = 0; i < lf->n_devices; i++)
		device(r, &lf->devices[i]);
	if (!r->quiet) {
		if (lf->n_devices > 1 || lf->peers.n)
			peers(r, lf);
		nccl(r, &lf->nccl);
		xids(r, &lf->xids);
	}
	probe_counts(f, c);
	fprintf(r->out, "\n%zu device%s: %zu passed, %zu failed, %zu hung, %zu crashed%s%s\n",
		lf->n_devices, lf->n_devices == 1 ? "" : "s", c[CD_LIVE_PASSED], c[CD_LIVE_FAILED],
		c[CD_LIVE_HUNG], c[CD_LIVE_CRASHED], lf->timed_out ? "; --timeout ran out" : "",
		"");
	if (lf->wall_us != CD_UNK && !r->quiet)
		fprintf(r->out, "wall %.3f s, peak memory %.1f MB\n", (double)lf->wall_us / 1e6,
			lf->peak_rss_kb == CD_UNK ? 0.0 : (double)lf->peak_rss_kb / 1024.0);
	text_findings(r, fs);
}

/* A table cell: '|' would end it, a newline the row. */
static void md_cell(FILE *o, const char *s)
{
	for (; s && *s; s++)
		if (*s == '|')
			fputs("\\|", o);
		else
			fputc(*s == '\n' ? ' ' : *s, o);
}

static void md_device(FILE *o, const struct cd_live_device *d)
{
	char t[32];
	int k;

	fprintf(o,
		"\n### %s: %s\n\n%s %s, %s\n\n| step | result | time | detail "
		"|\n|---|---|---|---|\n",
		u(d->label), live_result_name(d->result), d->name ? d->name : "",
		u(d->uuid ? d->uuid : d->cuda_uuid), d->pci_bus_id ? d->pci_bus_id : "");
	for (k = 0; k < CD_LSTEP_N; k++) {
		const struct cd_live_step *s = &d->steps[k];
		fprintf(o, "| %s | %s | %s | ", live_step_name((enum cd_live_step_id)k),
			live_result_name(s->result),
			s->us == CD_UNK ? "" : ms(t, sizeof(t), s->us));
		md_cell(o, s->rc_name);
		fputs(s->rc_name && s->error ? ": " : "", o);
		md_cell(o, s->error);
		fputs(" |\n", o);
	}
}

void probe_markdown(const struct cd_render *r, const struct cd_facts *f,
		    const struct cd_findings *fs)
{
	const struct cd_live_facts *lf = f->live;
	size_t i;

	if (!lf)
		return;
	fprintf(r->out, "# cuda-doctor probe\n\n%s mode, --timeout %.1f s; driver %s, CUDA %s\n",
		lf->full ? "full" : "quick", (double)lf->timeout_ms / 1000.0, u(f->driver.version),
		u(f->driver.cuda_version));
	for (i = 0; i < lf->n_devices; i++)
		md_device(r->out, &lf->devices[i]);
	fprintf(r->out, "\n## Findings\n\n");
	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		size_t k;
		fprintf(r->out, "- **%s** (`%s`, %s)\n", x->title, x->id,
			severity_name(x->severity));
		for (k = 0; k < x->n_evidence; k++)
			fprintf(r->out, "  - %s\n", x->evidence[k]);
		for (k = 0; k < x->n_fix; k++)
			fprintf(r->out, "  - fix: `%s`\n", x->fix[k]);
	}
	if (!fs->n)
		fprintf(r->out, "None.\n");
}
