/* check/jit: the findings of `cuda-doctor jit` (see jit.h). Each finding
 * names the rule it applies (torch's cpp_extension, nvcc's host_config.h,
 * DeepSpeed's op builders) and carries commands to paste. This file owns
 * host-compiler-unsupported and python-headers-missing: the smoke build's
 * lines reach them through jit_*_from_build (jit_int.h). */
#include <stdio.h>
#include <string.h>

#include "check/install.h"
#include "check/jit/jit_int.h"
#include "check/toolkit.h"
#include "core/str.h"
#include "kb/hostcc.h"

#define SEC "jit"

static struct cd_finding *add(struct cd_findings *out, const char *id, enum cd_severity s,
			      const char *title)
{
	return findings_add(out, id, s, SEC, "%s", title);
}

static const char *or_(const char *s, const char *d)
{
	return s ? s : d;
}

/* The toolkit root among the others whose version matches torch's CUDA. */
static const char *matching_other(const struct cd_jit_facts *jf)
{
	int tma, tmi, ma, mi;
	size_t i;

	if (jit_torch_cuda(jf, &tma, &tmi))
		return jf->tk.n_others ? jf->tk.others[0] : NULL;
	for (i = 0; i < jf->tk.n_others; i++)
		if (jit_major_minor(jf->tk.others_version[i], &ma, &mi) == 0 && ma == tma &&
		    mi == tmi)
			return jf->tk.others[i];
	for (i = 0; i < jf->tk.n_others; i++)
		if (jit_major_minor(jf->tk.others_version[i], &ma, &mi) == 0 && ma == tma)
			return jf->tk.others[i];
	return NULL;
}

static void install_toolkit_fix(const struct cd_jit_facts *jf, struct cd_finding *x,
				struct cd_arena *a)
{
	int ma, mi;

	if (jit_torch_cuda(jf, &ma, &mi) != 0)
		return;
	finding_fix(x, a,
		    "sudo apt-get install cuda-toolkit-%d-%d   # NVIDIA's CUDA apt repository", ma,
		    mi);
	finding_fix(x, a, "conda install -c nvidia/label/cuda-%d.%d.0 cuda-toolkit", ma, mi);
}

/* Why a build is expected: what the environment says, else the question
 * `jit` answers. */
static const char *build_expected(const struct cd_facts *f)
{
	return or_(toolkit_build_expected(f), "`cuda-doctor jit` checks whether extensions build "
					      "here");
}

static void check_toolkit_missing(const struct cd_facts *f, const struct cd_jit_facts *jf,
				  struct cd_findings *out)
{
	const struct jit_toolkit *tk = &jf->tk;
	const char *other = matching_other(jf);
	const struct toolkit_sel s = {tk->cuda_home, tk->via,	       tk->home_exists,	 tk->nvcc,
				      tk->reason,    tk->n_others > 0, build_expected(f)};
	struct cd_finding *x = toolkit_missing(&s, SEC, out);
	size_t i;

	if (!x)
		return;
	for (i = 0; i < tk->n_others; i++)
		finding_evidence(x, out->arena, "toolkit with nvcc at %s (CUDA %s)", tk->others[i],
				 or_(tk->others_version[i], "version unknown"));
	if (other)
		finding_fix(x, out->arena, "export CUDA_HOME=%s", other);
	if (tk->cuda_home && tk->home_exists == CD_TRI_YES && !tk->nvcc && jf->tk.nvcc_major >= 0)
		finding_fix(x, out->arena, "sudo apt-get install cuda-nvcc-%d-%d", tk->nvcc_major,
			    tk->nvcc_minor);
	install_toolkit_fix(jf, x, out->arena);
}

/* The torch built for nvcc's CUDA (check/install.h: the release that has
 * it, the variant that runs on this machine). */
static void torch_index_fix(const struct cd_facts *f, const struct cd_jit_facts *jf,
			    struct cd_finding *x, struct cd_arena *a)
{
	struct install_req req = {.cuda_major = jf->tk.nvcc_major, .cuda_minor = jf->tk.nvcc_minor};
	struct install_choice c;
	const struct install_pick *p;
	const char *line;

	if (jf->tk.nvcc_major < 0 || install_choose(f, &req, a, &c))
		return;
	line = c.status == INSTALL_CHOSEN || !c.alt_line ? c.line : c.alt_line;
	p = line == c.line ? &c.pick : &c.alt;
	if (line && p->chosen >= 0)
		finding_fix(x, a, "%s   # torch %s built with CUDA %s, for nvcc %d.%d", line,
			    p->patch.torch, p->variants[p->chosen].v.cuda, jf->tk.nvcc_major,
			    jf->tk.nvcc_minor);
}

static void check_nvcc_torch(const struct cd_facts *f, const struct cd_jit_facts *jf,
			     struct cd_findings *out)
{
	const struct jit_toolkit *tk = &jf->tk;
	const char *other = matching_other(jf);
	struct cd_finding *x;
	int tma, tmi, ds = jf->py.ds_present == CD_TRI_YES;

	if (jf->py.torch_present == CD_TRI_YES && jf->py.torch_cpu_only) {
		x = add(out, "nvcc-torch-mismatch", CD_SEV_ERROR,
			"torch is a CPU-only build: it cannot build CUDA extensions");
		finding_detail(x, out->arena,
			       "torch.version.cuda is None, so torch.utils.cpp_extension sets "
			       "CUDA_HOME to None (torch %s).",
			       or_(jf->py.torch_version, "version unknown"));
		torch_index_fix(f, jf, x, out->arena);
		return;
	}
	if (!tk->nvcc || tk->nvcc_major < 0 || jit_torch_cuda(jf, &tma, &tmi))
		return;
	if (tma == tk->nvcc_major && tmi == tk->nvcc_minor)
		return;
	if (tma != tk->nvcc_major) {
		x = findings_add(out, "nvcc-torch-mismatch", CD_SEV_ERROR, SEC,
				 "nvcc is CUDA %s but torch was built with CUDA %s",
				 tk->nvcc_version, jf->py.torch_cuda);
		finding_detail(
			x, out->arena,
			"Different major versions: torch's BuildExtension stops with 'The "
			"detected CUDA version (%d.%d) mismatches the version that was used to "
			"compile PyTorch (%s)', DeepSpeed's op builder with "
			"CUDAMismatchException, and a JIT build would mix two CUDA majors.",
			tk->nvcc_major, tk->nvcc_minor, jf->py.torch_cuda);
	} else {
		int blocked = ds && !jit_ds_minor_ok(jf, tma) && !jit_ds_skip(jf);
		x = findings_add(out, "nvcc-torch-mismatch",
				 blocked ? CD_SEV_ERROR : CD_SEV_WARNING, SEC,
				 "nvcc is CUDA %s, torch was built with CUDA %s (minor mismatch)",
				 tk->nvcc_version, jf->py.torch_cuda);
		finding_detail(
			x, out->arena,
			"torch only warns ('has a minor version mismatch ... Most likely this "
			"shouldn't be a problem'). DeepSpeed accepts a minor mismatch only for "
			"the CUDA majors in its cuda_minor_mismatch_ok table%s.",
			blocked ? arena_printf(out->arena,
					       "; CUDA %d is not one of them, so its op "
					       "builders raise CUDAMismatchException",
					       tma)
				: "");
		if (ds)
			finding_fix(x, out->arena,
				    "export DS_SKIP_CUDA_CHECK=1   # DeepSpeed: accept the minor "
				    "mismatch");
	}
	finding_evidence(x, out->arena, "nvcc %s at %s (version from %s)", tk->nvcc_version,
			 tk->nvcc, or_(tk->nvcc_version_source, "?"));
	finding_evidence(x, out->arena, "torch %s: torch.version.cuda = '%s'",
			 or_(jf->py.torch_version, "?"), jf->py.torch_cuda);
	if (other)
		finding_fix(x, out->arena, "export CUDA_HOME=%s", other);
	install_toolkit_fix(jf, x, out->arena);
	torch_index_fix(f, jf, x, out->arena);
}

/* nvcc's own switch past host_config.h's check. */
static void last_resort_fix(struct cd_finding *x, struct cd_arena *a)
{
	finding_fix(x, a,
		    "export NVCC_APPEND_FLAGS='-allow-unsupported-compiler'   # last resort, at "
		    "your own risk");
}

/* An older compiler on disk that this nvcc accepts. */
static const struct jit_alt_compiler *older_compiler(const struct cd_jit_facts *jf,
						     const char *family, int max)
{
	const struct jit_alt_compiler *best = NULL;
	size_t i;

	for (i = 0; i < jf->n_alt; i++)
		if (!strcmp(jf->alt[i].family, family) && jf->alt[i].major <= max &&
		    (!best || jf->alt[i].major > best->major))
			best = &jf->alt[i];
	return best;
}

static void compiler_fixes(const struct cd_jit_facts *jf, struct cd_finding *x, struct cd_arena *a,
			   const char *family, int max, int for_nvcc)
{
	const struct jit_alt_compiler *alt = older_compiler(jf, family, max);

	if (alt && !strcmp(family, "gcc"))
		finding_fix(x, a, "export CC=%s CXX=%.*sg++-%d", alt->path,
			    (int)(strrchr(alt->path, '/') - alt->path + 1), alt->path, alt->major);
	else if (alt)
		finding_fix(x, a, "export CC=%s CXX=%s++", alt->path, alt->path);
	if (!strcmp(family, "gcc")) {
		finding_fix(x, a,
			    "sudo apt-get install gcc-%d g++-%d && export CC=gcc-%d CXX=g++-%d",
			    max, max, max, max);
		finding_fix(x, a, "conda install -c conda-forge 'gxx_linux-64=%d'", max);
	}
	if (for_nvcc)
		last_resort_fix(x, a);
}

static void check_host_compiler(const struct cd_jit_facts *jf, struct cd_findings *out)
{
	const struct jit_compiler *h = &jf->host, *c = &jf->cxx;
	struct cd_finding *x;
	int max = jit_host_max(jf), tmax;

	if (!jf->tk.nvcc)
		return;
	if (!h->path) {
		x = findings_add(out, "host-compiler-unsupported", CD_SEV_ERROR, SEC,
				 "nvcc's host compiler '%s' (from %s) is not usable", h->command,
				 h->via);
		finding_detail(x, out->arena,
			       strpbrk(h->command, " \t")
				       ? "torch passes CC to nvcc as `-ccbin $CC`, one path; a "
					 "command with arguments (ccache gcc) does not work there."
				       : "It was not found; nvcc needs a host C++ compiler.");
		finding_fix(x, out->arena, "sudo apt-get install g++");
		return;
	}
	if (max > 0 && h->major > max) {
		x = findings_add(out, "host-compiler-unsupported", CD_SEV_ERROR, SEC,
				 "%s %s is newer than nvcc %s accepts (%s <= %d)", h->family,
				 h->version, jf->tk.nvcc_version, h->family, max);
		finding_detail(x, out->arena,
			       "nvcc's include/crt/host_config.h stops the build: '#error -- "
			       "unsupported %s version! %s versions later than %d are not "
			       "supported!'",
			       strcmp(h->family, "clang") ? "GNU" : "clang", h->family, max);
		finding_evidence(x, out->arena, "%s: %s (from %s; version from %s)", h->role,
				 h->path, h->via, or_(h->version_source, "?"));
		compiler_fixes(jf, x, out->arena, h->family, max, 1);
	}
	tmax = kb_max_host_compiler(jf->tk.nvcc_major, jf->tk.nvcc_minor, c->family, 1);
	if (c->path && tmax > 0 && c->major > tmax && !jf->env.dont_check_abi) {
		x = findings_add(
			out, "host-compiler-unsupported", CD_SEV_WARNING, SEC,
			"%s %s is above torch's bound for CUDA %d.%d (%s <= %d) in setup.py "
			"builds",
			c->family, c->version, jf->tk.nvcc_major, jf->tk.nvcc_minor, c->family,
			tmax);
		finding_detail(
			x, out->arena,
			"torch's BuildExtension (pip install / setup.py) raises 'The current "
			"installed version of %s (%s) is greater than the maximum required "
			"version by CUDA %d.%d'; JIT load() does not check.",
			c->command, c->version, jf->tk.nvcc_major, jf->tk.nvcc_minor);
		compiler_fixes(jf, x, out->arena, c->family, tmax, 0);
		finding_fix(x, out->arena, "export TORCH_DONT_CHECK_COMPILER_ABI=1");
	}
}

void jit_host_compiler_from_build(const struct jp_diag *d, struct cd_findings *out)
{
	struct cd_finding *x;

	if (jit_smoke_confirm(out, "host-compiler-unsupported", d))
		return;
	x = findings_add(out, "host-compiler-unsupported", CD_SEV_ERROR, SEC, JIT_SMOKE_TITLE,
			 d->line);
	jit_smoke_detail(x, out->arena);
	finding_fix(x, out->arena, "export CC=<an older %s> CXX=<its C++ driver>", d->subject);
	last_resort_fix(x, out->arena);
}

static void check_ninja(const struct cd_jit_facts *jf, struct cd_findings *out)
{
	struct cd_finding *x;
	int only_env;

	if (!jit_ninja_ok(jf, &only_env)) {
		x = add(out, "ninja-missing", CD_SEV_ERROR,
			only_env ? "ninja is installed in the environment but is not on PATH"
				 : "ninja is missing: torch JIT builds need it");
		finding_detail(
			x, out->arena,
			"torch.utils.cpp_extension runs `ninja --version` from PATH and stops "
			"with 'Ninja is required to load C++ extensions'.");
		if (only_env)
			finding_fix(x, out->arena, "export PATH=%s/bin:$PATH", jf->py.prefix);
		else {
			if (jf->py.prefix)
				finding_fix(x, out->arena, "%s/bin/python -m pip install ninja",
					    jf->py.prefix);
			finding_fix(x, out->arena, "sudo apt-get install ninja-build");
		}
		return;
	}
	if (jf->py.ds_present == CD_TRI_YES && jf->py.ninja_module == CD_TRI_NO) {
		x = add(out, "ninja-missing", CD_SEV_ERROR,
			"DeepSpeed needs the ninja Python package, which is not installed");
		finding_detail(
			x, out->arena,
			"DeepSpeed's jit_load does `import ninja` and stops with 'Unable to "
			"JIT load the <op> op due to ninja not being installed'; ninja on PATH "
			"(%s) is not enough.",
			jf->ninja.path);
		finding_fix(x, out->arena, "%s/bin/python -m pip install ninja",
			    or_(jf->py.prefix, "/path/to/env"));
	}
}

static void check_python_h(const struct cd_jit_facts *jf, struct cd_findings *out)
{
	const struct jit_python *py = &jf->py;
	const char *id = or_(jf->os_id, ""), *like = or_(jf->os_like, "");
	struct cd_finding *x;
	size_t i;

	if (!py->version || py->python_h)
		return;
	x = findings_add(out, "python-headers-missing", CD_SEV_ERROR, SEC,
			 "Python.h for Python %s is missing: extensions include torch/extension.h, "
			 "which needs it",
			 py->version);
	finding_detail(x, out->arena, "Environment %s (%s, from %s).", py->prefix,
		       or_(py->kind, "?"), or_(py->via, "?"));
	for (i = 0; i < py->n_searched; i++)
		finding_evidence(x, out->arena, "not found: %s", py->searched[i]);
	if (py->kind && !strcmp(py->kind, "conda")) {
		finding_fix(x, out->arena, "conda install -p %s 'python=%s' --force-reinstall",
			    py->prefix, py->version);
	} else if (strstr(id, "rhel") || strstr(id, "fedora") || strstr(id, "rocky") ||
		   strstr(id, "almalinux") || strstr(like, "rhel") || strstr(like, "fedora")) {
		finding_fix(x, out->arena, "sudo dnf install python%s-devel", py->version);
	} else {
		finding_fix(x, out->arena, "sudo apt-get install python%s-dev", py->version);
		if (!*id)
			finding_fix(x, out->arena,
				    "sudo dnf install python%s-devel   # RHEL / Fedora",
				    py->version);
	}
}

void jit_python_h_from_build(const struct jp_diag *d, struct cd_findings *out)
{
	struct cd_finding *x;

	if (jit_smoke_confirm(out, "python-headers-missing", d))
		return;
	x = findings_add(out, "python-headers-missing", CD_SEV_ERROR, SEC, JIT_SMOKE_TITLE,
			 d->line);
	jit_smoke_detail(x, out->arena);
}

/* Missing files the ops in scope need. */
static size_t missing_files(const struct cd_jit_facts *jf, const struct jit_ops *ops,
			    const char **names, size_t max)
{
	size_t i, k, n = 0;

	for (i = 0; i < jf->tk.n_files && n < max; i++) {
		const struct jit_file *x = &jf->tk.files[i];
		int needed = 0;
		if (x->present != CD_TRI_NO)
			continue;
		for (k = 0; k < ops->n && !needed; k++) {
			const struct jit_op_row *r = &ops->rows[k];
			char lib[112];
			const char *list = x->is_lib ? r->libraries : r->headers;
			size_t len = 0;
			if (ops->any_selected && !r->selected)
				continue;
			if (x->is_lib)
				str_copy(lib, sizeof(lib), x->name + 3), len = strlen(lib) - 3;
			while (list && *list && !needed) {
				size_t l = strcspn(list, ",");
				needed = x->is_lib ? (l == len && !strncmp(list, lib, len))
						   : (l == strlen(x->name) &&
						      !strncmp(list, x->name, l));
				list += l + (list[l] == ',');
			}
		}
		if (needed)
			names[n++] = x->name;
	}
	return n;
}

static void check_files(const struct cd_facts *fx, const struct cd_jit_facts *jf,
			const struct jit_ops *ops, struct cd_findings *out)
{
	const char *names[JIT_FILES_MAX];
	struct cd_finding *x;
	size_t n, i, k;

	if (!jf->tk.cuda_home || jf->tk.home_exists != CD_TRI_YES)
		return;
	n = missing_files(jf, ops, names, JIT_FILES_MAX);
	x = toolkit_files_missing(jf->tk.cuda_home, names, n, build_expected(fx), SEC, out);
	if (!x)
		return;
	{
		const struct jit_file *first = jit_file_get(jf, names[0]);
		char lib[96];
		if (first && first->is_lib)
			str_ncopy(lib, sizeof(lib), first->name + 3, strlen(first->name) - 6);
		finding_detail(
			x, out->arena,
			first && first->is_lib
				? "The link fails with 'cannot find -l%s'. torch links with -L %s; "
				  "ds_report can still print [OKAY] for such ops."
				: "A build fails with 'fatal error: %s: No such file or "
				  "directory'. "
				  "torch compiles with -I %s; ds_report can still print [OKAY] for "
				  "such ops.",
			first && first->is_lib ? lib : names[0],
			first && first->is_lib ? jf->tk.lib_dir : jf->tk.include_dir);
	}
	for (i = 0; i < n; i++) {
		const struct jit_file *f = jit_file_get(jf, names[i]);
		struct cd_buf b;
		int rc;
		buf_init(&b, 4096);
		rc = buf_printf(&b, "%s: not in %s", f->name,
				f->is_lib ? jf->tk.lib_dir : jf->tk.include_dir);
		if (!rc && f->note)
			rc = buf_printf(&b, " (%s)", f->note);
		for (k = 0; !rc && k < f->n_elsewhere; k++)
			rc = buf_printf(&b, "%s%s", k ? ", " : "; present at ", f->elsewhere[k]);
		if (!rc && !f->n_elsewhere)
			rc = buf_puts(&b, "; no other copy on disk");
		/* A line that did not fit: the file's name alone. */
		finding_evidence(x, out->arena, "%s", b.p && !rc ? b.p : f->name);
		buf_free(&b);
	}
	jit_fix_files(jf, x, out->arena, names, n);
}

/* torch-arch-list-invalid: the one rule (check/arch_list.c) with jit's facts. */
static void check_arch(const struct cd_jit_facts *jf, struct cd_findings *out)
{
	struct arch_list_gpu gpus[JIT_GPUS_MAX];
	struct arch_list_input in;

	jit_arch_input(jf, &in, gpus);
	arch_list_check(&in, out);
}

void check_jit(const struct cd_facts *f, const struct cd_jit_facts *jf, const struct jit_ops *ops,
	       const struct jit_smoke *smoke, struct cd_findings *out)
{
	check_toolkit_missing(f, jf, out);
	check_nvcc_torch(f, jf, out);
	check_host_compiler(jf, out);
	check_ninja(jf, out);
	check_python_h(jf, out);
	check_files(f, jf, ops, out);
	check_arch(jf, out);
	jit_check_cache(jf, out);
	jit_check_ops(jf, ops, out);
	if (smoke && smoke->ran)
		check_jit_smoke(f, jf, smoke, out);
	findings_sort(out);
}
