/* check: `cuda-doctor check` - probe everything, run every check, render. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "check/check.h"
#include "check/fix/plan.h"
#include "cli/cli.h"
#include "probe/probe.h"
#include "report/render.h"

/* -v: the peak memory of this process and of the isolated driver children,
 * apart, since NVML's own initialisation dominates the second. */
static void print_peak_memory(void)
{
	struct rusage self, kids;

	if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &kids))
		return;
	printf("peak memory: cuda-doctor %.1f MB, isolated driver queries %.1f MB\n",
	       (double)self.ru_maxrss / 1024.0, (double)kids.ru_maxrss / 1024.0);
}

int cmd_check(int argc, char **argv, struct cd_opts *opts)
{
	struct cd_facts f;
	struct cd_findings fs;
	struct cd_render r;
	struct cd_plan *plan = calloc(1, sizeof(*plan));
	struct cd_err err = {0};
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--deep"))
		opts->deep = 1, argc--, argv++;
	if (argc > 1)
		return cli_usage_error("check", "unexpected argument '%s'", argv[1]);
	facts_init(&f, opts);
	if (!plan || root_init(&f.root, opts->root, &err)) {
		facts_free(&f);
		free(plan);
		return plan ? cli_usage_error(NULL, "%s", err.msg) : CD_EXIT_INTERNAL;
	}
	probe_all(&f);
	findings_init(&fs, &f.arena);
	check_all(&f, &fs);
	plan_of_findings(&f, &fs, &f.arena, plan);
	render_init(&r, opts, "check");
	r.plan = plan;
	rc = render_report(&r, &f, &fs);
	if (!rc && opts->verbose && opts->format == CD_FMT_TEXT)
		print_peak_memory();
	if (rc)
		rc = CD_EXIT_INTERNAL;
	else
		rc = findings_worst(&fs) == CD_SEV_ERROR ? CD_EXIT_FINDINGS : CD_EXIT_OK;
	if (fflush(stdout) != 0 && !rc)
		rc = CD_EXIT_INTERNAL;
	facts_free(&f);
	free(plan);
	return rc;
}
