/* gate_out: see gate_render.h. */
#include <string.h>

#include "report/color.h"
#include "report/gate_render.h"

#define COL_MAX 44 /* a wider cell is cut in the table; JSON has it whole */

static const char *status_name(enum gate_status s)
{
	return s == GATE_PASS ? "pass" : "fail";
}

static int width(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return (int)(n > COL_MAX ? COL_MAX : n);
}

static void row(const struct cd_render *r, const struct gate_result *x, int wr, int wf)
{
	const char *found = x->found ? x->found : "unknown";

	if (x->status == GATE_PASS)
		fprintf(r->out, "%s✓%s ", col(r, C_GRN), col(r, C_OFF));
	else
		fprintf(r->out, "%s✗%s ", col(r, C_RED), col(r, C_OFF));
	fprintf(r->out, "%-*.*s  %-*.*s%s", wr, COL_MAX, x->rule->text, wf, COL_MAX, found,
		(int)strlen(found) > COL_MAX ? "…" : " ");
	if (x->finding)
		fprintf(r->out, " %s", x->finding);
	else if (x->status != GATE_PASS)
		fprintf(r->out, " -");
	fputc('\n', r->out);
	if (x->status != GATE_PASS && x->why)
		fprintf(r->out, "  %s%s%s\n", col(r, C_DIM), x->why, col(r, C_OFF));
}

void gate_text(const struct cd_render *r, const struct gate_result *res, size_t n)
{
	size_t i, bad = gate_failures(res, n);
	int wr = (int)strlen("required"), wf = (int)strlen("found");

	for (i = 0; i < n; i++) {
		if (r->quiet && res[i].status == GATE_PASS)
			continue;
		if (width(res[i].rule->text) > wr)
			wr = width(res[i].rule->text);
		if (width(res[i].found) > wf)
			wf = width(res[i].found);
	}
	if (!r->quiet || bad) {
		fprintf(r->out, "  %s%-*s  %-*s  %s%s\n", col(r, C_BOLD), wr, "required", wf,
			"found", bad ? "explained by" : "", col(r, C_OFF));
		for (i = 0; i < n; i++)
			if (!r->quiet || res[i].status != GATE_PASS)
				row(r, &res[i], wr, wf);
	}
	if (bad)
		fprintf(r->out, "\n%sgate: failed%s, %zu of %zu requirement%s not met\n",
			col(r, C_RED), col(r, C_OFF), bad, n, n == 1 ? "" : "s");
	else
		fprintf(r->out, "\n%sgate: passed%s, %zu requirement%s met\n", col(r, C_GRN),
			col(r, C_OFF), n, n == 1 ? "" : "s");
}

static json_t *j_result(const struct gate_result *x)
{
	json_t *o = json_object(), *cmp = json_array();
	size_t i;

	json_object_set_new(o, "requirement", json_str(x->rule->text));
	json_object_set_new(o, "subject", json_string(policy_subject_name(x->rule->subject)));
	json_object_set_new(o, "origin", json_str(x->origin));
	json_object_set_new(o, "line",
			    x->rule->line ? json_integer((json_int_t)x->rule->line) : json_null());
	json_object_set_new(o, "name", json_str(*x->rule->name ? x->rule->name : NULL));
	for (i = 0; i < x->rule->n_cmp; i++)
		json_array_append_new(cmp, json_pack("{s:s, s:s}", "op",
						     policy_op_str(x->rule->cmp[i].op), "value",
						     x->rule->cmp[i].value));
	if (x->rule->kind == POLICY_KIND_PEP440) {
		json_object_set_new(o, "specifier", json_str(x->rule->spec));
		json_decref(cmp);
	} else
		json_object_set_new(o, "compare", cmp);
	json_object_set_new(o, "status", json_string(status_name(x->status)));
	json_object_set_new(o, "found", json_str(x->found));
	json_object_set_new(o, "why", json_str(x->why));
	json_object_set_new(o, "finding", json_str(x->finding));
	return o;
}

json_t *gate_json(const struct cd_facts *f, const struct gate_result *res, size_t n,
		  const char *const *allow, size_t n_allow)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	json_object_set_new(o, "schema", json_string(GATE_SCHEMA));
	json_object_set_new(o, "hostname", json_str(f->host.hostname));
	json_object_set_new(o, "pass", json_boolean(gate_failures(res, n) == 0));
	json_object_set_new(o, "violations", json_integer((json_int_t)gate_failures(res, n)));
	for (i = 0; i < n; i++)
		json_array_append_new(a, j_result(&res[i]));
	json_object_set_new(o, "requirements", a);
	json_object_set_new(o, "allowed", json_strv(allow, n_allow, 1));
	return o;
}
