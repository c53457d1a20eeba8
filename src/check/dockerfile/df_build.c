/* df_build: what CUDA builds in a docker build need and the layers around
 * them: dockerfile-cudatoolkit-no-headers, dockerfile-arch-list-unset,
 * dockerfile-cuda-home-unset, dockerfile-ldconfig-order,
 * dockerfile-cuda-twice, dockerfile-shm-advice, and dockerfile-syntax for
 * what BuildKit would reject. */
#include <stdio.h>
#include <string.h>

#include "check/dockerfile/df_int.h"
#include "core/str.h"

static void cudatoolkit_no_headers(struct dfc *c, const struct dfc_stage *s)
{
	const struct dfc_install *rt = NULL;
	struct cd_finding *x;
	size_t i;

	if (!s->n_builds || s->devel)
		return;
	for (i = 0; i < s->n_installs; i++) {
		if (s->installs[i].nvcc)
			return;
		if (s->installs[i].kind == DFC_TK_CONDA_RUNTIME)
			rt = &s->installs[i];
	}
	if (!rt)
		return;
	x = dfc_at(c, s->builds[0].in,
		   findings_add(c->out, "dockerfile-cudatoolkit-no-headers", CD_SEV_WARNING,
				"dockerfile",
				"%s with conda's cudatoolkit, which has no nvcc and no headers",
				s->builds[0].row->what));
	finding_detail(x, c->a,
		       "conda's cudatoolkit carries the CUDA runtime libraries only; the "
		       "build finds no nvcc (or no cuda_runtime.h) and stops.");
	dfc_evidence_instr(c, x, s->builds[0].in);
	dfc_evidence_instr(c, x, rt->in);
	dfc_evidence_rule(c, x, "dockerfile-cudatoolkit-no-headers");
	finding_fix(x, c->a,
		    "conda install -c nvidia/label/cuda-%s.0 cuda-nvcc cuda-libraries-dev   "
		    "# nvcc and the headers",
		    rt->cuda[0] ? rt->cuda : "<X.Y>");
	finding_fix(x, c->a, "# or build on nvidia/cuda:<X.Y.Z>-devel-<os>");
}

static void arch_list_unset(struct dfc *c, const struct dfc_stage *s)
{
	size_t i;

	if (dfc_has_nvcc(s) != 1 || !dfc_env_known(s))
		return; /* without nvcc the build fails first: dockerfile-devel-needed */
	for (i = 0; i < s->n_builds; i++) {
		const struct dfc_build *b = &s->builds[i];
		struct cd_finding *x;
		if (!b->row->torch_archs || b->arch_list_set)
			continue;
		x = dfc_at(c, b->in,
			   findings_add(c->out, "dockerfile-arch-list-unset", CD_SEV_WARNING,
					"dockerfile",
					"%s with TORCH_CUDA_ARCH_LIST unset, and no GPU is visible "
					"to docker build",
					b->row->what));
		finding_detail(
			x, c->a,
			"torch.utils.cpp_extension then builds for the GPUs it can see: with "
			"none it fails (IndexError in _get_cuda_arch_flags) or the extension "
			"has no code for the GPU it will run on (\"no kernel image is "
			"available for execution on the device\").");
		dfc_evidence_instr(c, x, b->in);
		dfc_evidence_rule(c, x, "dockerfile-arch-list-unset");
		finding_fix(x, c->a,
			    "ENV TORCH_CUDA_ARCH_LIST=\"8.0;8.6;8.9;9.0+PTX\"   # the GPUs it will "
			    "run on "
			    "(before this RUN)");
		return; /* one per stage */
	}
}

static int pip_toolkit_only(const struct dfc_stage *s)
{
	size_t i;
	int pip = 0;

	if (s->devel)
		return 0;
	for (i = 0; i < s->n_installs; i++) {
		if (s->installs[i].nvcc && s->installs[i].kind != DFC_TK_PIP)
			return 0;
		pip |= s->installs[i].nvcc && s->installs[i].kind == DFC_TK_PIP;
	}
	return pip;
}

static void cuda_home_unset(struct dfc *c, const struct dfc_stage *s)
{
	size_t i;

	if (!pip_toolkit_only(s))
		return;
	for (i = 0; i < s->n_builds; i++) {
		const struct dfc_build *b = &s->builds[i];
		struct cd_finding *x;
		if (b->cuda_home_set)
			continue;
		x = dfc_at(c, b->in,
			   findings_add(c->out, "dockerfile-cuda-home-unset", CD_SEV_WARNING,
					"dockerfile",
					"%s with nvcc from a pip wheel and CUDA_HOME unset",
					b->row->what));
		finding_detail(
			x, c->a,
			"torch looks for CUDA in CUDA_HOME / CUDA_PATH, then next to the nvcc on "
			"PATH, then /usr/local/cuda; the nvidia-cuda-nvcc wheel puts nvcc in "
			"site-packages/nvidia/cuda_nvcc/bin, which is none of these.");
		dfc_evidence_instr(c, x, b->in);
		dfc_evidence_rule(c, x, "dockerfile-cuda-home-unset");
		finding_fix(
			x, c->a,
			"ENV CUDA_HOME=/usr/local/lib/python3.X/site-packages/nvidia/cuda_nvcc   # "
			"where the wheel installed nvcc");
		return;
	}
}

static int on_path(const char *list, const char *dir)
{
	size_t n = strlen(dir);
	const char *p = list;

	while (p && *p) {
		size_t k = strcspn(p, ":");
		if (k == n && !strncmp(p, dir, n))
			return 1;
		p += k + (p[k] == ':');
	}
	return 0;
}

static void ldconfig_order(struct dfc *c, const struct dfc_stage *s)
{
	struct cd_finding *x;

	if (!s->ldconfig || !s->libs_after ||
	    (s->ld_library_path && on_path(s->ld_library_path, "/usr/local/lib")))
		return;
	x = dfc_at(c, s->libs_after,
		   findings_add(c->out, "dockerfile-ldconfig-order", CD_SEV_WARNING, "dockerfile",
				"Libraries are installed after the stage's last ldconfig"));
	finding_detail(
		x, c->a,
		"/usr/local/lib is searched only through /etc/ld.so.cache, which ldconfig at "
		"line %u wrote before these libraries existed: programs fail with \"cannot "
		"open shared object file\".",
		s->ldconfig->line);
	finding_evidence(x, c->a, "%s:%u: %s", c->o->path, s->libs_after->line, s->libs_what);
	dfc_evidence_instr(c, x, s->ldconfig);
	dfc_evidence_rule(c, x, "dockerfile-ldconfig-order");
	finding_fix(x, c->a, "RUN ldconfig   # after the layer that installs the libraries");
}

static void xy(const char *v, char *out, size_t cap)
{
	const char *d = strchr(v, '.');

	str_ncopy(out, cap, v, d ? (size_t)(d - v) + 1 + strcspn(d + 1, ".") : strlen(v));
}

static void cuda_twice(struct dfc *c, const struct dfc_stage *s)
{
	char base[16] = "", v[16], tag[96];
	size_t i;

	if (s->cuda[0])
		xy(s->cuda, base, sizeof(base));
	for (i = s->n_inherited; i < s->n_installs; i++) {
		const struct dfc_install *t = &s->installs[i];
		struct cd_finding *x;
		size_t k;
		const char *other = base[0] ? base : NULL;
		if (!t->cuda[0])
			continue;
		xy(t->cuda, v, sizeof(v));
		for (k = 0; !other && k < i; k++)
			if (s->installs[k].cuda[0])
				other = s->installs[k].cuda;
		if (!other || !strcmp(v, other))
			continue;
		x = dfc_at(c, t->in,
			   findings_add(c->out, "dockerfile-cuda-twice", CD_SEV_WARNING,
					"dockerfile",
					"CUDA %s is installed into an image that has CUDA %s", v,
					other));
		finding_detail(
			x, c->a,
			"Two CUDA versions side by side: which nvcc, headers and libcudart a "
			"build or a program gets then depends on CUDA_HOME, PATH, "
			"/usr/local/cuda and LD_LIBRARY_PATH, and they can differ.");
		dfc_evidence_instr(c, x, t->in);
		finding_evidence(x, c->a, "the image: %s (CUDA %s)",
				 s->st->root ? s->st->root : "?", other);
		dfc_evidence_rule(c, x, "dockerfile-cuda-twice");
		if (dfc_cuda_image(v, "devel", tag, sizeof(tag)))
			finding_fix(x, c->a,
				    "FROM %s   # a base image of the CUDA you install, instead of "
				    "a second one",
				    tag);
		else
			finding_fix(
				x, c->a,
				"# a base image of CUDA %s (nvidia/cuda:%s.x-devel-<os>) instead "
				"of a second toolkit",
				v, v);
		return;
	}
}

static void shm_advice(struct dfc *c)
{
	const struct dfc_stage *s = &c->stages[c->m->target];
	struct cd_finding *x;

	if (!s->trains)
		return;
	x = dfc_at(c, s->trains,
		   findings_add(c->out, "dockerfile-shm-advice", CD_SEV_INFO, "dockerfile",
				"The image runs training: docker run gives it 64 MB of /dev/shm"));
	finding_detail(x, c->a,
		       "DataLoader workers (num_workers > 0) and NCCL pass data through "
		       "/dev/shm; at 64 MB they fail with \"Bus error\" or \"No space left on "
		       "device\".");
	dfc_evidence_instr(c, x, s->trains);
	dfc_evidence_rule(c, x, "dockerfile-shm-advice");
	finding_fix(x, c->a, "docker run --gpus all --ipc=host ...   # or --shm-size=16g");
	finding_fix(x, c->a, "# compose: ipc: host, or shm_size: 16gb");
}

/* BuildKit stops at the first instruction it rejects: one finding there,
 * the later ones named in its evidence. */
static void syntax(struct dfc *c)
{
	const struct df_file *f = c->m->file;
	const struct df_instr *in = NULL;
	struct cd_finding *x;
	char more[160] = "";
	size_t i, k;

	if (!f->n_diags)
		return;
	for (k = 0; k < f->n; k++)
		if (f->items[k].line == f->diags[0].line)
			in = &f->items[k];
	x = dfc_at(c, in,
		   findings_add(c->out, "dockerfile-syntax", CD_SEV_ERROR, "dockerfile", "%s",
				f->diags[0].msg));
	if (!x)
		return;
	if (!in)
		finding_at(x, c->o->path, f->diags[0].line, f->diags[0].line);
	finding_detail(x, c->a, "BuildKit stops here; nothing after it is built.");
	if (in)
		dfc_evidence_instr(c, x, in);
	for (i = 1; i < f->n_diags && i <= 8; i++)
		snprintf(more + strlen(more), sizeof(more) - strlen(more), "%s%u",
			 i > 1 ? ", " : "", f->diags[i].line);
	if (f->n_diags > 1)
		finding_evidence(x, c->a, "%zu more line%s BuildKit would reject: %s%s",
				 f->n_diags - 1, f->n_diags == 2 ? "" : "s", more,
				 f->n_diags > 9 ? ", ..." : "");
	dfc_evidence_rule(c, x, "dockerfile-syntax");
}

void dfc_rules_build(struct dfc *c)
{
	size_t i;

	syntax(c);
	for (i = 0; i < c->n; i++) {
		const struct dfc_stage *s = &c->stages[i];
		cudatoolkit_no_headers(c, s);
		arch_list_unset(c, s);
		cuda_home_unset(c, s);
		ldconfig_order(c, s);
		cuda_twice(c, s);
	}
	if (c->n)
		shm_advice(c);
}
