/* main: the command table and global options only. Global options are taken
 * from anywhere before a "--", so `cuda-doctor check --json` and
 * `cuda-doctor --json check` mean the same; everything else is handed to the
 * command, whose name is the first word that is not a global option. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/str.h"
#include "probe/interrupt.h"

/* Global options that take a value. */
static const char *const valued[] = {"--root",	   "--env",	"--format", "--nvml-lib",
				     "--cuda-lib", "--timeout", NULL};

static int takes_value(const char *arg, const char **name_out, const char **inline_val)
{
	size_t i;

	for (i = 0; valued[i]; i++) {
		size_t n = strlen(valued[i]);
		if (!strncmp(arg, valued[i], n) && (arg[n] == '\0' || arg[n] == '=')) {
			*name_out = valued[i];
			*inline_val = arg[n] == '=' ? arg + n + 1 : NULL;
			return 1;
		}
	}
	return 0;
}

static int set_timeout(struct cd_opts *o, const char *v)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(v, &end);
	if (end == v || *end || errno || !(s >= 0.1 && s <= 3600))
		return cli_usage_error(NULL,
				       "--timeout '%s': expected seconds between 0.1 and 3600", v);
	o->timeout_ms = (int)(s * 1000.0 + 0.5);
	return 0;
}

static int set_valued(struct cd_opts *o, const char *name, const char *v)
{
	if (!*v)
		return cli_usage_error(NULL, "%s: empty value", name);
	if (!strcmp(name, "--root"))
		o->root = v;
	else if (!strcmp(name, "--env"))
		o->env = v;
	else if (!strcmp(name, "--nvml-lib"))
		o->nvml_lib = v;
	else if (!strcmp(name, "--cuda-lib"))
		o->cuda_lib = v;
	else if (!strcmp(name, "--timeout"))
		return set_timeout(o, v);
	else if (!strcmp(v, "text"))
		o->format = CD_FMT_TEXT;
	else if (!strcmp(v, "json"))
		o->format = CD_FMT_JSON;
	else if (!strcmp(v, "markdown") || !strcmp(v, "md"))
		o->format = CD_FMT_MARKDOWN;
	else if (!strcmp(v, "html"))
		o->format = CD_FMT_HTML;
	else if (!strcmp(v, "prometheus"))
		o->format = CD_FMT_PROMETHEUS;
	else if (!strcmp(v, "sarif"))
		o->format = CD_FMT_SARIF;
	else
		return cli_usage_error(
			NULL,
			"--format '%s': expected text, json or markdown, or html (or "
			"prometheus for check and probe, sarif for check and dockerfile)",
			v);
	return 0;
}

/* Take a flag-type global option; 1 when arg was one. */
static int take_flag(struct cd_opts *o, const char *arg, int *help, int *version)
{
	if (!strcmp(arg, "--json"))
		o->format = CD_FMT_JSON;
	else if (!strcmp(arg, "--no-color") || !strcmp(arg, "--no-colour"))
		o->no_color = 1;
	else if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet"))
		o->quiet = 1;
	else if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose"))
		o->verbose++;
	else if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		*help = 1;
	else if (!strcmp(arg, "--version"))
		*version = 1;
	else
		return 0;
	return 1;
}

static int want_color(const struct cd_opts *o)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (o->no_color || (nc && *nc) || o->format != CD_FMT_TEXT)
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return isatty(STDOUT_FILENO);
}

/* Every command's output goes through stdout's buffer: flush it and check it
 * here, once, so a failed write (a full disk, EPIPE with SIGPIPE ignored) is
 * one message and one exit status whatever the command made of it. stdio
 * keeps no errno with its error flag: when the failed bytes are gone from the
 * buffer, one more byte (a newline after output already cut short) asks the
 * descriptor for the cause. */
static int finish_output(int rc)
{
	int e;

	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	e = errno;
	if (!e && write(STDOUT_FILENO, "\n", 1) < 0)
		e = errno;
	fprintf(stderr, "cuda-doctor: cannot write the output: %s\n",
		e ? strerror(e) : "write error");
	return CD_EXIT_WRITE;
}

int main(int argc, char **argv)
{
	struct cd_opts opts = {0};
	const struct cd_command *cmd = NULL;
	char **rest;
	int nrest = 1, i, help = 0, version = 0, rc;

	opts.timeout_ms = CD_TIMEOUT_DEFAULT_MS;
	opts.argv0 = argv[0];
	rest = calloc((size_t)argc + 2, sizeof(*rest));
	if (!rest)
		return CD_EXIT_INTERNAL;
	for (i = 1; i < argc; i++) {
		const char *name, *val;
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				rest[nrest++] = argv[i++];
			break;
		}
		if (takes_value(argv[i], &name, &val)) {
			if (!val && i + 1 >= argc) {
				rc = cli_usage_error(NULL, "%s needs a value", name);
				goto out;
			}
			rc = set_valued(&opts, name, val ? val : argv[++i]);
			if (rc)
				goto out;
			continue;
		}
		/* Help after the command belongs to the command: keep it there too. */
		if (take_flag(&opts, argv[i], &help, &version))
			continue;
		if (!cmd && argv[i][0] != '-') {
			cmd = cli_find(argv[i]);
			if (!cmd) {
				rc = cli_usage_error(NULL, "unknown command '%s'", argv[i]);
				goto out;
			}
			continue;
		}
		if (!cmd && argv[i][0] == '-') {
			rc = cli_usage_error(NULL, "unknown option '%s'", argv[i]);
			goto out;
		}
		rest[nrest++] = argv[i];
	}
	rest[nrest] = NULL;
	if (version) {
		printf("cuda-doctor %s\n", CD_VERSION);
		rc = CD_EXIT_OK;
		goto out;
	}
	if (help) {
		cli_help(cmd);
		rc = CD_EXIT_OK;
		goto out;
	}
	if (!cmd)
		cmd = cli_find("check");
	if (opts.format == CD_FMT_PROMETHEUS && strcmp(cmd->name, "check") &&
	    strcmp(cmd->name, "probe")) {
		rc = cli_usage_error(NULL,
				     "--format prometheus: only check and probe write metrics");
		goto out;
	}
	if (opts.format == CD_FMT_SARIF && strcmp(cmd->name, "check") &&
	    strcmp(cmd->name, "dockerfile")) {
		rc = cli_usage_error(NULL, "--format sarif is for check and dockerfile");
		goto out;
	}
	opts.color = want_color(&opts);
	rest[0] = (char *)cmd->name;
	intr_install();
	rc = cmd->run(nrest, rest, &opts);
	if (intr_signal()) { /* the children stopped, the temporary files gone */
		free(rest);
		return 128 + intr_signal();
	}
out:
	free(rest);
	return finish_output(rc);
}
