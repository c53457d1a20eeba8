/* gate: see gate.h. Each subject has a reader that returns the value found on
 * this machine (NULL: unknown, with the reason) and the kind of comparison the
 * policy parser gave it. */
#include "check/gate.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "core/str.h"
#include "facts/live.h"
#include "facts/libs.h"
#include "facts/stack.h"
#include "format/pep440.h"
#include "kb/gatexp.h"

struct gate_ctx {
	const struct cd_facts *f;
	const struct cd_findings *fs;
	const struct gate_policy *p;
	struct cd_arena *a;
};

static const struct cd_torch_facts *torch_of(const struct cd_facts *f)
{
	return f->stack && f->stack->torch.installed ? &f->stack->torch : NULL;
}

/* Why a subject has no value: a short "found" and a sentence. */
struct gate_missing {
	const char *found, *why;
};

static const char *lib_version(const struct gate_ctx *c, const struct cd_lib_item *lib,
			       const char *stem, struct gate_missing *m)
{
	if (lib && lib->version)
		return lib->version;
	m->found = lib ? "unknown" : "none";
	m->why = lib ? arena_printf(c->a, "the version of the %s torch loads is unknown", stem)
		     : arena_printf(c->a, "torch loads no %s", stem);
	return NULL;
}

/* The version a subject names, or NULL with m saying why. */
static const char *version_of(const struct gate_ctx *c, enum policy_subject s,
			      struct gate_missing *m)
{
	const struct cd_facts *f = c->f;
	const struct cd_libs_facts *L = libs_facts(f);
	const struct cd_torch_facts *t = torch_of(f);

	m->found = "unknown";
	m->why = "unknown";
	switch (s) {
	case POLICY_DRIVER:
	case POLICY_CUDA:
		m->why = f->driver.status == CD_PROBE_OK
				 ? "the driver did not say"
				 : arena_printf(c->a, "the driver did not answer (%s)",
						probe_status_name(f->driver.status));
		return s == POLICY_DRIVER ? f->driver.version : f->driver.cuda_version;
	case POLICY_NVCC:
		m->found = "none";
		m->why = "no CUDA toolkit is selected for extension builds";
		return f->toolkit.nvcc_version;
	case POLICY_PYTHON:
		m->found = "none";
		m->why = "no Python environment was found";
		return f->stack ? f->stack->python.version : NULL;
	default: break;
	}
	if (!t) {
		m->found = "not installed";
		m->why = "torch is not installed";
		return NULL;
	}
	switch (s) {
	case POLICY_TORCH_CUDA:
		m->found = "none";
		m->why = "torch is a CPU or ROCm build";
		return t->cuda;
	case POLICY_CUDA_RUNTIME: return lib_version(c, L ? L->cudart : NULL, "libcudart", m);
	case POLICY_CUDNN: return lib_version(c, L ? L->cudnn : NULL, "libcudnn", m);
	case POLICY_NCCL: return lib_version(c, L ? L->nccl : NULL, "libnccl", m);
	default: return NULL;
	}
}

/* The first finding of the subject's table row that check raised. */
static const char *explaining(const struct gate_ctx *c, const char *subject)
{
	const char *ids[GATEXP_IDS_MAX];
	size_t n = gatexp_ids(subject, ids, GATEXP_IDS_MAX), i;

	for (i = 0; i < n; i++)
		if (findings_find(c->fs, ids[i]))
			return findings_find(c->fs, ids[i])->id;
	return NULL;
}

static void fail(const struct gate_ctx *c, struct gate_result *r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(const struct gate_ctx *c, struct gate_result *r, const char *fmt, ...)
{
	va_list ap;

	r->status = GATE_FAIL;
	va_start(ap, fmt);
	r->why = arena_vprintf(c->a, fmt, ap);
	va_end(ap);
	r->finding = explaining(c, policy_subject_name(r->rule->subject));
}

/* Every clause of a dotted-version rule against found. */
static void judge_version(const struct gate_ctx *c, struct gate_result *r, const char *found)
{
	const struct policy_rule *q = r->rule;
	size_t i;

	for (i = 0; i < q->n_cmp; i++) {
		int ok = 0;
		if (policy_version_holds(found, &q->cmp[i], &ok)) {
			fail(c, r, "'%s' is not a version, so it cannot be compared", found);
			return;
		}
		if (!ok) {
			fail(c, r, "%s is not %s %s", found, policy_op_str(q->cmp[i].op),
			     q->cmp[i].value);
			return;
		}
	}
}

static int num_holds(uint64_t v, const struct policy_cmp *k)
{
	switch (k->op) {
	case POLICY_GE: return v >= k->num;
	case POLICY_GT: return v > k->num;
	case POLICY_LE: return v <= k->num;
	case POLICY_LT: return v < k->num;
	case POLICY_EQ: return v == k->num;
	default: return v != k->num;
	}
}

static void eval_version(const struct gate_ctx *c, struct gate_result *r)
{
	struct gate_missing m;
	const char *v = version_of(c, r->rule->subject, &m);

	if (!v) {
		r->found = m.found;
		fail(c, r, "%s", m.why);
		return;
	}
	r->found = v;
	judge_version(c, r, v);
}

/* A PEP 440 specifier against an installed version (pre-releases count, as
 * `pip check` counts them). */
static void judge_pep440(const struct gate_ctx *c, struct gate_result *r, const char *version)
{
	struct pep440_specset set;
	struct pep440_version v;

	if (pep440_specset_parse(r->rule->spec, strlen(r->rule->spec), &set)) {
		fail(c, r, "the specifier '%s' does not parse", r->rule->spec);
		return;
	}
	if (!*r->rule->spec)
		return;
	if (pep440_parse(version, strlen(version), &v)) {
		fail(c, r, "'%s' is not a PEP 440 version, so it cannot be compared", version);
		return;
	}
	if (!pep440_specset_contains(&set, &v, PEP440_PRE_INCLUDE))
		fail(c, r, "%s does not satisfy %s", version, r->rule->spec);
}

static void eval_package(const struct gate_ctx *c, struct gate_result *r)
{
	const int torch = r->rule->subject == POLICY_TORCH;
	const char *name = torch ? "torch" : r->rule->name;
	const struct cd_package *pk = c->f->stack ? stack_find(c->f->stack, name) : NULL;
	const char *v = pk ? pk->version : NULL;

	if (torch && torch_of(c->f) && torch_of(c->f)->version)
		v = torch_of(c->f)->version; /* torch/version.py: what import torch says */
	if (!c->f->stack || !c->f->stack->packages_known) {
		r->found = "unknown";
		{
			fail(c, r, "no Python environment was scanned");
			return;
		}
	}
	if (!pk && !(torch && torch_of(c->f))) {
		r->found = "not installed";
		{
			fail(c, r, "%s is not installed", name);
			return;
		}
	}
	r->found = v ? v : "installed, version unknown";
	if (!v) {
		if (*r->rule->spec)
			fail(c, r, "the version of %s is unknown", name);
		return;
	}
	judge_pep440(c, r, v);
}

/* GPUs are unknown when NVML did not answer. */
static int gpus_unknown(const struct gate_ctx *c, struct gate_result *r)
{
	if (c->f->gpus_known)
		return 0;
	r->found = "unknown";
	fail(c, r, "the driver did not report GPUs");
	return 1;
}

static void eval_gpu_count(const struct gate_ctx *c, struct gate_result *r)
{
	size_t i;

	if (gpus_unknown(c, r))
		return;
	r->found = arena_printf(c->a, "%zu GPU%s", c->f->n_gpus, c->f->n_gpus == 1 ? "" : "s");
	for (i = 0; i < r->rule->n_cmp; i++)
		if (!num_holds(c->f->n_gpus, &r->rule->cmp[i])) {
			fail(c, r, "%zu GPU%s visible, not %s %s", c->f->n_gpus,
			     c->f->n_gpus == 1 ? "" : "s", policy_op_str(r->rule->cmp[i].op),
			     r->rule->cmp[i].value);
			return;
		}
	if (!r->rule->n_cmp && !c->f->n_gpus)
		fail(c, r, "no GPU visible");
}

/* gpu.cc and gpu.memory hold for every GPU: the first that does not names the
 * failure; found lists the distinct values. */
static void eval_gpu_each(const struct gate_ctx *c, struct gate_result *r)
{
	const int cc = r->rule->subject == POLICY_GPU_CC;
	char buf[32];
	size_t i;

	if (gpus_unknown(c, r))
		return;
	if (!c->f->n_gpus) {
		r->found = "no GPU";
		fail(c, r, "no GPU visible");
		return;
	}
	r->found = NULL;
	for (i = 0; i < c->f->n_gpus; i++) {
		const struct cd_gpu *g = &c->f->gpus[i];
		const char *v = cc ? g->compute_capability
				   : (g->memory_total_bytes == CD_UNK
					      ? NULL
					      : str_bytes(buf, sizeof(buf), g->memory_total_bytes));
		if (!r->found || (v && !strstr(r->found, v)))
			r->found = !r->found ? (v ? v : "unknown")
					     : arena_printf(c->a, "%s, %s", r->found, v);
		if (r->status == GATE_FAIL)
			continue;
		if (!v) {
			fail(c, r, "GPU %" PRId64 ": unknown", g->index);
			continue;
		}
		if (cc) {
			judge_version(c, r, v);
			if (r->status == GATE_FAIL)
				r->why =
					arena_printf(c->a, "GPU %" PRId64 ": %s", g->index, r->why);
		} else {
			size_t k;
			for (k = 0; k < r->rule->n_cmp; k++)
				if (!num_holds((uint64_t)g->memory_total_bytes, &r->rule->cmp[k])) {
					char want[32];
					str_bytes(want, sizeof(want), (int64_t)r->rule->cmp[k].num);
					fail(c, r, "GPU %" PRId64 ": %s is not %s %s (%s)",
					     g->index, v, policy_op_str(r->rule->cmp[k].op),
					     r->rule->cmp[k].value, want);
					break;
				}
		}
	}
}

/* header NAME: in the include directory of the toolkit torch would use. */
static const struct cd_header *header_in(const struct cd_toolkit *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n_headers; i++)
		if (!t->headers[i].is_lib && !strcmp(t->headers[i].name, name))
			return &t->headers[i];
	for (i = 0; i < t->n_asked; i++)
		if (!strcmp(t->asked[i].name, name))
			return &t->asked[i];
	return NULL;
}

static void eval_header(const struct gate_ctx *c, struct gate_result *r)
{
	const struct cd_toolkit_facts *tk = &c->f->toolkit;
	const struct cd_toolkit *t;
	const struct cd_header *h;

	if (tk->selected == CD_UNK || tk->selected < 0 || (size_t)tk->selected >= tk->n) {
		r->found = "no CUDA toolkit";
		fail(c, r, "no CUDA toolkit is selected for extension builds");
		return;
	}
	t = &tk->items[tk->selected];
	h = header_in(t, r->rule->name);
	if (h && h->present == CD_TRI_YES) {
		r->found = h->path ? h->path : "present";
		return;
	}
	r->found = h && h->path ? arena_printf(c->a, "only %s", h->path) : "absent";
	fail(c, r, "%s is not in %s/include", r->rule->name, t->root);
}

static int allowed(const struct gate_ctx *c, const char *id)
{
	size_t i;

	for (i = 0; i < c->p->n_allow; i++)
		if (!strcmp(c->p->allow[i], id))
			return 1;
	return 0;
}

/* no-errors / no-warnings: every finding at that severity or above that is
 * not allowed. */
static void eval_findings(const struct gate_ctx *c, struct gate_result *r)
{
	const enum cd_severity floor =
		r->rule->subject == POLICY_NO_ERRORS ? CD_SEV_ERROR : CD_SEV_WARNING;
	const char *ids = NULL, *first = NULL;
	size_t i, n = 0, n_allowed = 0;

	for (i = 0; i < c->fs->n; i++) {
		const struct cd_finding *x = c->fs->items[i];
		if (x->severity < floor)
			continue;
		if (allowed(c, x->id)) {
			n_allowed++;
			continue;
		}
		if (!ids || !strstr(ids, x->id))
			ids = ids ? arena_printf(c->a, "%s, %s", ids, x->id) : x->id;
		first = first ? first : x->id;
		n++;
	}
	if (n)
		r->found = arena_printf(c->a, "%zu %s%s: %s", n,
					floor == CD_SEV_ERROR ? "error" : "warning",
					n == 1 ? "" : "s", ids);
	else
		r->found = n_allowed ? arena_printf(c->a, "none (%zu allowed)", n_allowed) : "none";
	if (n) {
		r->status = GATE_FAIL;
		r->why = arena_printf(c->a, "check found %s", r->found);
		r->finding = first;
	}
}

/* `probe`: the quick live probe ran (cli/gate.c runs it when the policy asks
 * for it) and every device passed; the first probe-* error explains a miss. */
static void eval_probe(const struct gate_ctx *c, struct gate_result *r)
{
	const struct cd_live_facts *lf = c->f->live;
	size_t i, passed = 0;

	if (!lf) {
		r->status = GATE_FAIL;
		r->found = "not run";
		r->why = "the live probe did not run";
		return;
	}
	for (i = 0; i < lf->n_devices; i++)
		passed += lf->devices[i].result == CD_LIVE_PASSED ||
			  lf->devices[i].result == CD_LIVE_SKIPPED;
	r->found = arena_printf(c->a, "%zu of %zu device%s passed", passed, lf->n_devices,
				lf->n_devices == 1 ? "" : "s");
	if (lf->n_devices && passed == lf->n_devices)
		return;
	r->status = GATE_FAIL;
	for (i = 0; i < c->fs->n && !r->finding; i++)
		if (c->fs->items[i]->severity == CD_SEV_ERROR &&
		    (str_has_prefix(c->fs->items[i]->id, "probe-") ||
		     str_has_prefix(c->fs->items[i]->id, "driver-") ||
		     str_has_prefix(c->fs->items[i]->id, "gpu-")))
			r->finding = c->fs->items[i]->id;
	r->why = lf->n_devices ? arena_printf(c->a, "the live probe: %s", r->found)
			       : "the live probe found no device";
}

static void eval_one(const struct gate_ctx *c, struct gate_result *r)
{
	switch (r->rule->subject) {
	case POLICY_TORCH:
	case POLICY_PACKAGE: eval_package(c, r); break;
	case POLICY_GPU_COUNT: eval_gpu_count(c, r); break;
	case POLICY_GPU_CC:
	case POLICY_GPU_MEMORY: eval_gpu_each(c, r); break;
	case POLICY_HEADER: eval_header(c, r); break;
	case POLICY_NO_ERRORS:
	case POLICY_NO_WARNINGS: eval_findings(c, r); break;
	case POLICY_PROBE: eval_probe(c, r); break;
	default: eval_version(c, r); break;
	}
}

size_t gate_eval(const struct cd_facts *f, const struct cd_findings *fs,
		 const struct gate_policy *p, struct gate_result *out)
{
	struct gate_ctx c = {f, fs, p, fs->arena};
	size_t i, n = 0;

	for (i = 0; i < p->n_rules; i++) {
		if (p->rules[i].subject == POLICY_ALLOW)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].rule = &p->rules[i];
		out[n].origin = p->origins ? p->origins[i] : NULL;
		eval_one(&c, &out[n]);
		n++;
	}
	return n;
}

size_t gate_failures(const struct gate_result *r, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += r[i].status != GATE_PASS;
	return k;
}
