/* jit_smoke_check: explain a failed `jit --compile`. The lines nvcc, the host
 * compiler and the linker printed go to the builders of the files that own
 * their finding ids: a missing header or "cannot find -lX" to the toolkit
 * family's missing-files finding and nvcc not found to its toolkit-missing
 * (check/toolkit.h); a missing Python.h and "unsupported GNU version" to
 * jit.c (jit_python_h_from_build, jit_host_compiler_from_build); an
 * unsupported gpu architecture and a kernel with no code for the GPU to the
 * TORCH_CUDA_ARCH_LIST rule (check/arch_list.h). When the static checks
 * already raised the finding, the build's line is added to it as evidence.
 * What maps to nothing becomes jit-smoke-failed with the end of the log. */
#include <stdio.h>
#include <string.h>

#include "check/jit/jit_int.h"
#include "check/toolkit.h"
#include "core/str.h"

#define SEC "jit"

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
	jit_smoke_detail(x, out->arena);
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

int jit_smoke_confirm(struct cd_findings *out, const char *id, const struct jp_diag *d)
{
	struct cd_finding *x = find(out, id);

	if (x)
		finding_evidence(x, out->arena, "the test build confirms it: %s", d->line);
	return x != NULL;
}

void jit_smoke_detail(struct cd_finding *x, struct cd_arena *a)
{
	finding_detail(x, a, "Found by `jit --compile`; the files on disk did not show it.");
}

static int explain_diags(const struct cd_jit_facts *jf, const struct jit_smoke *s,
			 struct cd_findings *out)
{
	struct arch_list_gpu gpus[JIT_GPUS_MAX];
	struct arch_list_input in;
	size_t i;
	int mapped = 0;

	jit_arch_input(jf, &in, gpus);
	for (i = 0; i < s->n_diags; i++) {
		const struct jp_diag *d = &s->diags[i];
		if (d->kind == JP_D_ARCH)
			(void)!arch_list_build_failed(&in, d->line, out); /* raised into out */
		else if (d->kind == JP_D_COMPILER)
			jit_host_compiler_from_build(d, out);
		else if (d->kind == JP_D_HEADER && !strcmp(d->subject, "Python.h"))
			jit_python_h_from_build(d, out);
		else if (is_toolkit_diag(d))
			smoke_toolkit(jf, d, out);
		else
			continue;
		mapped = 1;
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
		struct arch_list_gpu gpus[JIT_GPUS_MAX];
		struct arch_list_input in;
		jit_arch_input(jf, &in, gpus);
		(void)!arch_list_no_kernel(&in, s->detail, s->arch_flags,
					   out); /* raised into out */
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
