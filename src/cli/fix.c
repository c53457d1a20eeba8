/* fix: `cuda-doctor fix [--apply] [--yes] [--for torch|deepspeed|vllm|jax]
 * [--torch X.Y[.Z]] [--wheel FILE] [--jit] [--model SPEC]` - the findings of
 * check (and of jit with --jit, --apply or --for deepspeed, and of model with
 * --model) as one ordered plan, and the
 * torch to install on this machine. Probes as check does (the same facts),
 * checks, plans, renders; --apply then does the plan's reversible steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check.h"
#include "check/fix/plan.h"
#include "check/install.h"
#include "check/jit/jit.h"
#include "check/model/model.h"
#include "cli/cli.h"
#include "cli/fix_int.h"
#include "probe/jit/jit.h"
#include "probe/probe.h"
#include "probe/stack/wheel.h"
#include "report/fix_render.h"

struct fix_args {
	int apply, yes, jit;
	const char *for_what; /* torch | deepspeed | vllm | jax */
	const char *torch;
	const char *wheel;
	const char *model; /* --model PATH|ORG/NAME: model's findings too */
};

static int parse(int argc, char **argv, struct fix_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->for_what = "torch";
	for (i = 1; i < argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--apply"))
			a->apply = a->jit = 1;
		else if (!strcmp(argv[i], "--yes") || !strcmp(argv[i], "-y"))
			a->yes = 1;
		else if (!strcmp(argv[i], "--jit"))
			a->jit = 1;
		else if (cli_opt_value(argc, argv, &i, "--for", &v)) {
			if (!v || (strcmp(v, "torch") && strcmp(v, "deepspeed") &&
				   strcmp(v, "vllm") && strcmp(v, "jax")))
				return cli_usage_error(
					"fix", "--for: expected torch, deepspeed, vllm or jax");
			a->for_what = v;
			a->jit |= !strcmp(v, "deepspeed");
		} else if (cli_opt_value(argc, argv, &i, "--torch", &v)) {
			if (!v || !*v)
				return cli_usage_error("fix",
						       "--torch needs a release (2.9 or 2.9.1)");
			a->torch = v;
		} else if (cli_opt_value(argc, argv, &i, "--model", &v)) {
			if (!v || !*v)
				return cli_usage_error("fix", "--model needs PATH or ORG/NAME");
			a->model = v;
		} else if (cli_opt_value(argc, argv, &i, "--wheel", &v)) {
			if (!v || !*v)
				return cli_usage_error("fix", "--wheel needs a .whl file");
			a->wheel = v;
		} else {
			return cli_usage_error("fix", "unexpected argument '%s'", argv[i]);
		}
	}
	return 0;
}

/* --torch names a release the data knows, and a patch of it that it lists. */
static int torch_known(const char *v)
{
	struct torchrel_release p;
	size_t dots = 0;
	const char *c;

	for (c = v; *c; c++) {
		if (*c == '.')
			dots++;
		else if (*c < '0' || *c > '9')
			return 0;
	}
	if (dots < 1 || dots > 2 || torchrel_patch(v, &p))
		return 0;
	return dots == 1 || !strcmp(p.torch, v);
}

/* jit's facts and findings, added to fs (check's). */
static int with_jit(struct cd_facts *f, struct cd_jit_facts *jf, struct cd_findings *fs)
{
	struct jit_ops *ops = calloc(1, sizeof(*ops));
	struct jit_probe_opts po = {NULL, (int64_t)time(NULL)};
	const char *bad = NULL;

	if (!ops)
		return CD_EXIT_INTERNAL;
	jit_probe(f, jf, &po);
	jit_probe_gpus(f, jf, &po);
	if (jit_ops_load(&f->arena, ops, NULL, 0, &bad) == 0) {
		jit_ops_eval(f, jf, ops, &f->arena);
		check_jit(f, jf, ops, NULL, fs);
	}
	free(ops);
	return 0;
}

/* `cuda-doctor model SPEC`'s findings (its defaults: every GPU, dtype auto,
 * 0.85 of free memory), added to fs. */
static int with_model(struct cd_facts *f, const char *spec, struct cd_findings *fs)
{
	struct md_request mreq = {spec, NULL};
	struct mp_request req;
	struct cd_model_facts *m = calloc(1, sizeof(*m));
	struct cd_model_plan *p = calloc(1, sizeof(*p));
	int rc = CD_EXIT_INTERNAL;

	memset(&req, 0, sizeof(req));
	req.headroom = 0.85;
	req.seq_len = req.batch = req.mem_available = CD_UNK;
	req.visible_devices = facts_getenv(f, "CUDA_VISIBLE_DEVICES");
	if (m && p) {
		model_probe(f, &mreq, m);
		model_plan(f, m, &req, &f->arena, p);
		check_model(f, m, &req, p, fs);
		rc = 0;
	}
	free(m);
	free(p);
	return rc;
}

static int render(const struct cd_opts *opts, const struct fix_report *rep)
{
	struct cd_render r;
	json_t *j;
	int rc = 0;

	render_init(&r, opts, "fix");
	switch (r.format) {
	case CD_FMT_JSON:
		j = fix_json(rep);
		rc = json_print(r.out, j);
		json_decref(j);
		break;
	case CD_FMT_MARKDOWN: fix_markdown(&r, rep); break;
	default: fix_text(&r, rep); break;
	}
	return rc;
}

/* The install step goes into the plan when torch is missing from a found
 * environment, or when a release or wheel was asked for and is not what is
 * installed. */
static int wants_install(const struct cd_facts *f, const struct fix_args *a,
			 const struct install_choice *c)
{
	const struct cd_torch_facts *t = f->stack ? &f->stack->torch : NULL;

	if (!c->line && !c->alt_line)
		return 0;
	if (!t || !t->installed)
		return f->stack && f->stack->python.prefix && !f->stack->python.problem;
	if (!a->torch && !a->wheel)
		return 0;
	return c->pick.chosen != c->pick.installed ||
	       strncmp(t->version, c->pick.patch.torch, strlen(c->pick.patch.torch)) ||
	       (t->version[strlen(c->pick.patch.torch)] != '\0' &&
		t->version[strlen(c->pick.patch.torch)] != '+');
}

static int run(struct cd_facts *f, const struct fix_args *a, struct cd_opts *opts)
{
	struct cd_jit_facts *jf = a->jit ? calloc(1, sizeof(*jf)) : NULL;
	struct cd_torch_wheel *wheel = a->wheel ? calloc(1, sizeof(*wheel)) : NULL;
	struct install_choice *c = calloc(1, sizeof(*c));
	struct cd_plan *plan = calloc(1, sizeof(*plan));
	struct install_req req = {0};
	struct cd_findings fs;
	struct plan_input in;
	struct fix_report rep;
	char pin[32];
	int rc = CD_EXIT_INTERNAL, have;

	if (!c || !plan || (a->jit && !jf) || (a->wheel && !wheel))
		goto out;
	probe_all(f);
	findings_init(&fs, &f->arena);
	check_all(f, &fs);
	if ((jf && with_jit(f, jf, &fs)) || (a->model && with_model(f, a->model, &fs)))
		goto out;
	findings_sort(&fs);
	if (wheel) {
		wheel_probe(f, a->wheel, wheel);
		req.wheel = wheel;
	}
	req.torch = a->torch;
	if (!req.torch && !strcmp(a->for_what, "vllm") &&
	    install_pin(f, "vllm", pin, sizeof(pin))) {
		req.torch = pin;
		req.torch_from = "vLLM's pin";
	}
	have = strcmp(a->for_what, "jax") && install_choose(f, &req, &f->arena, c) == 0;
	in = (struct plan_input){&fs, jf, have ? c : NULL, have && wants_install(f, a, c)};
	plan_build(f, &in, &f->arena, plan);
	rep = (struct fix_report){
		f,     &fs,
		plan,  have ? c : NULL,
		wheel, strcmp(a->for_what, "jax") ? NULL : install_cmd_jax(f, &f->arena)};
	if (render(opts, &rep)) {
		rc = CD_EXIT_INTERNAL;
		goto out;
	}
	rc = findings_worst(&fs) == CD_SEV_ERROR ? CD_EXIT_FINDINGS : CD_EXIT_OK;
	if (a->apply) {
		struct fix_apply_opts ao = {a->yes,
					    stdin,
					    stderr,
					    opts->format == CD_FMT_TEXT ? stdout : stderr,
					    "cuda-doctor.env",
					    time(NULL)};
		fflush(stdout);
		if (fix_apply(f, jf, plan, &ao))
			rc = CD_EXIT_FINDINGS;
	}
	if (fflush(stdout) != 0 && rc != CD_EXIT_INTERNAL)
		rc = CD_EXIT_INTERNAL;
out:
	free(jf);
	free(wheel);
	free(c);
	free(plan);
	return rc;
}

int cmd_fix(int argc, char **argv, struct cd_opts *opts)
{
	struct fix_args a;
	struct cd_facts f;
	struct cd_err err = {0};
	int rc = parse(argc, argv, &a);

	if (rc)
		return rc;
	if (a.torch && !torch_known(a.torch))
		return cli_usage_error(
			"fix", "--torch %s: not a release in data/torch_releases.tsv", a.torch);
	facts_init(&f, opts);
	if (root_init(&f.root, opts->root, &err)) {
		facts_free(&f);
		return cli_usage_error(NULL, "%s", err.msg);
	}
	rc = run(&f, &a, opts);
	facts_free(&f);
	return rc;
}
