/* arch: device code against the GPUs, and extensions against torch.
 *   arch-unsupported        a GPU whose compute capability no SASS or PTX of
 *                           torch (error) or of a CUDA extension (warning)
 *                           can run on (kb/archcov.h), or only PTX the driver
 *                           is too old to JIT-compile; the fix names the
 *                           torch wheel to install instead (check/install.h)
 *   extension-abi-mismatch  an extension imports torch symbols the installed
 *                           torch does not export: its import fails with
 *                           "undefined symbol"; raised here only, for jit's
 *                           DeepSpeed prebuilt ops too (arch_abi_finding,
 *                           arch.h) */
#include <stdio.h>
#include <string.h>

#include "check/arch.h"
#include "check/check.h"
#include "check/install.h"
#include "check/stack_check.h"
#include "core/str.h"
#include "format/fatbin.h"
#include "kb/archcov.h"
#include "kb/compat.h"
#include "probe/stack/libs.h"

static void names(const struct cd_archset *s, char *out, size_t cap)
{
	char buf[32];
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < s->n_sass + s->n_ptx && len + 1 < cap; i++) {
		if (i < s->n_sass)
			fatbin_arch_name(FATBIN_KIND_ELF, s->sass[i], buf, sizeof(buf));
		else
			fatbin_arch_name(FATBIN_KIND_PTX, s->ptx[i - s->n_sass], buf, sizeof(buf));
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "", buf);
	}
	if (!out[0])
		str_copy(out, cap, "no device code");
}

/* The GPU runs none of it, or only PTX newer than the driver can JIT. */
static int uncovered(const struct cd_facts *f, const struct cd_archset *s, const char *built,
		     const struct cd_gpu *g, const char **why)
{
	enum archcov c;
	struct compat_result r;
	int dc = (int)f->driver.cuda_version_int, rt = built ? ver_cuda_int(built) : -1;

	if (g->cc_major == CD_UNK || g->cc_minor == CD_UNK)
		return 0;
	c = archcov_covers(s->sass, s->n_sass, s->ptx, s->n_ptx, (int)g->cc_major, (int)g->cc_minor,
			   NULL);
	*why = NULL;
	if (c == ARCHCOV_NONE)
		return 1;
	if (c == ARCHCOV_PTX && f->driver.cuda_version_int != CD_UNK && dc > 0 && rt > 0 &&
	    compat_check(rt, dc, f->driver.version, &r) != COMPAT_OK) {
		*why = "only PTX covers it, and PTX from a newer CUDA than the driver's cannot be "
		       "JIT-compiled (\"the provided PTX was compiled with an unsupported "
		       "toolchain\")";
		return 1;
	}
	return 0;
}

/* The torch to install instead (check/install.h): a variant of this
 * release whose kernels cover every GPU, or the newest release that has one. */
static void torch_fix(const struct cd_facts *f, struct cd_finding *x, struct cd_arena *a,
		      const struct cd_gpu *g)
{
	struct install_choice c;
	const struct install_variant *v;

	if (install_choose(f, NULL, a, &c) || c.pick.chosen < 0) {
		if (!c.alt_line) {
			finding_fix(x, a,
				    "# no official torch wheel lists %lld.%lld: build torch from "
				    "source with TORCH_CUDA_ARCH_LIST=\"%lld.%lld\"",
				    (long long)g->cc_major, (long long)g->cc_minor,
				    (long long)g->cc_major, (long long)g->cc_minor);
			return;
		}
		v = &c.alt.variants[c.alt.chosen];
		finding_evidence(x, a,
				 "no torch %s wheel has kernels for every GPU; torch %s %s "
				 "holds %s",
				 c.pick.release, c.alt.patch.torch, v->v.variant, v->archs);
		finding_fix(x, a, "%s   # torch %s, the newest release with kernels for %lld.%lld",
			    c.alt_line, c.alt.patch.torch, (long long)g->cc_major,
			    (long long)g->cc_minor);
		return;
	}
	v = &c.pick.variants[c.pick.chosen];
	finding_evidence(x, a, "torch %s %s wheels hold %s (%s)", c.pick.release, v->v.variant,
			 v->archs ? v->archs : "an arch list not known",
			 v->arch_from ? v->arch_from : "");
	if (c.status != INSTALL_NEEDS_DRIVER) {
		finding_fix(x, a, "%s", c.line);
		return;
	}
	finding_fix(x, a, "%s   # after the driver upgrade to >= %s", c.line, c.driver_needed);
	if (c.alt_line)
		finding_fix(x, a, "%s   # or, on this driver: torch %s, the newest release it runs",
			    c.alt_line, c.alt.patch.torch);
}

static void torch_arch(const struct cd_facts *f, const struct cd_libs_facts *L,
		       struct cd_findings *out)
{
	const struct cd_torch_facts *t = &f->stack->torch;
	struct cd_arena *a = out->arena;
	char held[512];
	size_t i, k;

	if (!L->torch_arch.known || !t->cuda || !f->gpus_known)
		return;
	names(&L->torch_arch, held, sizeof(held));
	for (i = 0; i < f->n_gpus; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		const char *why;
		struct cd_finding *x;
		int dup = 0;
		if (!uncovered(f, &L->torch_arch, t->cuda, g, &why))
			continue;
		for (k = 0; k < i; k++)
			dup |= f->gpus[k].cc_major == g->cc_major &&
			       f->gpus[k].cc_minor == g->cc_minor;
		if (dup)
			continue;
		x = findings_add(out, "arch-unsupported", CD_SEV_ERROR, "python",
				 "torch %s has no kernels for GPU %lld (%s, compute capability "
				 "%lld.%lld)",
				 t->version ? t->version : "", (long long)g->index,
				 g->name ? g->name : "?", (long long)g->cc_major,
				 (long long)g->cc_minor);
		if (!x)
			return;
		finding_detail(x, a,
			       "CUDA kernels of torch fail on this GPU with \"no kernel image is "
			       "available for execution on the device\"%s%s.",
			       why ? ": " : "", why ? why : "");
		finding_evidence(x, a, "%s holds %s", L->torch_cuda_lib, held);
		if (L->torch_arch.sampled < L->torch_arch.containers)
			finding_evidence(x, a,
					 "read %llu of %llu fatbin containers (check --deep reads "
					 "all)",
					 (unsigned long long)L->torch_arch.sampled,
					 (unsigned long long)L->torch_arch.containers);
		torch_fix(f, x, a, g);
	}
}

static void ext_arch(const struct cd_facts *f, const struct cd_ext *e, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x = NULL;
	char held[512];
	size_t i;

	if (!e->has_fatbin || !e->arch.known)
		return;
	for (i = 0; i < f->n_gpus; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		const char *why;
		if (!uncovered(f, &e->arch, f->stack->torch.cuda, g, &why))
			continue;
		if (!x) {
			x = findings_add(out, "arch-unsupported", CD_SEV_WARNING, "python",
					 "%s%s%s has no kernels for compute capability %lld.%lld",
					 e->package ? e->package : e->path, e->version ? " " : "",
					 e->version ? e->version : "", (long long)g->cc_major,
					 (long long)g->cc_minor);
			if (!x)
				return;
			names(&e->arch, held, sizeof(held));
			finding_detail(x, a,
				       "Its CUDA kernels fail with \"no kernel image is available "
				       "for execution on the device\"%s%s.",
				       why ? ": " : "", why ? why : "");
			finding_evidence(x, a, "%s holds %s", e->path, held);
			if (e->package)
				finding_fix(x, a,
					    "TORCH_CUDA_ARCH_LIST=\"%lld.%lld\" %s "
					    "--no-build-isolation "
					    "--no-binary '%s' --force-reinstall --no-deps '%s%s%s'",
					    (long long)g->cc_major, (long long)g->cc_minor,
					    stack_pip(f), e->package, e->package,
					    e->version ? "==" : "", e->version ? e->version : "");
			else
				finding_fix(x, a,
					    "# rebuild %s with TORCH_CUDA_ARCH_LIST=\"%lld.%lld\"",
					    e->path, (long long)g->cc_major,
					    (long long)g->cc_minor);
		}
		finding_evidence(x, a, "GPU %lld: %s, compute capability %lld.%lld",
				 (long long)g->index, g->name ? g->name : "?",
				 (long long)g->cc_major, (long long)g->cc_minor);
	}
}

struct cd_finding *arch_abi_finding(struct cd_findings *out, const char *section,
				    const struct arch_abi *e)
{
	if (e->n_missing)
		return findings_add(out, "extension-abi-mismatch", CD_SEV_ERROR, section,
				    "%s was built against another torch: %zu of the torch symbols "
				    "it imports are missing from torch %s",
				    e->what, e->n_missing, e->torch ? e->torch : "?");
	return findings_add(out, "extension-abi-mismatch", CD_SEV_ERROR, section,
			    "%s were built for another torch or CUDA", e->what);
}

static void ext_abi(const struct cd_facts *f, const struct cd_ext *e, struct cd_findings *out)
{
	const struct cd_torch_facts *t = &f->stack->torch;
	struct cd_arena *a = out->arena;
	struct arch_abi abi;
	struct cd_finding *x;
	size_t i;

	if (!e->abi_checked || !e->n_missing)
		return;
	abi.what = arena_printf(a, "%s%s%s", e->package ? e->package : e->path,
				e->version ? " " : "", e->version ? e->version : "");
	abi.n_missing = e->n_missing;
	abi.torch = t->version;
	if (!abi.what || !(x = arch_abi_finding(out, "python", &abi)))
		return;
	finding_detail(x, a,
		       "Importing it fails with \"ImportError: %s: undefined symbol: %s\". C++ "
		       "extensions must be compiled against the torch they run with.",
		       e->path, e->missing[0]);
	finding_evidence(x, a, "%s imports %zu symbols of c10/at/torch", e->path,
			 e->n_torch_imports);
	for (i = 0; i < e->n_missing && i < LIBS_ABI_SHOWN; i++)
		finding_evidence(x, a, "missing: %s", e->missing[i]);
	if (e->package)
		finding_fix(x, a,
			    "%s --no-build-isolation --no-binary '%s' --force-reinstall --no-deps "
			    "'%s%s%s'   # rebuild against torch %s",
			    stack_pip(f), e->package, e->package, e->version ? "==" : "",
			    e->version ? e->version : "", t->version ? t->version : "");
	finding_fix(x, a, "# or install the %s wheel built for torch %s",
		    e->package ? e->package : "extension", t->version ? t->version : "?");
}

void check_arch(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_libs_facts *L = libs_facts(f);
	size_t i;

	if (!L || !L->torch)
		return;
	torch_arch(f, L, out);
	for (i = 0; i < L->n_ext; i++) {
		if (f->gpus_known && f->stack->torch.cuda)
			ext_arch(f, &L->ext[i], out);
		ext_abi(f, &L->ext[i], out);
	}
}
