/* arch_list: see arch_list.h. One judgement (judge) feeds the finding, the
 * blocker of jit's op table and the build-log builders. Severity
 * (docs/findings.md): error when every extension build stops (torch rejects
 * an entry with ValueError, nvcc cannot build an entry, or with no list nvcc
 * cannot build a visible GPU); warning when the build may go on but what it
 * makes runs on no GPU here, or the list cannot be judged (no GPU visible,
 * too long to parse). */
#include "check/arch_list.h"

#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "format/archlist.h"
#include "format/fatbin.h"
#include "kb/archcov.h"
#include "kb/torcharch.h"

enum kind { K_NONE, K_NO_GPU, K_GPU_NVCC, K_TOO_LONG, K_REJECTED, K_ENTRY_NVCC, K_UNCOVERED };

struct verdict {
	enum kind kind;
	enum cd_severity sev;
	const char *title;
	struct torcharch_rules *t;
	struct archlist_result *r;
	size_t gpu; /* K_GPU_NVCC, K_UNCOVERED */
	char why[96];
};

static int is_unset(const char *v)
{
	return !v || !*v || !strcmp(v, "native");
}

static int set(struct verdict *v, enum kind k, enum cd_severity sev, const char *title)
{
	v->kind = k;
	v->sev = sev;
	v->title = title;
	return title != NULL;
}

/* torch builds for the visible GPUs: none, or one nvcc cannot build for. */
static int judge_unset(const struct arch_list_input *in, struct cd_arena *a, struct verdict *v)
{
	size_t i;

	if (in->no_gpu)
		return set(v, K_NO_GPU, CD_SEV_WARNING,
			   "TORCH_CUDA_ARCH_LIST is unset and no GPU is visible: torch builds for "
			   "the visible GPUs and fails with IndexError on an empty list");
	for (i = 0; in->nvcc_version && i < in->n_gpus; i++) {
		const struct arch_list_gpu *g = &in->gpus[i];
		if (archcov_nvcc_builds(in->nvcc_major, in->nvcc_minor, g->major * 10 + g->minor,
					v->why, sizeof(v->why)) != 0)
			continue;
		v->gpu = i;
		return set(v, K_GPU_NVCC, CD_SEV_ERROR,
			   arena_printf(a, "nvcc %s cannot build for the GPU (compute %d.%d): %s",
					in->nvcc_version, g->major, g->minor, v->why));
	}
	return 0;
}

static int cc10(const struct archlist_entry *e)
{
	return e->major * 10 + e->minor;
}

/* An entry of an accepted list that nvcc cannot build. */
static int judge_nvcc(const struct arch_list_input *in, struct cd_arena *a, struct verdict *v)
{
	size_t i;

	for (i = 0; in->nvcc_version && i < v->r->n_kept; i++) {
		const struct archlist_entry *e = &v->r->entries[i];
		if (archcov_nvcc_builds(in->nvcc_major, in->nvcc_minor, cc10(e), v->why,
					sizeof(v->why)) == 0)
			return set(v, K_ENTRY_NVCC, CD_SEV_ERROR,
				   arena_printf(a,
						"nvcc %s cannot build TORCH_CUDA_ARCH_LIST entry "
						"%s: %s",
						in->nvcc_version, e->text, v->why));
	}
	return 0;
}

/* A visible GPU that no entry's SASS or PTX runs on (kb/archcov's rules). */
static int judge_cover(const struct arch_list_input *in, struct cd_arena *a, struct verdict *v)
{
	uint32_t sass[ARCHLIST_MAX_ENTRIES], ptx[ARCHLIST_MAX_ENTRIES];
	size_t i, ns = 0, np = 0;

	if (!in->gpus_known || v->r->n_kept < v->r->n_entries)
		return 0;
	for (i = 0; i < v->r->n_kept; i++) {
		const struct archlist_entry *e = &v->r->entries[i];
		uint32_t key =
			FATBIN_KEY(cc10(e), e->arch_specific ? FATBIN_VAR_A : FATBIN_VAR_NONE);
		sass[ns++] = key;
		if (e->ptx)
			ptx[np++] = key;
	}
	for (i = 0; i < in->n_gpus; i++) {
		const struct arch_list_gpu *g = &in->gpus[i];
		if (archcov_covers(sass, ns, ptx, np, g->major, g->minor, NULL) != ARCHCOV_NONE)
			continue;
		v->gpu = i;
		return set(v, K_UNCOVERED, CD_SEV_WARNING,
			   arena_printf(a,
					"TORCH_CUDA_ARCH_LIST=\"%s\" has no code for GPU %zu "
					"(compute %d.%d)",
					in->value, i, g->major, g->minor));
	}
	return 0;
}

static int judge(const struct arch_list_input *in, struct cd_arena *a, struct verdict *v)
{
	size_t len;

	memset(v, 0, sizeof(*v));
	if (is_unset(in->value))
		return in->judge_unset ? judge_unset(in, a, v) : 0;
	len = strlen(in->value);
	v->t = arena_alloc(a, sizeof(*v->t));
	v->r = arena_alloc(a, sizeof(*v->r));
	/* A torch older than the tables did not read the variable. */
	if (!v->t || !v->r || torcharch_rules(in->torch_version, v->t) != 0)
		return 0;
	if (!in->truncated)
		archlist_parse((const uint8_t *)in->value, len, &v->t->rules, v->r);
	if (in->truncated || v->r->too_long)
		return set(v, K_TOO_LONG, CD_SEV_WARNING,
			   arena_printf(a, "TORCH_CUDA_ARCH_LIST is %s%zu bytes long",
					in->truncated ? "over " : "", len));
	if (v->r->n_bad)
		return set(v, K_REJECTED, CD_SEV_ERROR,
			   arena_printf(a,
					"TORCH_CUDA_ARCH_LIST has %zu entr%s torch%s%s rejects: "
					"Unknown CUDA arch (%s)",
					v->r->n_bad, v->r->n_bad == 1 ? "y" : "ies",
					in->torch_version ? " " : "",
					in->torch_version ? in->torch_version : "",
					v->r->first_bad));
	return judge_nvcc(in, a, v) || judge_cover(in, a, v);
}

/* "9.0;8.6": the visible GPUs' compute capabilities, each once; NULL if none. */
static const char *gpu_list(const struct arch_list_input *in, struct cd_arena *a)
{
	char list[512] = "", one[16];
	size_t i, len = 0;

	for (i = 0; i < in->n_gpus; i++) {
		snprintf(one, sizeof(one), "%d.%d", in->gpus[i].major, in->gpus[i].minor);
		if (strstr(list, one) || len + strlen(one) + 2 > sizeof(list))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ";" : "",
					one);
	}
	return len ? arena_strdup(a, list) : NULL;
}

static void fix_gpus(const struct arch_list_input *in, struct cd_finding *x, struct cd_arena *a)
{
	const char *l = gpu_list(in, a);

	if (l)
		finding_fix(x, a, "export TORCH_CUDA_ARCH_LIST=\"%s\"", l);
	else
		finding_fix(x, a,
			    "export TORCH_CUDA_ARCH_LIST=\"9.0\"   # the compute capability of the "
			    "GPUs that will run it (9.0 = H100/H200)");
}

static void fix_unset(struct cd_finding *x, struct cd_arena *a)
{
	finding_fix(x, a, "unset TORCH_CUDA_ARCH_LIST   # torch then builds for the GPUs it sees");
}

/* Why torch rejects one entry, from the parse and from the other releases. */
static const char *reason(const struct verdict *v, const struct archlist_entry *e,
			  struct cd_arena *a)
{
	struct torcharch_span s;
	char base[ARCHLIST_ENTRY_MAX];

	switch (e->kind) {
	case ARCHLIST_EMPTY: return "an empty entry (\";;\", a trailing ';' or a doubled blank)";
	case ARCHLIST_FAMILY:
		return "a family target: nvcc accepts it, torch's cpp_extension does not";
	case ARCHLIST_SPELLING: return "torch spells it differently";
	default: break;
	}
	archlist_base(e->text, base, sizeof(base));
	if (torcharch_span(base, &s) != 0)
		return "not an architecture torch's cpp_extension knows";
	if (e->kind == ARCHLIST_RENAMED || *s.last)
		return arena_printf(a, "accepted by torch %s-%s only%s%s", s.first, s.last,
				    *s.notes ? "; " : "", s.notes);
	return arena_printf(a, "accepted from torch %s on; %s", s.first,
			    v->t->newest ? "a newer torch than these tables know"
					 : arena_printf(a, "this torch is %s", v->t->release));
}

static void rejected(const struct arch_list_input *in, const struct verdict *v,
		     struct cd_finding *x, struct cd_arena *a)
{
	size_t i;

	finding_detail(x, a,
		       "torch.utils.cpp_extension stops every CUDA extension build with "
		       "\"ValueError: Unknown CUDA arch (%s) or GPU not supported\". Entries are "
		       "separated by ';' or blanks; each is X.Y, X.Ya or a name (Ampere, Hopper, "
		       "Blackwell...), optionally followed by +PTX. %s %s.",
		       v->r->first_bad,
		       v->t->newest ? "torch's version is unknown: judged by the newest tables,"
				    : "Judged by the tables of torch",
		       v->t->newest ? arena_printf(a, "torch %s and later", v->t->release)
				    : v->t->release);
	finding_evidence(x, a, "TORCH_CUDA_ARCH_LIST=\"%.200s\"", in->value);
	for (i = 0; i < v->r->n_kept; i++) {
		const struct archlist_entry *e = &v->r->entries[i];
		if (e->valid)
			continue;
		if (e->suggest[0])
			finding_evidence(x, a, "'%s': %s; use '%s'", e->text, reason(v, e, a),
					 e->suggest);
		else
			finding_evidence(x, a, "'%s': %s", e->text, reason(v, e, a));
	}
	if (v->r->fixed[0])
		finding_fix(x, a, "export TORCH_CUDA_ARCH_LIST=\"%s\"", v->r->fixed);
	else if (in->n_gpus)
		fix_gpus(in, x, a);
	fix_unset(x, a);
}

/* The list without the entries nvcc cannot build, else the GPUs. */
static void buildable(const struct arch_list_input *in, const struct verdict *v,
		      struct cd_finding *x, struct cd_arena *a)
{
	struct cd_buf b;
	char why[96];
	size_t i;
	int rc = 0;

	buf_init(&b, ARCHLIST_MAX_INPUT);
	for (i = 0; !rc && i < v->r->n_kept; i++) {
		const struct archlist_entry *e = &v->r->entries[i];
		if (archcov_nvcc_builds(in->nvcc_major, in->nvcc_minor, cc10(e), why,
					sizeof(why)) != 0)
			rc = buf_printf(&b, "%s%s", b.len ? ";" : "", e->text);
	}
	/* A list cut short would be a wrong export: the GPUs' fix instead. */
	if (b.len && !rc)
		finding_fix(x, a, "export TORCH_CUDA_ARCH_LIST=\"%s\"", b.p);
	else
		fix_gpus(in, x, a);
	buf_free(&b);
}

static struct cd_finding *add(struct cd_findings *out, const struct arch_list_input *in,
			      enum cd_severity sev, const char *title)
{
	return findings_add(out, "torch-arch-list-invalid", sev, in->section, "%s", title);
}

void arch_list_check(const struct arch_list_input *in, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct verdict v;
	struct cd_finding *x;

	if (!judge(in, a, &v) || !(x = add(out, in, v.sev, v.title)))
		return;
	switch (v.kind) {
	case K_NO_GPU:
		finding_detail(x, a,
			       "Set it where the build runs without a GPU (docker build, CI). "
			       "DeepSpeed's JIT ignores it and uses the visible GPUs.");
		fix_gpus(in, x, a);
		if (in->value)
			fix_unset(x, a);
		break;
	case K_GPU_NVCC:
		fix_gpus(in, x, a);
		if (in->value)
			fix_unset(x, a);
		break;
	case K_TOO_LONG:
		finding_detail(x, a,
			       "No real architecture list is this long; it was not parsed. torch "
			       "would try every entry.");
		fix_unset(x, a);
		break;
	case K_REJECTED: rejected(in, &v, x, a); break;
	case K_ENTRY_NVCC:
		finding_detail(x, a,
			       "Every extension build stops with nvcc's \"Unsupported gpu "
			       "architecture\".");
		finding_evidence(x, a, "TORCH_CUDA_ARCH_LIST=\"%.200s\"", in->value);
		buildable(in, &v, x, a);
		fix_unset(x, a);
		break;
	case K_UNCOVERED:
		finding_detail(x, a,
			       "Extensions built with it fail there with 'no kernel image is "
			       "available for execution on the device'.");
		fix_gpus(in, x, a);
		break;
	default: break;
	}
}

const char *arch_list_blocker(const struct arch_list_input *in, struct cd_arena *a)
{
	struct verdict v;

	if (!judge(in, a, &v))
		return NULL;
	return v.kind == K_NO_GPU || v.sev == CD_SEV_ERROR ? v.title : NULL;
}

static struct cd_finding *raised(struct cd_findings *out)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (!strcmp(out->items[i]->id, "torch-arch-list-invalid"))
			return out->items[i];
	return NULL;
}

struct cd_finding *arch_list_build_failed(const struct arch_list_input *in, const char *line,
					  struct cd_findings *out)
{
	struct cd_finding *x = raised(out);

	if (x) {
		finding_evidence(x, out->arena, "the test build confirms it: %s", line);
		return x;
	}
	x = add(out, in, CD_SEV_ERROR, arena_printf(out->arena, "The test build failed: %s", line));
	finding_detail(x, out->arena,
		       "Found by `jit --compile`; the files on disk did not show it.");
	finding_fix(x, out->arena,
		    "export TORCH_CUDA_ARCH_LIST=\"<compute capabilities this nvcc supports>\"");
	return x;
}

struct cd_finding *arch_list_no_kernel(const struct arch_list_input *in, const char *detail,
				       const char *flags, struct cd_findings *out)
{
	struct cd_finding *x =
		add(out, in, CD_SEV_ERROR,
		    arena_printf(out->arena, "The test kernel has no code for this GPU: %s",
				 detail ? detail : "no kernel image"));

	finding_evidence(x, out->arena, "built with: %s",
			 flags && *flags ? flags : "nvcc's default arch");
	if (in->n_gpus)
		fix_gpus(in, x, out->arena);
	else
		finding_fix(x, out->arena,
			    "export TORCH_CUDA_ARCH_LIST=\"<this GPU's compute capability>\"");
	return x;
}
