/* df_torch: each torch install against the image it lands in and the
 * indexes pip will read (data/torch_cuda.tsv through kb/torchwheel):
 * dockerfile-torch-cpu-wheel, dockerfile-torch-index-missing,
 * dockerfile-torch-extra-index and dockerfile-torch-cuda-mismatch. */
#include <stdio.h>
#include <string.h>

#include "check/dockerfile/df_int.h"
#include "core/str.h"
#include "kb/torchwheel.h"

enum how { HOW_UNKNOWN = 0, HOW_CPU, HOW_CUDA };

struct resolved {
	enum how how;
	char cuda[16];	  /* X.Y */
	char variant[16]; /* cu121 */
	const char *why;  /* where the variant comes from */
	int major_only;	  /* an unpinned torch: only the newest release's major is known */
};

static void xy(const char *v, char *out, size_t cap)
{
	const char *d = v ? strchr(v, '.') : NULL;

	if (!d) {
		str_copy(out, cap, v ? v : "");
		return;
	}
	str_ncopy(out, cap, v, (size_t)(d - v) + 1 + strcspn(d + 1, "."));
}

static int major(const char *v)
{
	int m = 0;

	for (; v && *v >= '0' && *v <= '9'; v++)
		m = m * 10 + (*v - '0');
	return m;
}

static int release_has(const char *version, const char *variant, struct torchwheel *hit)
{
	struct torchwheel w[TORCHWHEEL_MAX];
	size_t n, i;

	if (torchwheel_release(version, w, TORCHWHEEL_MAX, &n) || !n)
		return -1; /* the table has no such release */
	for (i = 0; i < n; i++)
		if (!strcmp(w[i].variant, variant)) {
			if (hit)
				*hit = w[i];
			return 1;
		}
	return 0;
}

static void from_variant(struct resolved *r, const char *variant, const char *why)
{
	if (!strcmp(variant, "cpu")) {
		r->how = HOW_CPU;
	} else if (torchwheel_variant_cuda(variant, r->cuda, sizeof(r->cuda)) == 0) {
		r->how = HOW_CUDA;
		str_copy(r->variant, sizeof(r->variant), variant);
	}
	r->why = why;
}

static void resolve(const struct dfc_torch *t, struct resolved *r)
{
	struct torchwheel w;
	char newest[16];

	memset(r, 0, sizeof(*r));
	if (t->conda) {
		if (t->conda_cpu) {
			r->how = HOW_CPU;
			r->why = "conda cpuonly";
		} else if (t->conda_cuda[0]) {
			r->how = HOW_CUDA;
			xy(t->conda_cuda, r->cuda, sizeof(r->cuda));
			r->why = "conda pytorch-cuda / cudatoolkit";
		}
		return;
	}
	if (t->local[0]) {
		from_variant(r, t->local, "its +local label");
		return;
	}
	if (t->index_url) {
		if (t->index_variant[0]) /* else another index: unknown */
			from_variant(r, t->index_variant, "--index-url");
		return;
	}
	if (t->extra_url && !t->version[0])
		return; /* dockerfile-torch-extra-index says why this is not known */
	if (t->extra_url && t->extra_variant[0] &&
	    release_has(t->version, t->extra_variant, NULL) == 1) {
		from_variant(r, t->extra_variant,
			     "--extra-index-url (torch==X.Y.Z prefers the +local build)");
		return;
	}
	if (t->version[0] && torchwheel_default(t->version, &w) == 0) {
		from_variant(r, w.variant, "the PyPI build of that release");
		return;
	}
	if (!t->version[0] && !t->extra_url && !t->find_links &&
	    torchwheel_newest(newest, sizeof(newest)) == 0 && torchwheel_default(newest, &w) == 0) {
		from_variant(r, w.variant, "PyPI's build of the newest release");
		r->major_only = 1;
	}
}

/* The variant of the release closest to the image's CUDA: the same major,
 * the newest minor not above it. */
static int pick_variant(const char *version, const char *cuda, struct torchwheel *out)
{
	struct torchwheel w[TORCHWHEEL_MAX];
	size_t n, i;
	int best = -1;

	if (torchwheel_release(version, w, TORCHWHEEL_MAX, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (major(w[i].cuda) == major(cuda) && ver_cmp(w[i].cuda, cuda) <= 0 &&
		    (best < 0 || ver_cmp(w[i].cuda, w[best].cuda) > 0))
			best = (int)i;
	if (best < 0)
		return -1;
	*out = w[best];
	return 0;
}

static int gpu_stage(const struct dfc_stage *s)
{
	return s->img.gpu || s->n_installs > 0;
}

static void cpu_wheel(struct dfc *c, const struct dfc_stage *s, const struct dfc_torch *t,
		      const struct resolved *r)
{
	struct cd_finding *x;
	const char *cuda = dfc_stage_cuda(s);
	struct torchwheel w;

	if (r->how != HOW_CPU || !gpu_stage(s))
		return;
	x = dfc_at(c, t->in,
		   findings_add(c->out, "dockerfile-torch-cpu-wheel", CD_SEV_ERROR, "dockerfile",
				"A CPU-only torch (%s) is installed in a GPU image", r->why));
	finding_detail(x, c->a,
		       "torch.cuda.is_available() will be False on every GPU: this build "
		       "has no CUDA code.");
	dfc_evidence_instr(c, x, t->in);
	finding_evidence(x, c->a, "the stage's image: %s", s->st->root ? s->st->root : "?");
	dfc_evidence_rule(c, x, "dockerfile-torch-cpu-wheel");
	if (cuda && t->pinned && pick_variant(t->version, cuda, &w) == 0)
		finding_fix(
			x, c->a,
			"pip install 'torch==%s' --index-url https://download.pytorch.org/whl/%s",
			t->version, w.variant);
	else if (t->conda)
		finding_fix(x, c->a,
			    "conda install pytorch pytorch-cuda=%s -c pytorch -c nvidia   # "
			    "not cpuonly",
			    cuda ? cuda : "<X.Y>");
	else
		finding_fix(x, c->a,
			    "pip install torch --index-url "
			    "https://download.pytorch.org/whl/cu<XY>   # the image's CUDA");
}

static void index_missing(struct dfc *c, const struct dfc_torch *t)
{
	const char *variant = t->local[0] ? t->local : t->index_variant;
	struct torchwheel w[TORCHWHEEL_MAX];
	struct cd_finding *x;
	size_t n, i;
	char list[128] = "";
	int no_index = t->local[0] && strncmp(t->local, "cpu", 3) && !t->index_url &&
		       !t->extra_url && !t->find_links;

	if (t->conda || !t->pinned || !variant[0] || !strcmp(variant, "cpu"))
		return;
	if (!no_index && (strncmp(variant, "cu", 2) || release_has(t->version, variant, NULL) != 0))
		return;
	if (torchwheel_release(t->version, w, TORCHWHEEL_MAX, &n))
		n = 0;
	for (i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 w[i].variant);
	if (no_index)
		x = dfc_at(c, t->in,
			   findings_add(
				   c->out, "dockerfile-torch-index-missing", CD_SEV_ERROR,
				   "dockerfile",
				   "torch %s+%s is asked for with no index that serves +%s builds",
				   t->version, t->local, t->local));
	else
		x = dfc_at(c, t->in,
			   findings_add(c->out, "dockerfile-torch-index-missing", CD_SEV_ERROR,
					"dockerfile", "download.pytorch.org/whl/%s has no torch %s",
					variant, t->version));
	finding_detail(x, c->a, "pip stops with \"No matching distribution found for %s\"%s.",
		       t->spec,
		       no_index ? ": PyPI has no +cuXYZ builds"
				: "; with --index-url it reads no other index");
	dfc_evidence_instr(c, x, t->in);
	if (n)
		finding_evidence(x, c->a, "torch %.*s was built for: %s (data/torch_cuda.tsv)",
				 (int)strcspn(t->version, "+"), t->version, list);
	dfc_evidence_rule(c, x, "dockerfile-torch-index-missing");
	for (i = 0; i < n && i < 3; i++)
		finding_fix(
			x, c->a,
			"pip install 'torch==%s' --index-url https://download.pytorch.org/whl/%s",
			t->version, w[i].variant);
}

/* Only --extra-index-url: pip reads PyPI too. An unpinned torch takes PyPI's
 * newer release; one pinned (or ==X.Y.*) to a release the index has no build
 * of takes PyPI's build of it. */
static void extra_index(struct dfc *c, const struct dfc_torch *t)
{
	struct torchwheel w, d;
	struct cd_finding *x;
	char newest[16];
	int has = -1;

	if (t->conda || !t->extra_url || t->index_url || t->local[0])
		return;
	if (t->version[0]) {
		if (!t->extra_variant[0] ||
		    (has = release_has(t->version, t->extra_variant, NULL)) != 0)
			return; /* the index has the build (+local sorts first), or nothing is known
				 */
		x = dfc_at(
			c, t->in,
			findings_add(
				c->out, "dockerfile-torch-extra-index", CD_SEV_WARNING,
				"dockerfile",
				"--extra-index-url %s has no torch %s: pip installs PyPI's build",
				t->extra_url, t->version));
		if (torchwheel_default(t->version, &d) == 0)
			finding_detail(x, c->a,
				       "torch %s is not built for %s; pip finds it on PyPI "
				       "instead, built for CUDA %s (%s).",
				       t->version, t->extra_variant, d.cuda, d.variant);
	} else {
		if (t->extra_variant[0] && torchwheel_newest(newest, sizeof(newest)) == 0 &&
		    torchwheel_default(newest, &w) == 0 && !strcmp(w.variant, t->extra_variant))
			return; /* PyPI's build is the same CUDA */
		x = dfc_at(c, t->in,
			   findings_add(c->out, "dockerfile-torch-extra-index", CD_SEV_WARNING,
					"dockerfile",
					"An unpinned torch with only --extra-index-url %s can come "
					"from PyPI",
					t->extra_url));
		finding_detail(
			x, c->a,
			"pip reads PyPI and the extra index alike and installs the newest torch "
			"either has: when PyPI has a newer release than the index, the PyPI "
			"build (its default CUDA) is installed.");
	}
	dfc_evidence_instr(c, x, t->in);
	dfc_evidence_rule(c, x, "dockerfile-torch-extra-index");
	if (!t->version[0] || has != 0) {
		finding_fix(x, c->a, "pip install torch --index-url %s   # only this index",
			    t->extra_url);
		finding_fix(x, c->a,
			    "pip install 'torch==X.Y.Z' --extra-index-url %s   # or pin: the "
			    "+local build "
			    "wins",
			    t->extra_url);
	} else {
		struct torchwheel v[TORCHWHEEL_MAX];
		size_t n, i;
		if (torchwheel_release(t->version, v, TORCHWHEEL_MAX, &n) == 0)
			for (i = 0; i < n && i < 3; i++)
				finding_fix(x, c->a,
					    "pip install 'torch==%s.*' --index-url "
					    "https://download.pytorch.org/whl/%s   # CUDA %s",
					    t->version, v[i].variant, v[i].cuda);
	}
}

static void mismatch(struct dfc *c, const struct dfc_stage *s, const struct dfc_torch *t,
		     const struct resolved *r)
{
	const char *img_cuda = dfc_stage_cuda(s);
	char ic[16], tag[96];
	int builds = s->n_builds > 0 || s->children_build, majors;
	struct cd_finding *x;
	struct torchwheel w;

	if (r->how != HOW_CUDA || !img_cuda)
		return;
	xy(img_cuda, ic, sizeof(ic));
	majors = major(ic) != major(r->cuda);
	if (!majors && (r->major_only || !builds || !strcmp(ic, r->cuda)))
		return;
	if (r->major_only)
		x = dfc_at(c, t->in,
			   findings_add(c->out, "dockerfile-torch-cuda-mismatch",
					majors && builds ? CD_SEV_ERROR : CD_SEV_WARNING,
					"dockerfile",
					"An unpinned torch gets PyPI's CUDA %d build; the image's "
					"CUDA is %s",
					major(r->cuda), ic));
	else
		x = dfc_at(c, t->in,
			   findings_add(c->out, "dockerfile-torch-cuda-mismatch",
					majors && builds ? CD_SEV_ERROR : CD_SEV_WARNING,
					"dockerfile",
					"torch %s is built for CUDA %s; the image's CUDA is %s",
					t->version, r->cuda, ic));
	finding_detail(
		x, c->a, "%s%s",
		builds ? (majors ? "The extensions compiled here are checked against torch's "
				   "CUDA: nvcc's different major stops the build (\"The "
				   "detected CUDA version mismatches the version that was used "
				   "to compile PyTorch\"). "
				 : "Extensions compiled here get nvcc's CUDA, torch's another "
				   "minor (torch warns). ")
		       : "",
		"torch brings its own CUDA runtime: the image's CUDA libraries go unused by it, "
		"and the driver must support torch's CUDA, which NVIDIA_REQUIRE_CUDA of the "
		"image does not check.");
	dfc_evidence_instr(c, x, t->in);
	finding_evidence(x, c->a, "the image's CUDA: %s (%s)", ic, s->st->root ? s->st->root : "?");
	finding_evidence(x, c->a, "torch's CUDA: %s (%s), from %s (data/torch_cuda.tsv)", r->cuda,
			 r->variant, r->why);
	dfc_evidence_rule(c, x, "dockerfile-torch-cuda-mismatch");
	if (t->pinned && pick_variant(t->version, ic, &w) == 0)
		finding_fix(
			x, c->a,
			"pip install 'torch==%s' --index-url https://download.pytorch.org/whl/%s   "
			"# CUDA %s, the image's major",
			t->version, w.variant, w.cuda);
	else if (!r->major_only &&
		 dfc_cuda_image(r->cuda, dfc_has_nvcc(s) == 1 ? "devel" : "runtime", tag,
				sizeof(tag)))
		finding_fix(x, c->a, "FROM %s   # a base image of torch's CUDA", tag);
	else
		finding_fix(x, c->a,
			    "# a base image of torch's CUDA %s (nvidia/cuda:X.Y.Z-flavor-os), or a "
			    "torch built for CUDA %s",
			    r->major_only ? "major" : r->cuda, ic);
}

void dfc_rules_torch(struct dfc *c)
{
	size_t i, k;

	for (i = 0; i < c->n; i++) {
		const struct dfc_stage *s = &c->stages[i];
		for (k = 0; k < s->n_torch; k++) {
			const struct dfc_torch *t = &s->torch[k];
			struct resolved r;
			resolve(t, &r);
			cpu_wheel(c, s, t, &r);
			index_missing(c, t);
			extra_index(c, t);
			mismatch(c, s, t, &r);
		}
	}
}
