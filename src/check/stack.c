/* stack: findings about the Python / PyTorch stack, from f->stack alone.
 *   python-env-invalid          the environment named or found cannot run
 *   python-not-found            no Python environment was found (info)
 *   package-install-broken      unreadable or inconsistent metadata, pip leftovers
 *   package-shadowed            a copy earlier on sys.path hides another
 *   package-pip-conda-duplicate pip installed over a conda package
 *   package-too-old             below the floors in data/python_minimums.tsv
 *   package-requirement-unmet   an ML package's Requires-Dist, evaluated as pip
 *                               check does (markers, pre-releases allowed)
 *   wheel-pin-mismatch          an nvidia-* / cuda-toolkit / triton wheel that
 *                               differs from torch's own pin
 * Requirement evaluation lives in stack_reqs.c. */
#include "check/stack_check.h"

#include <string.h>

#include "core/opts.h"
#include "kb/kb.h"

const char *stack_python(const struct cd_facts *f)
{
	return f->stack->python.executable ? f->stack->python.executable : "python3";
}

const char *stack_pip(const struct cd_facts *f)
{
	const struct cd_python_facts *py = &f->stack->python;
	const char *exe = py->executable ? py->executable : "python3";

	if (py->kind && !strcmp(py->kind, "uv"))
		return arena_printf((struct cd_arena *)&f->arena, "uv pip install --python %s",
				    exe);
	return arena_printf((struct cd_arena *)&f->arena, "%s -m pip install", exe);
}

int stack_version(const struct cd_package *p, struct pep440_version *v)
{
	return p && p->version ? pep440_parse(p->version, strlen(p->version), v) : CD_ENOENT;
}

static void env_findings(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_python_facts *py = &f->stack->python;
	struct cd_arena *a = out->arena;
	struct cd_finding *x;

	if (py->problem) {
		x = findings_add(out, "python-env-invalid", CD_SEV_ERROR, "python",
				 "The Python environment cannot be used");
		if (!x)
			return;
		finding_detail(x, a, "%s.", py->problem);
		finding_evidence(x, a, "found via %s%s%s", py->found_via ? py->found_via : "?",
				 py->prefix ? ": " : "", py->prefix ? py->prefix : "");
		if (py->home)
			finding_fix(
				x, a,
				"rm -rf %s && python3 -m venv %s   # then reinstall its packages",
				py->prefix, py->prefix);
		else if (py->found_via && !strcmp(py->found_via, "VIRTUAL_ENV"))
			finding_fix(x, a, "deactivate || unset VIRTUAL_ENV");
		else if (py->found_via && !strcmp(py->found_via, "CONDA_PREFIX"))
			finding_fix(x, a, "conda deactivate || unset CONDA_PREFIX");
		else
			finding_fix(x, a, "cuda-doctor --env /path/to/env check");
		return;
	}
	if (!py->prefix) {
		x = findings_add(out, "python-not-found", CD_SEV_INFO, "python",
				 "No Python environment found; the PyTorch checks were skipped");
		if (!x)
			return;
		finding_evidence(x, a, "%s", py->searched ? py->searched : "nothing to inspect");
		finding_fix(x, a, "cuda-doctor --env /path/to/venv-or-conda-env check");
	}
}

/* ---- broken installs ------------------------------------------------------ */

static int ml_or_torch(const char *name)
{
	return name && stack_is_ml(name);
}

static void broken_findings(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_stack_facts *st = f->stack;
	struct cd_arena *a = out->arena;
	struct cd_finding *x = NULL;
	size_t i, more = 0;
	int err = 0;

#define NEXT_LINE()                                                                                \
	do {                                                                                       \
		if (!x)                                                                            \
			x = findings_add(out, "package-install-broken", CD_SEV_WARNING, "python",  \
					 "Installed packages with broken or inconsistent files");  \
	} while (0)
	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i];
		if (!p->problem)
			continue;
		NEXT_LINE();
		if (!x)
			return;
		err |= ml_or_torch(p->name);
		if (x->n_evidence < CD_FINDING_LINES_MAX - 1)
			finding_evidence(x, a, "%s", p->problem);
		else
			more++;
		if (p->path && x->n_fix < CD_FINDING_LINES_MAX - 1)
			finding_fix(x, a, "rm -rf '%s' && %s --force-reinstall --no-deps '%s%s%s'",
				    p->path, stack_pip(f), p->display ? p->display : p->name,
				    p->version ? "==" : "", p->version ? p->version : "");
	}
	for (i = 0; i < st->n_problems; i++) {
		NEXT_LINE();
		if (!x)
			return;
		if (x->n_evidence < CD_FINDING_LINES_MAX - 1)
			finding_evidence(x, a, "%s", st->problems[i]);
		else
			more++;
	}
	if (st->torch.installed && (st->torch.problem || stack_torch_mixed(st))) {
		const struct cd_package *t = stack_find(st, "torch");
		NEXT_LINE();
		if (!x)
			return;
		err = 1;
		if (st->torch.problem)
			finding_evidence(x, a, "%s", st->torch.problem);
		else
			finding_evidence(x, a,
					 "torch/version.py says %s but %s says %s: files of two "
					 "installs are mixed",
					 st->torch.version,
					 t && t->path ? t->path : "the dist-info",
					 t && t->version ? t->version : "?");
		finding_fix(x, a, "%s --force-reinstall --no-deps 'torch==%s'", stack_pip(f),
			    t && t->version ? t->version : st->torch.version);
	}
#undef NEXT_LINE
	if (!x)
		return;
	if (more)
		finding_evidence(x, a, "... and %zu more", more);
	if (err)
		x->severity = CD_SEV_ERROR;
	finding_detail(x, a,
		       "pip and importlib read these directories to know what is installed; a "
		       "missing METADATA or Version, an unreadable conda record or a leftover "
		       "'~' directory makes pip warn, skip or mis-resolve the package.");
}

/* ---- copies hidden by earlier sys.path entries ----------------------------- */

static void shadow_findings(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_stack_facts *st = f->stack;
	const struct cd_python_facts *py = &st->python;
	struct cd_arena *a = out->arena;
	size_t i;

	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i], *s;
		struct cd_finding *x = NULL;
		int differ = 0;
		for (s = p->shadowed; s; s = s->shadowed) {
			if (s->site == p->site || p->site >= py->n_site || s->site >= py->n_site)
				continue; /* same directory: package-install-broken's business */
			if (!x)
				x = findings_add(out, "package-shadowed", CD_SEV_WARNING, "python",
						 "%s %s in %s hides another copy", p->name,
						 p->version ? p->version : "?",
						 py->site[p->site].origin);
			if (!x)
				return;
			differ |= !p->version || !s->version || strcmp(p->version, s->version);
			finding_evidence(x, a, "imported: %s %s (%s, %s)", p->name,
					 p->version ? p->version : "?", p->path,
					 py->site[p->site].origin);
			finding_evidence(x, a, "hidden:   %s %s (%s, %s)", s->name,
					 s->version ? s->version : "?", s->path,
					 py->site[s->site].origin);
		}
		if (!x)
			continue;
		if (differ && stack_is_ml(p->name))
			x->severity = CD_SEV_ERROR;
		finding_detail(
			x, a,
			"Python imports the first copy on sys.path; the environment's own copy "
			"is not the one that runs.");
		if (!strcmp(py->site[p->site].origin, "user"))
			finding_fix(x, a,
				    "export PYTHONNOUSERSITE=1   # ignore ~/.local for this shell");
		if (!strcmp(py->site[p->site].origin, "PYTHONPATH"))
			finding_fix(x, a, "unset PYTHONPATH   # or drop %s from it",
				    py->site[p->site].path);
		finding_fix(x, a, "rm -rf '%s'   # remove the copy that hides the other", p->path);
	}
}

/* ---- pip over conda ---------------------------------------------------------- */

static void conda_findings(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_stack_facts *st = f->stack;
	struct cd_arena *a = out->arena;
	size_t i;

	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i];
		const char *cname = p->conda_name ? p->conda_name : p->name;
		int by_pip, differ;
		struct cd_finding *x;
		if ((p->sources & (CD_PKG_DIST | CD_PKG_CONDA)) != (CD_PKG_DIST | CD_PKG_CONDA))
			continue;
		by_pip = p->installer && strcmp(p->installer, "conda");
		differ = p->version && p->conda_version && strcmp(p->version, p->conda_version);
		if (!by_pip && !differ)
			continue;
		x = findings_add(out, "package-pip-conda-duplicate", CD_SEV_WARNING, "python",
				 "%s is installed by both pip and conda", p->name);
		if (!x)
			return;
		if (stack_is_ml(p->name) && differ)
			x->severity = CD_SEV_ERROR;
		finding_detail(x, a,
			       "conda's record and the files in site-packages disagree: conda will "
			       "restore or remove files pip owns on its next transaction, and the "
			       "version that imports is not the one conda reports.");
		finding_evidence(x, a, "site-packages: %s %s (installed by %s) at %s", p->name,
				 p->version ? p->version : "?", p->installer ? p->installer : "?",
				 p->path);
		finding_evidence(x, a, "conda-meta: %s %s build %s%s%s", cname,
				 p->conda_version ? p->conda_version : "?",
				 p->conda_build ? p->conda_build : "?",
				 p->conda_channel ? ", channel " : "",
				 p->conda_channel ? p->conda_channel : "");
		finding_fix(x, a, "conda remove --force -p %s %s   # keep pip's %s",
			    st->python.prefix, cname, p->version ? p->version : "copy");
		finding_fix(x, a,
			    "%s -m pip uninstall -y %s && conda install -p %s --force-reinstall "
			    "'%s=%s'   # or keep conda's",
			    stack_python(f), p->name, st->python.prefix, cname,
			    p->conda_version ? p->conda_version : "*");
	}
}

/* ---- floors -------------------------------------------------------------------- */

static void too_old_findings(const struct cd_facts *f, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct kb_tsv t;

	if (kb_tsv_open(&t, "python_minimums.tsv"))
		return;
	while (kb_tsv_next(&t)) {
		const char *name = kb_tsv_get(&t, "package"), *min = kb_tsv_get(&t, "minimum");
		const struct cd_package *p = name ? stack_find(f->stack, name) : NULL;
		struct pep440_version have, want;
		struct cd_finding *x;
		if (!p || !min || stack_version(p, &have) || pep440_parse(min, strlen(min), &want))
			continue;
		if (pep440_cmp(&have, &want) >= 0)
			continue;
		x = findings_add(out, "package-too-old",
				 !strcmp(kb_tsv_get(&t, "severity"), "error") ? CD_SEV_ERROR
									      : CD_SEV_WARNING,
				 "python", "%s %s is older than %s", p->name, p->version, min);
		if (!x)
			return;
		finding_detail(x, a, "%s.", kb_tsv_get(&t, "reason"));
		finding_evidence(x, a, "installed: %s %s (%s)", p->name, p->version,
				 p->path ? p->path : "conda-meta");
		finding_evidence(x, a, "source: %s", kb_tsv_get(&t, "source"));
		if (p->sources == CD_PKG_CONDA)
			finding_fix(x, a, "conda install -p %s '%s>=%s'", f->stack->python.prefix,
				    p->conda_name ? p->conda_name : p->name, min);
		else
			finding_fix(x, a, "%s --upgrade '%s>=%s'", stack_pip(f), p->name, min);
	}
}

void check_stack(const struct cd_facts *f, struct cd_findings *out)
{
	if (!f->stack)
		return;
	env_findings(f, out);
	if (!f->stack->packages_known)
		return;
	broken_findings(f, out);
	shadow_findings(f, out);
	conda_findings(f, out);
	too_old_findings(f, out);
	stack_requirement_findings(f, out);
}
