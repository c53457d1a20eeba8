/* diff: `cuda-doctor diff REPORT.json...|DIR|-` - read check reports of many
 * nodes, group them by fingerprint, print what differs. Exit 0 when the keys
 * that must match agree, 1 when they differ, 2 when an input could not be
 * read (the diff of the others is still printed) or on a usage error. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/outfile.h"
#include "report/diff_in.h"
#include "report/diff_render.h"

#define CMD	      "diff"
#define MUST_MAX      64
#define MUST_TEXT_MAX 4096

/* --must-match default: the driver, CUDA runtime, torch, cuDNN, NCCL and the
 * NCCL_* variables, which ranks of one job must agree on. */
static const char *const must_default[] = {"driver", "cuda-runtime", "torch",
					   "cudnn",  "nccl",	     "nccl-env"};

struct diff_args {
	const char *must[MUST_MAX];
	size_t n_must;
	int must_given, verify;
	char must_text[MUST_TEXT_MAX]; /* the lists, split in place */
	size_t used;
	const char *html, *out;
	const char *inputs[4096];
	size_t n_inputs;
};

static int add_must(struct diff_args *a, const char *list)
{
	size_t len = strlen(list);
	char *p = a->must_text + a->used, *tok;

	a->must_given = 1;
	if (a->used + len + 1 > sizeof(a->must_text))
		return cli_usage_error(CMD, "--must-match: the lists are too long");
	memcpy(p, list, len + 1);
	a->used += len + 1;
	while (*p) {
		size_t n = strcspn(p, ",");
		tok = p;
		p += n + (p[n] == ',');
		tok[n] = '\0';
		if (!n)
			continue;
		if (a->n_must == MUST_MAX)
			return cli_usage_error(CMD, "--must-match: more than %d keys", MUST_MAX);
		a->must[a->n_must++] = tok;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct diff_args *a)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--must-match") || !strcmp(o, "--html") || !strcmp(o, "-o")) {
			if (i + 1 >= argc)
				return cli_usage_error(CMD, "%s needs a value", o);
			if (!strcmp(o, "--must-match") && add_must(a, argv[++i]))
				return CD_EXIT_USAGE;
			else if (!strcmp(o, "--html"))
				a->html = argv[++i];
			else if (!strcmp(o, "-o"))
				a->out = argv[++i];
		} else if (!strncmp(o, "--must-match=", 13)) {
			if (add_must(a, o + 13))
				return CD_EXIT_USAGE;
		} else if (!strncmp(o, "--html=", 7))
			a->html = o + 7;
		else if (!strcmp(o, "--verify"))
			a->verify = 1;
		else if (o[0] == '-' && o[1])
			return cli_usage_error(CMD, "unknown option '%s'", o);
		else if (a->n_inputs == sizeof(a->inputs) / sizeof(a->inputs[0]))
			return cli_usage_error(CMD, "more than 4096 arguments: give a directory");
		else
			a->inputs[a->n_inputs++] = o;
	}
	if (!a->n_inputs)
		return cli_usage_error(CMD, "no report: give REPORT.json files, a directory or -");
	if (!a->must_given) {
		for (i = 0; (size_t)i < sizeof(must_default) / sizeof(must_default[0]); i++)
			a->must[a->n_must++] = must_default[i];
	}
	return 0;
}

static int write_html(const struct diff *d, const char *path)
{
	struct cd_outfile o;
	struct cd_err err = {0};

	if (outfile_open(&o, path, &err) || diff_html(o.fp, d)) {
		outfile_abort(&o);
		fprintf(stderr, "cuda-doctor %s: --html %s: %s\n", CMD, path,
			err.msg[0] ? err.msg : "write failed");
		return CD_EXIT_INTERNAL;
	}
	if (outfile_commit(&o, &err)) {
		fprintf(stderr, "cuda-doctor %s: %s\n", CMD, err.msg);
		return CD_EXIT_INTERNAL;
	}
	return 0;
}

static int render(const struct cd_opts *opts, const struct diff *d, const struct diff_args *a)
{
	struct cd_outfile out;
	struct cd_render r;
	struct cd_err err = {0};
	int rc;

	if (a->html && (rc = write_html(d, a->html)))
		return rc;
	if (outfile_open(&out, a->out, &err)) {
		fprintf(stderr, "cuda-doctor %s: %s\n", CMD, err.msg);
		return CD_EXIT_USAGE;
	}
	render_init(&r, opts, CMD);
	r.out = out.fp;
	rc = opts->format == CD_FMT_JSON ? diff_jsonl(out.fp, d) : diff_text(&r, d);
	if (rc) {
		outfile_abort(&out);
		return CD_EXIT_INTERNAL;
	}
	if (outfile_commit(&out, &err)) {
		fprintf(stderr, "cuda-doctor %s: %s\n", CMD, err.msg);
		return CD_EXIT_INTERNAL;
	}
	if (d->n_bad || !d->n_nodes)
		return CD_EXIT_USAGE;
	return d->n_must_differ ? CD_EXIT_FINDINGS : CD_EXIT_OK;
}

int cmd_diff(int argc, char **argv, struct cd_opts *opts)
{
	static struct diff_args a;
	struct diff d;
	size_t i;
	int rc;

	memset(&a, 0, sizeof(a));
	if (opts->format != CD_FMT_TEXT && opts->format != CD_FMT_JSON)
		return cli_usage_error(CMD, "--format: diff prints text or json (lines)");
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc;
	diff_init(&d);
	for (i = 0, rc = 0; i < a.n_inputs && !rc; i++)
		rc = diff_read_arg(&d, a.inputs[i], a.verify);
	if (!rc)
		rc = diff_finish(&d, a.must, a.n_must);
	if (rc) {
		fprintf(stderr, "cuda-doctor %s: out of memory\n", CMD);
		rc = CD_EXIT_INTERNAL;
	} else
		rc = render(opts, &d, &a);
	diff_free(&d);
	return rc;
}
