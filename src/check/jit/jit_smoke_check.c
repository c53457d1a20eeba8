/* jit_smoke_check: explain a failed `jit --compile`. The lines nvcc, the host
 * compiler and the linker printed are mapped to the findings the static
 * checks raise (a missing header or "cannot find -lX" -> the toolkit
 * family's missing-files finding, nvcc not found -> its toolkit-missing, both
 * through check/toolkit.h; "unsupported GNU version" ->
 * host-compiler-unsupported, an unsupported gpu architecture ->
 * torch-arch-list-invalid). When the static checks already raised it, the
 * build's line is added to it as evidence; otherwise a finding is raised from
 * the log alone. What maps to nothing becomes jit-smoke-failed with the end
 * of the log. */
#include <stdio.h>
#include <string.h>

#include "check/jit/jit_int.h"
#include "check/toolkit.h"
#include "core/str.h"

#define SEC "jit"

static const char *map_id(const struct jp_diag *d)
{
	switch (d->kind) {
	case JP_D_HEADER: return strcmp(d->subject, "Python.h") ? NULL : "python-headers-missing";
	case JP_D_COMPILER: return "host-compiler-unsupported";
	case JP_D_ARCH: return "torch-arch-list-invalid";
	default: return NULL;
	}
}

/* A toolkit file the build did not find, or nvcc itself. */
static int is_toolkit_diag(const struct jp_diag *d)
{
	return (d->kind == JP_D_HEADER && strcmp(d->subject, "Python.h")) ||
	       d->kind == JP_D_LIBRARY || d->kind == JP_D_NOT_FOUND;
}

/* The toolkit family's finding for the diagnostic: the static one with the
 * build's line added, else one from the log alone with the files' fixes. */
static void smoke_toolkit(const struct cd_jit_facts *jf, const struct jp_diag *d,
			  struct cd_findings *out)
{
	int nvcc = d->kind == JP_D_NOT_FOUND;
	struct cd_finding *x = nvcc ? toolkit_missing_raised(out) : toolkit_files_raised(out);
	const char *files[1] = {d->subject};
	char lib[160];

	if (x) {
		finding_evidence(x, out->arena, "the test build confirms it: %s", d->line);
		return;
	}
	x = nvcc ? toolkit_missing_from_build(d->line, SEC, out)
		 : toolkit_files_from_build(d->line, SEC, out);
	if (!x)
		return;
	finding_detail(x, out->arena,
		       "Found by `jit --compile`; the files on disk did not show it.");
	if (nvcc)
		return;
	if (d->kind == JP_D_LIBRARY) {
		snprintf(lib, sizeof(lib), "lib%s.so", d->subject);
		files[0] = lib;
	}
	jit_fix_files(jf, x, out->arena, files, 1);
}

static struct cd_finding *find(struct cd_findings *out, const char *id)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (!strcmp(out->items[i]->id, id))
			return out->items[i];
	return NULL;
}

static void new_finding(const struct cd_jit_facts *jf, const struct jp_diag *d, const char *id,
			struct cd_findings *out)
{
	struct cd_finding *x =
		findings_add(out, id, CD_SEV_ERROR, SEC, "The test build failed: %s", d->line);

	finding_detail(x, out->arena,
		       "Found by `jit --compile`; the files on disk did not show it.");
	if (d->kind == JP_D_COMPILER) {
		finding_fix(x, out->arena, "export CC=<an older %s> CXX=<its C++ driver>",
			    d->subject);
		finding_fix(x, out->arena,
			    "export NVCC_APPEND_FLAGS='-allow-unsupported-compiler'   "
			    "# last resort, at your own risk");
	} else if (d->kind == JP_D_ARCH) {
		finding_fix(x, out->arena,
			    "export TORCH_CUDA_ARCH_LIST=\"<compute capabilities this nvcc "
			    "supports>\"");
	}
}

static int explain_diags(const struct cd_jit_facts *jf, const struct jit_smoke *s,
			 struct cd_findings *out)
{
	size_t i;
	int mapped = 0;

	for (i = 0; i < s->n_diags; i++) {
		const struct jp_diag *d = &s->diags[i];
		const char *id = map_id(d);
		struct cd_finding *x;
		if (is_toolkit_diag(d)) {
			mapped = 1;
			smoke_toolkit(jf, d, out);
			continue;
		}
		if (!id)
			continue;
		mapped = 1;
		if ((x = find(out, id)))
			finding_evidence(x, out->arena, "the test build confirms it: %s", d->line);
		else
			new_finding(jf, d, id, out);
	}
	return mapped;
}

static void log_tail(const struct jit_smoke *s, struct cd_finding *x, struct cd_arena *a)
{
	const char *p = s->log, *lines[8];
	size_t n = 0, k;

	while (p && *p) {
		size_t len = strcspn(p, "\n");
		if (len) {
			if (n == 8)
				memmove(lines, lines + 1, sizeof(lines[0]) * 7), n = 7;
			lines[n++] = arena_strndup(a, p, len > 300 ? 300 : len);
		}
		p += len + (p[len] == '\n');
	}
	for (k = 0; k < n; k++)
		finding_evidence(x, a, "%s", lines[k]);
}

void check_jit_smoke(const struct cd_facts *f, const struct cd_jit_facts *jf,
		     const struct jit_smoke *s, struct cd_findings *out)
{
	struct cd_finding *x;

	(void)f;
	if (!s->status || !strcmp(s->status, "ok") || !strcmp(s->status, "skipped"))
		return;
	if (explain_diags(jf, s, out))
		return;
	if (s->detail && strstr(s->detail, "no kernel image")) {
		x = findings_add(out, "torch-arch-list-invalid", CD_SEV_ERROR, SEC,
				 "The test kernel has no code for this GPU: %s", s->detail);
		finding_evidence(x, out->arena, "built with: %s",
				 s->arch_flags && *s->arch_flags ? s->arch_flags
								 : "nvcc's default arch");
		finding_fix(x, out->arena,
			    "export TORCH_CUDA_ARCH_LIST=\"<this GPU's compute capability>\"");
		return;
	}
	x = findings_add(out, "jit-smoke-failed", CD_SEV_ERROR, SEC,
			 "The test build failed (%s%s%s)", s->status, s->detail ? ": " : "",
			 s->detail ? s->detail : "");
	finding_detail(x, out->arena, "Stage %s. Compile: %s", s->stage ? s->stage : "?",
		       s->compile_cmd ? s->compile_cmd : "-");
	log_tail(s, x, out->arena);
	if (s->stage && !strcmp(s->stage, "load"))
		finding_fix(x, out->arena, "export LD_LIBRARY_PATH=%s:$LD_LIBRARY_PATH",
			    jf->tk.lib_dir);
	else if (!strcmp(s->status, "timeout"))
		finding_fix(x, out->arena,
			    "cuda-doctor jit --compile --build-timeout 900   # a slow "
			    "machine; or look for a hung nvcc");
}
