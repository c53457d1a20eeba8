/* stack_reqs: package-requirement-unmet and wheel-pin-mismatch. Each ML
 * package's Requires-Dist is evaluated the way `pip check` does: a marker is
 * evaluated with extra == "" (and with the extras other installed packages ask
 * for, as pip's resolver would), the installed version must be in the
 * specifier with pre-releases allowed. A requirement under an extra nobody
 * asked for still counts, as a warning, when its target is an installed ML
 * package: transformers uses an installed torch whether or not [torch] was
 * requested, and disables it when it is older than that extra's floor. */
#include "check/stack_check.h"

#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "format/pep508.h"

#define EXTRAS_MAX 512 /* (package, extra) pairs asked for by installed packages */
#define ITEMS_MAX  64  /* unmet requirements kept per package */

static const char *const ml_names[] = {
	"accelerate",
	"bitsandbytes",
	"cuda-bindings",
	"cuda-toolkit",
	"datasets",
	"deepspeed",
	"diffusers",
	"flash-attn",
	"huggingface-hub",
	"jax",
	"jaxlib",
	"lightning",
	"optimum",
	"peft",
	"pytorch-lightning",
	"safetensors",
	"sentence-transformers",
	"timm",
	"tokenizers",
	"torch",
	"torchao",
	"torchaudio",
	"torchvision",
	"transformers",
	"triton",
	"trl",
	"vllm",
	"xformers",
};

int stack_is_ml(const char *name)
{
	size_t i;

	if (str_has_prefix(name, "nvidia-"))
		return 1;
	for (i = 0; i < sizeof(ml_names) / sizeof(ml_names[0]); i++)
		if (!strcmp(name, ml_names[i]))
			return 1;
	return 0;
}

/* Wheels torch pins to the exact build it was linked against. */
static int pinned_wheel(const char *name)
{
	return str_has_prefix(name, "nvidia-") || !strcmp(name, "cuda-toolkit") ||
	       !strcmp(name, "triton");
}

int stack_torch_mixed(const struct cd_stack_facts *st)
{
	const struct cd_package *p = stack_find(st, "torch");
	struct pep440_version a, b;

	if (!p || !st->torch.version || !st->torch.version_source ||
	    strcmp(st->torch.version_source, "torch/version.py") || stack_version(p, &a) ||
	    pep440_parse(st->torch.version, strlen(st->torch.version), &b))
		return 0;
	/* PyPI's default CUDA wheel records "2.11.0" in METADATA while its
	 * version.py says "2.11.0+cu130": a local label on one side only is the
	 * same install. Two different labels are not. */
	if (!a.local[0] || !b.local[0])
		a.local[0] = b.local[0] = '\0';
	return pep440_cmp(&a, &b) != 0;
}

struct extra_ask {
	const char *pkg; /* normalised package name */
	const char *extra;
};

struct rctx {
	const struct cd_facts *f;
	struct cd_findings *out;
	struct pep508_env env;
	struct extra_ask asks[EXTRAS_MAX];
	size_t n_asks;
	struct pep508_req req; /* scratch: large */
};

/* Who asks for pkg[extra]: requirements with extras whose marker holds. */
static void collect_extras(struct rctx *c)
{
	const struct cd_stack_facts *st = c->f->stack;
	struct cd_arena *a = c->out->arena;
	size_t i, k, e;

	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i];
		for (k = 0; k < p->n_requires; k++) {
			const char *s = p->requires[k], *semi = strchr(s, ';'),
				   *br = strchr(s, '[');
			if (!br || (semi && br > semi))
				continue; /* no extras: nothing to learn (and no parse) */
			if (pep508_parse(s, strlen(s), &c->req, NULL) ||
			    pep508_req_applies(&c->req, s, &c->env) != PEP508_TRUE)
				continue;
			for (e = 0; e < c->req.n_extras && c->n_asks < EXTRAS_MAX; e++) {
				char norm[PEP508_NAME_MAX];
				pep508_normalize(c->req.extras[e], strlen(c->req.extras[e]), norm,
						 sizeof(norm));
				c->asks[c->n_asks].pkg = arena_strdup(a, c->req.key);
				c->asks[c->n_asks].extra = arena_strdup(a, norm);
				c->n_asks++;
			}
		}
	}
}

/* 1: applies (extra set to the extra it came through, or NULL); 0: does not;
 * 2: applies only under an extra nobody asked for. */
static int applies(struct rctx *c, const struct cd_package *p, const char *s, const char **extra)
{
	int base, any;
	size_t i;

	*extra = NULL;
	c->env.extra = "";
	base = pep508_req_applies(&c->req, s, &c->env);
	if (base == PEP508_TRUE)
		return 1;
	for (i = 0; i < c->n_asks; i++) {
		if (strcmp(c->asks[i].pkg, p->name))
			continue;
		c->env.extra = c->asks[i].extra;
		if (pep508_req_applies(&c->req, s, &c->env) == PEP508_TRUE) {
			c->env.extra = "";
			*extra = c->asks[i].extra;
			return 1;
		}
	}
	c->env.extra = "";
	c->env.extra_unknown = 1;
	any = pep508_req_applies(&c->req, s, &c->env);
	c->env.extra_unknown = 0;
	return base == PEP508_FALSE && any == PEP508_UNKNOWN ? 2 : 0;
}

/* An extra named after the package it pulls in (transformers' extra "torch"
 * requiring torch>=2.x): the runtime checks such floors whether or not the
 * extra was asked for, so an unmet one matters. Other unrequested extras
 * ("ci", "test", "docs") do not, as pip check judges them. */
static int extra_names(const char *req, const char *key)
{
	char dq[160], sq[160];

	snprintf(dq, sizeof(dq), "\"%s\"", key);
	snprintf(sq, sizeof(sq), "'%s'", key);
	return strstr(req, "extra") && (strstr(req, dq) || strstr(req, sq));
}

struct item {
	const char *text;    /* evidence line */
	const char *install; /* 'name[extras]spec' to pass to pip */
	int optional;
};

struct items {
	struct item v[ITEMS_MAX];
	size_t n;
	int required; /* at least one non-optional item */
};

static void add_item(struct items *it, const char *text, const char *install, int optional)
{
	if (it->n == ITEMS_MAX || !text)
		return;
	it->v[it->n].text = text;
	it->v[it->n].install = install;
	it->v[it->n].optional = optional;
	it->required |= !optional;
	it->n++;
}

/* The requirement minus its marker, quoted for a shell: 'name>=1,<2'. */
static const char *install_arg(struct rctx *c, const char *s)
{
	char spec[PEP440_INPUT_MAX * 2];

	pep440_specset_format(&c->req.spec, spec, sizeof(spec));
	return arena_printf(c->out->arena, "'%s%s'", c->req.key, spec);
}

static void python_requirement(struct rctx *c, const struct cd_package *p, struct items *unmet)
{
	struct pep440_specset ss;
	struct pep440_version v;
	const char *pyv = c->env.python_full_version;

	if (!p->requires_python || !pyv ||
	    pep440_specset_parse(p->requires_python, strlen(p->requires_python), &ss) ||
	    pep440_parse(pyv, strlen(pyv), &v) ||
	    pep440_specset_contains(&ss, &v, PEP440_PRE_INCLUDE))
		return;
	add_item(unmet,
		 arena_printf(c->out->arena,
			      "Requires-Python %s, but the environment has Python %s",
			      p->requires_python, pyv),
		 NULL, 0);
}

static void evaluate(struct rctx *c, const struct cd_package *p, struct items *unmet,
		     struct items *pins)
{
	const struct cd_stack_facts *st = c->f->stack;
	struct cd_arena *a = c->out->arena;
	size_t k;

	python_requirement(c, p, unmet);
	for (k = 0; k < p->n_requires; k++) {
		const char *s = p->requires[k], *extra, *why;
		const struct cd_package *t;
		struct pep440_version have;
		int ap;
		if (pep508_parse(s, strlen(s), &c->req, NULL) || c->req.has_url)
			continue;
		if (!strcmp(c->req.key, p->name))
			continue; /* "pkg[extra]" self references */
		ap = applies(c, p, s, &extra);
		t = stack_find(st, c->req.key);
		if (!ap ||
		    (ap == 2 && (!t || !stack_is_ml(t->name) || !extra_names(s, c->req.key))))
			continue;
		why = extra	? arena_printf(a, " (extra '%s')", extra)
		      : ap == 2 ? " (optional: the installed copy is used anyway)"
				: "";
		if (!t) {
			/* Past the scan's cap an absent package is unknown, not missing. */
			if (ap == 1 && !st->packages_truncated)
				add_item(unmet,
					 arena_printf(a, "requires %s%s: not installed", s, why),
					 install_arg(c, s), 0);
			continue;
		}
		if (stack_version(t, &have) ||
		    pep440_specset_contains(&c->req.spec, &have, PEP440_PRE_INCLUDE))
			continue;
		if (ap == 1 && pinned_wheel(t->name) &&
		    (!strcmp(p->name, "torch") || !strcmp(p->name, "cuda-toolkit")))
			add_item(pins,
				 arena_printf(a, "%s requires %s; installed %s %s", p->name, s,
					      t->name, t->version),
				 install_arg(c, s), 0);
		else
			add_item(unmet,
				 arena_printf(a, "requires %s%s; installed %s", s, why, t->version),
				 install_arg(c, s), ap == 2);
	}
}

static void fix_line(struct rctx *c, struct cd_finding *x, const struct items *it)
{
	struct cd_arena *a = c->out->arena;
	const char *line = stack_pip(c->f);
	size_t i, n = 0;

	for (i = 0; i < it->n; i++)
		if (it->v[i].install) {
			line = arena_printf(a, "%s %s", line, it->v[i].install);
			n++;
		}
	if (n && line)
		finding_fix(x, a, "%s", line);
}

static void emit_unmet(struct rctx *c, const struct cd_package *p, const struct items *it)
{
	struct cd_arena *a = c->out->arena;
	struct cd_finding *x;
	size_t i;

	x = findings_add(c->out, "package-requirement-unmet",
			 it->required ? CD_SEV_ERROR : CD_SEV_WARNING, "python",
			 "%s %s: %zu requirement%s not met", p->name, p->version ? p->version : "?",
			 it->n, it->n == 1 ? "" : "s");
	if (!x)
		return;
	finding_detail(x, a,
		       "Evaluated from %s's Requires-Dist as `pip check` does, with this "
		       "environment's Python and platform in the markers.",
		       p->name);
	for (i = 0; i < it->n && i < CD_FINDING_LINES_MAX; i++)
		finding_evidence(x, a, "%s", it->v[i].text);
	fix_line(c, x, it);
}

static void emit_pins(struct rctx *c, const struct items *it)
{
	const struct cd_package *torch = stack_find(c->f->stack, "torch");
	struct cd_arena *a = c->out->arena;
	const char *local;
	struct cd_finding *x;
	size_t i;

	x = findings_add(c->out, "wheel-pin-mismatch", CD_SEV_ERROR, "python",
			 "CUDA wheels differ from the versions torch %s pins",
			 torch && torch->version ? torch->version : "?");
	if (!x)
		return;
	finding_detail(x, a,
		       "torch is built against the exact nvidia-* / cuda-toolkit / triton wheels "
		       "its METADATA pins; other versions load but can fail with undefined "
		       "symbols or wrong results.");
	for (i = 0; i < it->n && i < CD_FINDING_LINES_MAX; i++)
		finding_evidence(x, a, "%s", it->v[i].text);
	fix_line(c, x, it);
	local = torch && torch->version ? strchr(torch->version, '+') : NULL;
	if (local && str_has_prefix(local, "+cu"))
		finding_fix(
			x, a,
			"%s --force-reinstall 'torch==%s' --index-url "
			"https://download.pytorch.org/whl/%s   # or reinstall torch with its pins",
			stack_pip(c->f), torch->version, local + 1);
}

void stack_requirement_findings(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_stack_facts *st = f->stack;
	struct rctx *c = arena_alloc(out->arena, sizeof(*c));
	struct items *unmet = arena_alloc(out->arena, sizeof(*unmet));
	struct items *pins = arena_alloc(out->arena, sizeof(*pins));
	size_t i;

	if (!c || !unmet || !pins)
		return;
	c->f = f;
	c->out = out;
	python_marker_env(&st->python, &c->env);
	collect_extras(c);
	for (i = 0; i < st->n_packages; i++) {
		const struct cd_package *p = &st->packages[i];
		if (!stack_is_ml(p->name) || !(p->sources & CD_PKG_DIST) || !p->requires_known)
			continue;
		unmet->n = 0;
		unmet->required = 0;
		evaluate(c, p, unmet, pins);
		if (unmet->n)
			emit_unmet(c, p, unmet);
	}
	if (pins->n)
		emit_pins(c, pins);
}
