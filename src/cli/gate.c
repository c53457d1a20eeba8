/* gate: `cuda-doctor gate` - check, then judge a policy (--policy FILE lines,
 * --require EXPR) against the facts and findings. Exit 0 when every
 * requirement holds, 1 when one does not, 2 for a policy that does not parse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/live.h"
#include "check/check.h"
#include "check/gate.h"
#include "cli/cli.h"
#include "core/file.h"
#include "core/outfile.h"
#include "probe/live/live.h"
#include "probe/probe.h"
#include "report/gate_render.h"

#define CMD		"gate"
#define GATE_RULES_MAX	256
#define GATE_ALLOW_MAX	64
#define GATE_POLICY_MAX ((size_t)1 << 20) /* a policy file is a few lines */

struct gate_args {
	struct policy_rule *rules; /* GATE_RULES_MAX */
	const char *origins[GATE_RULES_MAX];
	size_t n;
	const char *allow[GATE_ALLOW_MAX];
	size_t n_allow;
	const char *out;
	int probe; /* the policy asks for the live probe */
};

static int add_allow(struct gate_args *g, const char *id)
{
	size_t i;

	if (!*id || strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(id))
		return cli_usage_error(CMD, "--allow '%s': expected a finding id (driver-too-old)",
				       id);
	for (i = 0; i < g->n_allow; i++)
		if (!strcmp(g->allow[i], id))
			return 0;
	if (g->n_allow == GATE_ALLOW_MAX)
		return cli_usage_error(CMD, "more than %d findings allowed", GATE_ALLOW_MAX);
	g->allow[g->n_allow++] = id;
	return 0;
}

static int read_policy(struct gate_args *g, const char *path)
{
	struct cd_root host;
	struct cd_buf b;
	struct cd_err err = {0};
	size_t n = 0, i;
	int rc;

	if (root_init(&host, NULL, &err))
		return cli_usage_error(CMD, "%s", err.msg);
	buf_init(&b, GATE_POLICY_MAX);
	rc = file_read(&host, path, GATE_POLICY_MAX, &b, &err);
	if (rc == CD_ENOMEM)
		rc = cli_usage_error(CMD, "%s: larger than 1 MiB: not a policy", path);
	else if (rc)
		rc = cli_usage_error(CMD, "%s: %s", path, err.msg);
	else if (policy_parse((const uint8_t *)b.p, b.len, g->rules + g->n, GATE_RULES_MAX - g->n,
			      &n, &err))
		rc = cli_usage_error(CMD, "%s: %s", path, err.msg);
	for (i = 0; !rc && i < n; i++)
		g->origins[g->n + i] = path;
	g->n += rc ? 0 : n;
	buf_free(&b);
	return rc;
}

static int add_require(struct gate_args *g, const char *expr)
{
	struct cd_err err = {0};
	int rc;

	if (g->n == GATE_RULES_MAX)
		return cli_usage_error(CMD, "more than %d requirements", GATE_RULES_MAX);
	rc = policy_parse_line((const uint8_t *)expr, strlen(expr), 0, &g->rules[g->n], &err);
	if (rc < 0)
		return cli_usage_error(CMD, "--require '%s': %s", expr, err.msg);
	if (rc == 0)
		return cli_usage_error(CMD, "--require '%s': no requirement", expr);
	g->origins[g->n++] = "--require";
	return 0;
}

/* The value of option argv[*i] ("--x V" or "--x=V"); NULL when it is not one. */
static const char *value_of(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);

	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (strcmp(argv[*i], name))
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

/* Requirements, allow lines apart. */
static size_t gate_policy_count(const struct gate_args *g)
{
	size_t i, n = 0;

	for (i = 0; i < g->n; i++)
		n += g->rules[i].subject != POLICY_ALLOW;
	return n;
}

static int parse_args(int argc, char **argv, struct gate_args *g)
{
	int i, missing = 0, rc = 0;

	for (i = 1; i < argc && !rc; i++) {
		const char *v;
		if ((v = value_of(argc, argv, &i, "--policy", &missing)))
			rc = read_policy(g, v);
		else if ((v = value_of(argc, argv, &i, "--require", &missing)))
			rc = add_require(g, v);
		else if ((v = value_of(argc, argv, &i, "--allow", &missing)))
			rc = add_allow(g, v);
		else if ((v = value_of(argc, argv, &i, "-o", &missing)))
			g->out = v;
		else if (missing)
			return cli_usage_error(CMD, "%s needs a value", argv[i]);
		else
			return cli_usage_error(CMD, "unexpected argument '%s'", argv[i]);
	}
	if (rc)
		return rc;
	if (missing)
		return cli_usage_error(CMD, "%s needs a value", argv[argc - 1]);
	for (i = 0; (size_t)i < g->n; i++) {
		const struct policy_rule *q = &g->rules[i];
		if (q->subject == POLICY_ALLOW && (rc = add_allow(g, q->name)))
			return rc;
		if (q->subject == POLICY_PROBE)
			g->probe = 1;
	}
	/* No requirement at all: the gate of check's own verdict. */
	if (!gate_policy_count(g)) {
		rc = add_require(g, "no-errors");
		g->origins[g->n - 1] = "default";
	}
	return rc;
}

/* The headers the policy names that the toolkit inventory may not hold. */
static void probe_headers(struct cd_facts *f, const struct gate_args *g)
{
	const char *names[GATE_RULES_MAX];
	size_t i, n = 0;

	for (i = 0; i < g->n; i++)
		if (g->rules[i].subject == POLICY_HEADER)
			names[n++] = g->rules[i].name;
	if (n)
		toolkit_probe_headers(f, names, n);
}

static int render(const struct cd_opts *opts, struct cd_facts *f, const struct gate_args *g,
		  const struct gate_result *res, size_t n)
{
	struct cd_outfile out;
	struct cd_render r;
	struct cd_err err = {0};
	json_t *j;
	int rc = 0;

	if (outfile_open(&out, g->out, &err)) {
		fprintf(stderr, "cuda-doctor %s: %s\n", CMD, err.msg);
		return CD_EXIT_USAGE;
	}
	render_init(&r, opts, CMD);
	r.out = out.fp;
	if (opts->format == CD_FMT_JSON) {
		j = gate_json(f, res, n, g->allow, g->n_allow);
		rc = json_print(out.fp, j);
		json_decref(j);
	} else
		gate_text(&r, res, n);
	if (rc) {
		outfile_abort(&out);
		return CD_EXIT_INTERNAL;
	}
	if (outfile_commit(&out, &err)) {
		fprintf(stderr, "cuda-doctor %s: %s\n", CMD, err.msg);
		return CD_EXIT_INTERNAL;
	}
	return gate_failures(res, n) ? CD_EXIT_FINDINGS : CD_EXIT_OK;
}

/* The policy's `probe`: the quick live probe (cuda-doctor probe --quick)
 * under --timeout, its findings added to check's. */
static int live_gate(struct cd_facts *f, struct cd_findings *fs, const struct cd_opts *opts)
{
	struct live_opts lo = {0};
	struct cd_err err = {0};

	lo.timeout_ms = opts->timeout_ms;
	if (live_probe(f, &lo, &err))
		return -1;
	check_live(f, fs);
	findings_sort(fs);
	return 0;
}

int cmd_gate(int argc, char **argv, struct cd_opts *opts)
{
	struct gate_args g = {0};
	struct gate_result *res = NULL;
	struct cd_facts f;
	struct cd_findings fs;
	struct cd_err err = {0};
	struct gate_policy p;
	size_t n;
	int rc;

	if (opts->format != CD_FMT_TEXT && opts->format != CD_FMT_JSON)
		return cli_usage_error(CMD, "--format: gate prints text or json");
	g.rules = calloc(GATE_RULES_MAX, sizeof(*g.rules));
	if (!g.rules)
		return CD_EXIT_INTERNAL;
	rc = parse_args(argc, argv, &g);
	if (rc)
		goto out;
	facts_init(&f, opts);
	if (root_init(&f.root, opts->root, &err)) {
		facts_free(&f);
		rc = cli_usage_error(NULL, "%s", err.msg);
		goto out;
	}
	probe_all(&f);
	probe_headers(&f, &g);
	findings_init(&fs, &f.arena);
	check_all(&f, &fs);
	if (g.probe && live_gate(&f, &fs, opts)) {
		facts_free(&f);
		rc = CD_EXIT_INTERNAL;
		goto out;
	}
	p = (struct gate_policy){g.rules, g.n, g.origins, g.allow, g.n_allow};
	res = arena_calloc(&f.arena, g.n, sizeof(*res));
	if (!res) {
		facts_free(&f);
		rc = CD_EXIT_INTERNAL;
		goto out;
	}
	n = gate_eval(&f, &fs, &p, res);
	rc = render(opts, &f, &g, res, n);
	facts_free(&f);
out:
	free(g.rules);
	return rc;
}
