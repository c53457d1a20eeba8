/* jit: `cuda-doctor jit [--op NAME]... [--compile] [--gpu-cc LIST]
 * [--build-timeout SECONDS]` - will torch CUDA extensions and DeepSpeed's
 * ops JIT-compile here? Probes the files (and, with --compile, builds and
 * loads a test extension), checks, renders. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/fix/plan.h"
#include "check/jit/jit.h"
#include "cli/cli.h"
#include "report/jit_render.h"
#include "probe/jit/jit_smoke.h"
#include "probe/probe.h"

#define BUILD_TIMEOUT_DEFAULT_S 300
#define OPS_SEL_MAX		32

struct jit_args {
	const char *ops[OPS_SEL_MAX];
	size_t n_ops;
	int compile;
	const char *gpu_cc;
	int build_timeout_s;
};

static int parse(int argc, char **argv, struct jit_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->build_timeout_s = BUILD_TIMEOUT_DEFAULT_S;
	for (i = 1; i < argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--compile")) {
			a->compile = 1;
		} else if (cli_opt_value(argc, argv, &i, "--op", &v)) {
			if (!v || !*v)
				return cli_usage_error("jit", "--op needs an op name");
			if (a->n_ops == OPS_SEL_MAX)
				return cli_usage_error("jit", "too many --op options");
			a->ops[a->n_ops++] = v;
		} else if (cli_opt_value(argc, argv, &i, "--gpu-cc", &v)) {
			if (!v || !*v)
				return cli_usage_error(
					"jit", "--gpu-cc needs a list such as 9.0,8.0 or none");
			a->gpu_cc = v;
		} else if (cli_opt_value(argc, argv, &i, "--build-timeout", &v)) {
			char *end;
			long s;
			errno = 0;
			s = v ? strtol(v, &end, 10) : 0;
			if (!v || errno || *end || s < 1 || s > 86400)
				return cli_usage_error(
					"jit", "--build-timeout: expected seconds (1-86400)");
			a->build_timeout_s = (int)s;
		} else {
			return cli_usage_error("jit", "unexpected argument '%s'", argv[i]);
		}
	}
	return 0;
}

static int gpu_present(const struct cd_facts *f)
{
	return (f->gpus_known && f->n_gpus > 0) ||
	       (!f->gpus_known && file_exists(&f->root, "/dev/nvidiactl"));
}

static int render(const struct cd_opts *opts, const struct jit_report *rep,
		  const struct cd_plan *plan)
{
	struct cd_render r;
	json_t *j;
	int rc = 0;

	render_init(&r, opts, "jit");
	r.plan = plan;
	switch (r.format) {
	case CD_FMT_JSON:
		j = jit_json(rep);
		rc = json_print(r.out, j);
		json_decref(j);
		break;
	case CD_FMT_HTML:
		j = jit_json(rep);
		rc = html_print(r.out, j, "jit");
		json_decref(j);
		break;
	case CD_FMT_MARKDOWN: jit_markdown(&r, rep); break;
	default: jit_text(&r, rep); break;
	}
	return rc;
}

static void op_names(const struct cd_arena *unused, struct jit_ops *ops)
{
	size_t i;

	(void)unused;
	fprintf(stderr, "known ops:");
	for (i = 0; i < ops->n; i++)
		fprintf(stderr, " %s", ops->rows[i].name);
	fprintf(stderr, "\n");
}

/* --compile's progress on stderr (ctx), unless -q: the build can take minutes. */
static void smoke_progress(void *ctx, enum jit_smoke_phase phase, const char *tool,
			   const struct jit_smoke *s)
{
	FILE *to = ctx;

	if (phase == JIT_SMOKE_COMPILE)
		fprintf(to, "cuda-doctor jit: compiling a test extension with %s ...\n", tool);
	else if (phase == JIT_SMOKE_DONE)
		fprintf(to, "cuda-doctor jit: %s after %.1f s\n", s->status,
			(double)(s->compile_ms + s->link_ms + s->load_ms) / 1000.0);
}

static int run(struct cd_facts *f, struct jit_args *a, struct cd_opts *opts)
{
	struct cd_jit_facts *jf = calloc(1, sizeof(*jf));
	struct jit_ops *ops = calloc(1, sizeof(*ops));
	struct jit_smoke *smoke = a->compile ? calloc(1, sizeof(*smoke)) : NULL;
	struct cd_plan *plan = calloc(1, sizeof(*plan));
	struct jit_probe_opts po = {a->gpu_cc, (int64_t)time(NULL)};
	struct cd_findings fs;
	struct jit_report rep;
	const char *bad = NULL;
	struct driver_pending *drv;
	int rc;

	if (!jf || !ops || !plan || (a->compile && !smoke)) {
		rc = CD_EXIT_INTERNAL;
		goto out;
	}
	if (jit_ops_load(&f->arena, ops, a->ops, a->n_ops, &bad)) {
		rc = cli_usage_error("jit", "unknown op '%s'", bad ? bad : "?");
		op_names(&f->arena, ops);
		goto out;
	}
	/* The isolated driver query (NVML's init takes tens of ms on a real GPU)
	 * runs while the file probes and the compiler version checks do; the GPUs
	 * are read once it is collected. With --gpu-cc the driver is not asked. */
	drv = a->gpu_cc ? NULL : driver_probe_start(f);
	host_probe(f);
	container_probe(f);
	env_probe(f);
	toolkit_probe(f);
	stack_probe(f);
	jit_probe(f, jf, &po);
	if (drv)
		driver_probe_finish(f, drv);
	jit_probe_gpus(f, jf, &po);
	if (smoke) {
		struct jit_smoke_opts so = {a->build_timeout_s * 1000, opts->timeout_ms,
					    gpu_present(f), opts->quiet ? NULL : smoke_progress,
					    stderr};
		jit_smoke_run(f, jf, &so, smoke);
	}
	jit_ops_eval(f, jf, ops, &f->arena);
	findings_init(&fs, &f->arena);
	check_jit(f, jf, ops, smoke, &fs);
	rep = (struct jit_report){f, jf, ops, smoke, &fs};
	plan_of_findings(f, &fs, &f->arena, plan);
	rc = render(opts, &rep, plan)		   ? CD_EXIT_INTERNAL
	     : findings_worst(&fs) == CD_SEV_ERROR ? CD_EXIT_FINDINGS
						   : CD_EXIT_OK;
	if (fflush(stdout) != 0 && rc != CD_EXIT_INTERNAL)
		rc = CD_EXIT_INTERNAL;
out:
	free(jf);
	free(ops);
	free(smoke);
	free(plan);
	return rc;
}

int cmd_jit(int argc, char **argv, struct cd_opts *opts)
{
	struct jit_args a;
	struct cd_facts f;
	struct cd_err err = {0};
	int rc = parse(argc, argv, &a);

	if (rc)
		return rc;
	if (a.compile && opts->root && strcmp(opts->root, "/"))
		return cli_usage_error("jit",
				       "--compile runs the toolkit's nvcc and cannot be used "
				       "with --root");
	facts_init(&f, opts);
	if (root_init(&f.root, opts->root, &err)) {
		facts_free(&f);
		return cli_usage_error(NULL, "%s", err.msg);
	}
	if (opts->env && !file_is_dir(&f.root, opts->env)) {
		facts_free(&f);
		return cli_usage_error("jit", "--env %s: no such directory%s", opts->env,
				       opts->root ? " under --root" : "");
	}
	rc = run(&f, &a, opts);
	facts_free(&f);
	return rc;
}
