/* df_image: the base images of the stages: dockerfile-tag-unpinned (a CUDA
 * or PyTorch image without a release tag), dockerfile-devel-needed (CUDA code
 * compiled where the image has no nvcc) and dockerfile-devel-final (a final
 * stage on -devel that compiles nothing). */
#include <stdio.h>
#include <string.h>

#include "check/dockerfile/df_int.h"
#include "core/str.h"

/* The newest release of nvidia/cuda cuda_images.tsv has for X.Y ("12.8.1"). */
static const char *full_release(const char *cuda)
{
	const char *req, *row;

	return images_require_cuda(cuda, "amd64", &req, &row, NULL) ? NULL : row;
}

const char *dfc_cuda_image(const char *cuda, const char *flavor, char *buf, size_t cap)
{
	const char *rel = cuda && strchr(cuda, '.') ? full_release(cuda) : NULL;

	if (!rel)
		return NULL;
	snprintf(buf, cap, "nvidia/cuda:%s-%s-ubuntu22.04", rel, flavor);
	return buf;
}

static void tag_unpinned(struct dfc *c, const struct dfc_stage *s)
{
	const struct df_instr *in = &c->m->file->items[s->st->from];
	const struct img_info *i = &s->img;
	const char *rel;
	struct cd_finding *x;

	if (s->st->parent >= 0 || !s->img_known || !i->gpu || i->pinned || s->st->image_unset)
		return;
	if (!i->latest && !i->matched)
		return; /* a tag the table cannot read: no claim */
	x = dfc_at(c, in,
		   findings_add(c->out, "dockerfile-tag-unpinned", CD_SEV_WARNING, "dockerfile",
				"%s is not pinned to a release", s->st->image));
	finding_detail(
		x, c->a,
		"%s The CUDA%s this stage gets can change under the same Dockerfile, and with "
		"it what the torch installed and the extensions compiled here must match.",
		i->latest ? "Without a tag (or with :latest) the builder takes whatever was "
			    "pushed last as latest."
			  : "This tag is moved to each new patch release or operating system.",
		!strcmp(i->repo, "pytorch/pytorch") ? " and torch" : "");
	dfc_evidence_instr(c, x, in);
	dfc_evidence_rule(c, x, "dockerfile-tag-unpinned");
	if (!strcmp(i->repo, "nvidia/cuda") && i->cuda[0] && (rel = full_release(i->cuda)))
		finding_fix(x, c->a, "FROM nvidia/cuda:%s-%s-ubuntu22.04   # a full release tag",
			    rel, i->flavor[0] ? i->flavor : "runtime");
	else if (!strcmp(i->repo, "nvidia/cuda"))
		finding_fix(
			x, c->a,
			"FROM nvidia/cuda:12.8.1-runtime-ubuntu22.04   # X.Y.Z-flavor-os: pick the "
			"release your torch and driver need");
	else if (!strcmp(i->repo, "pytorch/pytorch"))
		finding_fix(x, c->a,
			    "FROM pytorch/pytorch:2.7.1-cuda12.6-cudnn9-runtime   # "
			    "TORCH-cudaX.Y-cudnnN-"
			    "flavor");
	finding_fix(x, c->a,
		    "# or pin the digest: FROM %s@sha256:<digest>   (docker buildx imagetools "
		    "inspect %s)",
		    s->st->image, s->st->image);
}

static const char *devel_tag(const struct img_info *i, char *buf, size_t cap)
{
	const char *rel;

	if (!strcmp(i->repo, "nvidia/cuda") && i->cuda[0]) {
		rel = strchr(strchr(i->cuda, '.') + 1, '.') ? i->cuda : full_release(i->cuda);
		snprintf(buf, cap, "nvidia/cuda:%s-devel-ubuntu22.04", rel ? rel : i->cuda);
		return buf;
	}
	if (!strcmp(i->repo, "pytorch/pytorch") && i->torch[0]) {
		snprintf(buf, cap, "pytorch/pytorch:%s-cuda%s-cudnn9-devel", i->torch, i->cuda);
		return buf;
	}
	return NULL;
}

/* The conda cudatoolkit case is df_build.c's cudatoolkit-no-headers. */
static int conda_runtime_only(const struct dfc_stage *s)
{
	size_t i;
	int rt = 0;

	for (i = 0; i < s->n_installs; i++) {
		if (s->installs[i].nvcc)
			return 0;
		rt |= s->installs[i].kind == DFC_TK_CONDA_RUNTIME;
	}
	return rt;
}

static void devel_needed(struct dfc *c, const struct dfc_stage *s)
{
	const struct dfc_build *b;
	struct cd_finding *x;
	char tag[160];
	const char *dt;

	if (!s->n_builds || dfc_has_nvcc(s) != 0 || conda_runtime_only(s))
		return;
	b = &s->builds[0];
	x = dfc_at(c, b->in,
		   findings_add(c->out, "dockerfile-devel-needed", CD_SEV_ERROR, "dockerfile",
				"%s, but %s has no CUDA compiler", b->row->what,
				s->st->root ? s->st->root : "the stage's image"));
	finding_detail(
		x, c->a,
		"The stage is built on %s, which carries no nvcc and no CUDA headers; the build "
		"stops with \"nvcc not found\" / \"CUDA_HOME environment variable is not "
		"set\". Compile in a -devel stage and copy the result into the runtime image.",
		s->st->root ? s->st->root : "its base image");
	dfc_evidence_instr(c, x, b->in);
	finding_evidence(x, c->a, "the stage's image: %s (%s)", s->st->root ? s->st->root : "?",
			 s->img.flavor[0] ? s->img.flavor : "no CUDA");
	if (b->row->source)
		finding_evidence(x, c->a, "%s: %s", b->row->what, b->row->source);
	dfc_evidence_rule(c, x, "dockerfile-devel-needed");
	if ((dt = devel_tag(&s->img, tag, sizeof(tag)))) {
		finding_fix(x, c->a, "FROM %s AS build   # compile here", dt);
		finding_fix(x, c->a, "FROM %s   # run here: COPY --from=build the environment",
			    s->st->root);
	} else {
		finding_fix(x, c->a,
			    "FROM nvidia/cuda:<X.Y.Z>-devel-<os> AS build   # a toolkit with "
			    "nvcc for the compile steps");
	}
	if (!strcmp(b->row->name, "flash-attn"))
		finding_fix(x, c->a,
			    "ENV FLASH_ATTENTION_SKIP_CUDA_BUILD=TRUE   # or install "
			    "flash-attn's prebuilt wheel without compiling");
}

/* A package whose CUDA ops are JIT-compiled when the program runs (DeepSpeed
 * without DS_BUILD_*) needs nvcc in the final image; so may anything built
 * from source here (a setup.py finds nvcc and uses it). */
static int jit_at_run_time(const struct dfc *c, const struct dfc_stage *s)
{
	for (;;) {
		if (s->jit || s->source)
			return 1; /* or it builds from source, which may use nvcc */
		if (s->st->parent < 0)
			return 0;
		s = &c->stages[s->st->parent];
	}
}

static void devel_final(struct dfc *c, const struct dfc_stage *s)
{
	const struct df_instr *in = &c->m->file->items[s->st->from];
	struct cd_finding *x;
	const char *d;
	char rt[256];

	if (!s->devel || s->n_builds || strcmp(s->img.env_set, "nvidia-cuda") ||
	    jit_at_run_time(c, s) || !s->st->root || !(d = strstr(s->st->root, "-devel")))
		return;
	x = dfc_at(c, in,
		   findings_add(c->out, "dockerfile-devel-final", CD_SEV_INFO, "dockerfile",
				"The final stage runs on %s but compiles nothing", s->st->root));
	finding_detail(
		x, c->a,
		"The -devel image adds nvcc, the headers and static libraries (several GB) "
		"that nothing in this stage uses. Build in a devel stage, then copy the results "
		"into the -runtime image of the same CUDA release.");
	dfc_evidence_instr(c, x, in);
	dfc_evidence_rule(c, x, "dockerfile-devel-final");
	snprintf(rt, sizeof(rt), "%.*s-runtime%s", (int)(d - s->st->root), s->st->root, d + 6);
	finding_fix(x, c->a, "FROM %s AS build   # the compile steps", s->st->root);
	finding_fix(x, c->a, "FROM %s", rt);
	finding_fix(x, c->a, "COPY --from=build /opt/venv /opt/venv   # what the build produced");
}

void dfc_rules_image(struct dfc *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		tag_unpinned(c, &c->stages[i]);
		devel_needed(c, &c->stages[i]);
	}
	if (c->n)
		devel_final(c, &c->stages[c->m->target]);
}
