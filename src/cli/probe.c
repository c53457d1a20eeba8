/* probe: `cuda-doctor probe [--devices LIST] [--quick|--full] [--nccl]
 * [--nccl-lib PATH] [--nagios] [--print-ptx]` - the live GPU health test.
 * Exit status: 0 every device passed and no finding is an error, 1 an error
 * finding (a step failed, hung or crashed), 2 usage, 3 internal; with
 * --nagios 0/1/2/3 = OK/WARNING/CRITICAL/UNKNOWN. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "check/live.h"
#include "cli/cli.h"
#include "core/outfile.h"
#include "probe/live/live.h"
#include "probe/probe.h"
#include "report/probe_render.h"
#include "report/prom.h"

struct probe_args {
	struct live_opts lo;
	int nagios, print_ptx;
	const char *out; /* -o FILE */
};

static int parse(int argc, char **argv, struct probe_args *a)
{
	int i, quick = 0;

	for (i = 1; i < argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--full"))
			a->lo.full = 1;
		else if (!strcmp(argv[i], "--nccl"))
			a->lo.nccl = 1;
		else if (!strcmp(argv[i], "--nagios"))
			a->nagios = 1;
		else if (!strcmp(argv[i], "--print-ptx"))
			a->print_ptx = 1;
		else if (cli_opt_value(argc, argv, &i, "--devices", &v)) {
			if (!v || !*v)
				return cli_usage_error(
					"probe", "--devices needs a list (0,1 or GPU-... UUIDs)");
			a->lo.devices = v;
		} else if (cli_opt_value(argc, argv, &i, "-o", &v) ||
			   cli_opt_value(argc, argv, &i, "--output", &v)) {
			if (!v || !*v)
				return cli_usage_error("probe", "-o needs a file name");
			a->out = v;
		} else if (cli_opt_value(argc, argv, &i, "--nccl-lib", &v)) {
			if (!v || !*v)
				return cli_usage_error("probe", "--nccl-lib needs a path");
			a->lo.nccl_lib = v;
			a->lo.nccl = 1;
		} else
			return cli_usage_error("probe", "unexpected argument '%s'", argv[i]);
	}
	if (quick && a->lo.full)
		return cli_usage_error("probe", "--quick and --full exclude each other");
	if (a->nagios && a->out)
		return cli_usage_error("probe", "--nagios prints one status line: no -o");
	return 0;
}

static int render(const struct cd_opts *opts, const struct probe_args *a, const struct cd_facts *f,
		  const struct cd_findings *fs, FILE *out)
{
	struct cd_render r;
	json_t *j;
	int rc = 0;

	render_init(&r, opts, "probe");
	r.out = out;
	if (a->nagios) {
		probe_nagios(r.out, f, fs);
		return 0;
	}
	switch (r.format) {
	case CD_FMT_JSON:
		j = probe_json(f, fs);
		rc = json_print(r.out, j);
		json_decref(j);
		break;
	case CD_FMT_MARKDOWN: probe_markdown(&r, f, fs); break;
	case CD_FMT_PROMETHEUS: rc = prom_probe(r.out, f, fs); break;
	default: probe_text(&r, f, fs); break;
	}
	return rc;
}

/* With --nccl, the environment's NCCL transport switches (check_env's
 * nccl-transport-disabled) belong in the report; its other findings do not:
 * they are dropped again from the end of the list. */
static void nccl_env(const struct cd_facts *f, struct cd_findings *out)
{
	size_t n0 = out->n, i, k = n0;

	check_env(f, out);
	for (i = n0; i < out->n; i++)
		if (!strcmp(out->items[i]->id, "nccl-transport-disabled"))
			out->items[k++] = out->items[i];
	out->n = k;
}

static int run(struct cd_facts *f, struct probe_args *a, struct cd_opts *opts)
{
	struct cd_findings fs;
	struct cd_outfile out;
	struct cd_err err = {0};
	int rc;

	if (outfile_open(&out, a->out, &err)) {
		fprintf(stderr, "cuda-doctor probe: %s\n", err.msg);
		return CD_EXIT_USAGE;
	}
	if (a->lo.nccl && !a->lo.nccl_lib)
		stack_probe(f); /* the libnccl.so.2 import torch would load */
	rc = live_probe(f, &a->lo, &err);
	if (rc) {
		outfile_abort(&out);
		return rc == CD_EUSAGE ? cli_usage_error("probe", "%s", err.msg) : CD_EXIT_INTERNAL;
	}
	findings_init(&fs, &f->arena);
	check_driver(f, &fs);
	check_gpus(f, &fs);
	check_live(f, &fs);
	if (a->lo.nccl)
		nccl_env(f, &fs);
	findings_sort(&fs);
	/* A write error is outfile_commit's to report (stdout: main's). */
	if (render(opts, a, f, &fs, out.fp) && !ferror(out.fp)) {
		outfile_abort(&out);
		return a->nagios ? PROBE_NAGIOS_UNKNOWN : CD_EXIT_INTERNAL;
	}
	if (outfile_commit(&out, &err)) {
		fprintf(stderr, "cuda-doctor probe: %s\n", err.msg);
		return CD_EXIT_WRITE;
	}
	if (a->nagios)
		return (int)probe_nagios_status(f, &fs);
	return findings_worst(&fs) == CD_SEV_ERROR ? CD_EXIT_FINDINGS : CD_EXIT_OK;
}

int cmd_probe(int argc, char **argv, struct cd_opts *opts)
{
	struct probe_args a;
	struct cd_facts f;
	struct cd_err err = {0};
	int rc;

	memset(&a, 0, sizeof(a));
	if ((rc = parse(argc, argv, &a)) != 0)
		return rc;
	if (a.print_ptx) {
		fputs(live_ptx_text(), stdout);
		return fflush(stdout) ? CD_EXIT_INTERNAL : CD_EXIT_OK;
	}
	a.lo.timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : CD_TIMEOUT_DEFAULT_MS;
	facts_init(&f, opts);
	if (root_init(&f.root, opts->root, &err)) {
		facts_free(&f);
		return cli_usage_error(NULL, "%s", err.msg);
	}
	rc = run(&f, &a, opts);
	facts_free(&f);
	return rc;
}
