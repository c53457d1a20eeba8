/* install_cmd: the install command for the environment's installer. pip and
 * uv always pin torch==X.Y.Z and name PyTorch's index as the only one
 * (--index-url, uv's --default-index): with the index only added
 * (--extra-index-url), an unpinned torch, or a later install that resolves it
 * again, can take PyPI's default CUDA build instead. torchvision and
 * torchaudio are pinned to the release's pair when installed (all three when
 * torch is not installed yet). An installed torch of the same version but
 * another CUDA satisfies torch==X.Y.Z (local versions are ignored), so the
 * line reinstalls it. conda and pixi get conda-forge's build with a
 * pytorch=X.Y.Z=cuda* pin and the variant's CUDA as cuda-version. */
#include <string.h>

#include "check/install.h"
#include "core/buf.h"
#include "facts/stack.h"

#define WHL "https://download.pytorch.org/whl"

static int installed(const struct cd_facts *f, const char *name)
{
	return f->stack && stack_find(f->stack, name) != NULL;
}

/* torch, torchvision, torchaudio as pip or conda specs into b; 0 or the
 * first append's error. */
static int pins(const struct cd_facts *f, const struct install_pick *p, int conda, struct cd_buf *b)
{
	int fresh = !installed(f, "torch"), rc;
	const char *eq = conda ? "=" : "==";

	if (conda)
		rc = buf_printf(b, " 'pytorch=%s=cuda*'", p->patch.torch);
	else
		rc = buf_printf(b, " 'torch==%s'", p->patch.torch);
	if (!rc && p->patch.torchvision[0] && (fresh || installed(f, "torchvision")))
		rc = buf_printf(b, " 'torchvision%s%s'", eq, p->patch.torchvision);
	if (!rc && p->patch.torchaudio[0] && (fresh || installed(f, "torchaudio")))
		rc = buf_printf(b, " 'torchaudio%s%s'", eq, p->patch.torchaudio);
	return rc;
}

static int uv_reinstall(const struct cd_facts *f, const struct install_pick *p, struct cd_buf *b)
{
	static const char *const names[] = {"torch", "torchvision", "torchaudio"};
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < 3; i++)
		if (installed(f, names[i]) &&
		    (i == 0 || (i == 1 ? p->patch.torchvision[0] : p->patch.torchaudio[0])))
			rc = buf_printf(b, " --reinstall-package %s", names[i]);
	return rc;
}

const char *install_cmd_line(const struct cd_facts *f, const struct install_choice *c,
			     const struct install_pick *p, const struct torchrel_variant *v,
			     struct cd_arena *a)
{
	const struct cd_python_facts *py = f->stack ? &f->stack->python : NULL;
	int reinstall = installed(f, "torch"), major = v->cuda_int / 1000,
	    minor = (v->cuda_int % 1000) / 10;
	const char *s;
	struct cd_buf b;
	int rc;

	buf_init(&b, 4096);
	switch (c->tool) {
	case INSTALL_UV:
		rc = buf_printf(&b, "uv pip install --python %s", c->python);
		if (!rc && reinstall)
			rc = uv_reinstall(f, p, &b);
		if (!rc)
			rc = pins(f, p, 0, &b);
		if (!rc)
			rc = buf_printf(&b, " --default-index %s/%s", WHL, v->variant);
		break;
	case INSTALL_UV_ADD:
		rc = buf_printf(&b, "cd %s && uv add", py->uv_project);
		if (!rc)
			rc = pins(f, p, 0, &b);
		if (!rc)
			rc = buf_printf(&b, " --index pytorch-%s=%s/%s", v->variant, WHL,
					v->variant);
		break;
	case INSTALL_CONDA:
		rc = buf_printf(&b, "conda install -p %s -c conda-forge", py->prefix);
		if (!rc)
			rc = pins(f, p, 1, &b);
		if (!rc)
			rc = buf_printf(&b, " 'cuda-version=%d.%d'", major, minor);
		break;
	case INSTALL_PIXI:
		rc = buf_printf(&b, "cd %s && pixi add", py->pixi_workspace);
		if (!rc)
			rc = pins(f, p, 1, &b);
		if (!rc)
			rc = buf_printf(&b, " 'cuda-version=%d.%d'", major, minor);
		break;
	default:
		rc = buf_printf(&b, "%s -m pip install%s", c->python,
				reinstall ? " --force-reinstall" : "");
		if (!rc)
			rc = pins(f, p, 0, &b);
		if (!rc)
			rc = buf_printf(&b, " --index-url %s/%s", WHL, v->variant);
		break;
	}
	/* A line cut short would install something else: none instead. */
	s = b.p && !rc ? arena_strdup(a, b.p) : NULL;
	buf_free(&b);
	return s;
}

const char *install_cmd_jax(const struct cd_facts *f, struct cd_arena *a)
{
	const struct cd_python_facts *py = f->stack ? &f->stack->python : NULL;
	const char *exe = py && py->executable ? py->executable : "python3";
	int cuda = f->driver.cuda_version_int != CD_UNK && f->driver.cuda_version_int > 0
			   ? (int)f->driver.cuda_version_int
			   : compat_max_cuda(f->driver.version);
	int major = cuda / 1000;

	if (major < 12)
		return NULL;
	if (major > 13)
		major = 13; /* the newest jax[cudaNN] extra there is */
	if (py && py->kind && !strcmp(py->kind, "uv"))
		return arena_printf(a, "uv pip install --python %s -U 'jax[cuda%d]'", exe, major);
	return arena_printf(a, "%s -m pip install -U 'jax[cuda%d]'", exe, major);
}
