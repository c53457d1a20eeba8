/* check: `cuda-doctor check` - probe everything, run every check, render. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "check/check.h"
#include "check/fix/plan.h"
#include "cli/cli.h"
#include "core/file.h"
#include "core/outfile.h"
#include "format/imgcfg.h"
#include "probe/isolate.h"
#include "probe/probe.h"
#include "report/render.h"

/* -v: the peak memory of this process and of the isolated driver children,
 * apart, since NVML's own initialisation dominates the second; then the
 * time of each stage (driver-wait: how long the driver queries still ran
 * after the file probes had ended). */
static void print_cost(FILE *out, const struct cd_facts *f)
{
	struct rusage self, kids;
	size_t i;

	isolate_reap_detached(); /* their peak memory counts once they are reaped */
	if (!getrusage(RUSAGE_SELF, &self) && !getrusage(RUSAGE_CHILDREN, &kids))
		fprintf(out, "peak memory: cuda-doctor %.1f MB, isolated driver queries %.1f MB\n",
			(double)self.ru_maxrss / 1024.0, (double)kids.ru_maxrss / 1024.0);
	fputs("stages (ms):", out);
	for (i = 0; i < f->n_stages; i++)
		fprintf(out, "%s %s %.1f", i ? "," : "", f->stages[i].name,
			(double)f->stages[i].us / 1000.0);
	fputc('\n', out);
}

/* --image-config FILE: its Env becomes the probes' environment (the
 * environment a container of the image starts with). */
static int image_config(struct cd_opts *opts, const char *path, struct cd_arena *a)
{
	struct cd_root host;
	struct cd_buf b;
	struct imgcfg cfg;
	struct cd_err err = {0};
	const char *named = path;
	int rc;

	buf_init(&b, IMGCFG_INPUT_MAX);
	rc = root_init(&host, NULL, &err);
	if (!rc && (rc = file_read(&host, path, IMGCFG_INPUT_MAX, &b, &err)))
		named = NULL; /* the message names the file */
	if (!rc)
		rc = imgcfg_parse((const uint8_t *)(b.p ? b.p : ""), b.len, a, &cfg, &err);
	buf_free(&b);
	if (rc)
		return cli_usage_error("check", "--image-config %s%s%s", named ? named : "",
				       named ? ": " : "", err.msg);
	opts->envp = cfg.env;
	opts->image_config = path;
	return 0;
}

/* check's own options: --deep, --volatile, --full-json, -o FILE,
 * --host-driver, --image-config FILE (whose environment is read into a). */
static int parse_args(int argc, char **argv, struct cd_opts *opts, const char **out,
		      struct cd_arena *a)
{
	const char *config = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--deep"))
			opts->deep = 1;
		else if (!strcmp(argv[i], "--volatile"))
			opts->keep_volatile = 1;
		else if (!strcmp(argv[i], "--full-json"))
			opts->full_json = 1;
		else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (i + 1 >= argc || !*argv[i + 1])
				return cli_usage_error("check", "%s needs a file name", argv[i]);
			*out = argv[++i];
		} else if (!strncmp(argv[i], "--output=", 9) && argv[i][9])
			*out = argv[i] + 9;
		else if (!strcmp(argv[i], "--host-driver"))
			opts->host_driver = 1;
		else if (!strcmp(argv[i], "--image-config") && i + 1 < argc)
			config = argv[++i];
		else if (!strncmp(argv[i], "--image-config=", 15))
			config = argv[i] + 15;
		else if (!strcmp(argv[i], "--image-config"))
			return cli_usage_error("check", "--image-config needs a FILE");
		else
			return cli_usage_error("check", "unexpected argument '%s'", argv[i]);
	}
	if (config && !opts->root)
		return cli_usage_error("check", "--image-config goes with --root DIR (the image "
						"unpacked there)");
	return config ? image_config(opts, config, a) : 0;
}

int cmd_check(int argc, char **argv, struct cd_opts *opts)
{
	struct cd_facts f;
	struct cd_findings fs;
	struct cd_render r;
	struct cd_outfile out;
	struct cd_plan *plan;
	struct cd_err err = {0};
	struct cd_arena cfg;
	const char *path = NULL;
	struct driver_pending *drv;
	int64_t t;
	int rc;

	arena_init(&cfg); /* the --image-config environment, used to the end */
	if ((rc = parse_args(argc, argv, opts, &path, &cfg))) {
		arena_free(&cfg);
		return rc;
	}
	if (outfile_open(&out, path, &err)) {
		fprintf(stderr, "cuda-doctor check: %s\n", err.msg);
		arena_free(&cfg);
		return CD_EXIT_USAGE;
	}
	plan = calloc(1, sizeof(*plan));
	facts_init(&f, opts);
	if (!plan || root_init(&f.root, opts->root, &err)) {
		facts_free(&f);
		outfile_abort(&out);
		free(plan);
		arena_free(&cfg);
		return plan ? cli_usage_error(NULL, "%s", err.msg) : CD_EXIT_INTERNAL;
	}
	drv = probe_files(&f);
	t = facts_clock_us();
	findings_init(&fs, &f.arena);
	check_early(&f, &fs);
	t = facts_stage(&f, "checks-early", t);
	probe_driver_wait(&f, drv, t);
	t = facts_clock_us();
	check_rest(&f, &fs);
	plan_of_findings(&f, &fs, &f.arena, plan);
	t = facts_stage(&f, "checks", t);
	render_init(&r, opts, "check");
	r.out = out.fp;
	r.plan = plan;
	rc = render_report(&r, &f, &fs);
	(void)facts_stage(&f, "render", t);
	if (!rc && opts->verbose && opts->format == CD_FMT_TEXT)
		print_cost(out.fp, &f);
	if (rc && rc != CD_EIO) {
		outfile_abort(&out);
		rc = CD_EXIT_INTERNAL;
	} else if (outfile_commit(&out, &err)) {
		fprintf(stderr, "cuda-doctor check: %s\n", err.msg);
		rc = CD_EXIT_WRITE;
	} else
		rc = findings_worst(&fs) == CD_SEV_ERROR ? CD_EXIT_FINDINGS : CD_EXIT_OK;
	facts_free(&f);
	free(plan);
	arena_free(&cfg);
	return rc;
}
