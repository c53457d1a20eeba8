/* report: see report.h. Key order in JSON is fixed and arrays keep the rank
 * order of xs_rank, so the output is deterministic. */
#include "report/explain_render.h"

#include <string.h>

#include "core/buf.h"
#include "report/render.h"

#define C_RED  "\033[31m"
#define C_YEL  "\033[33m"
#define C_DIM  "\033[2m"
#define C_BOLD "\033[1m"
#define C_OFF  "\033[0m"

const char *xr_expand(struct xs_result *r, const struct xs_diag *d, const char *t)
{
	struct cd_buf b;
	const char *p = t;
	char *s;
	int rc = 0;

	if (!t || !strchr(t, '{'))
		return t;
	buf_init(&b, 16384);
	while (*p && !rc) {
		const char *e;
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			rc = buf_putc(&b, *p);
			p += 2;
		} else if (*p == '{' && (e = strchr(p, '}')) != NULL) {
			char name[64];
			const char *v;
			snprintf(name, sizeof(name), "%.*s", (int)(e - p - 1), p + 1);
			v = xs_fact(d, name);
			if (v)
				rc = buf_puts(&b, v);
			else
				rc = buf_printf(&b, "<%s>", name);
			p = e + 1;
		} else {
			rc = buf_putc(&b, *p++);
		}
	}
	/* Past the cap: the template as written rather than a text cut short. */
	s = rc ? NULL : arena_strdup(&r->arena, b.p ? b.p : "");
	buf_free(&b);
	return s ? s : t;
}

int xr_has_error(const struct xs_result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) /* an alternative is a reading of a diagnosis found */
		if (r->d[i].sig->severity == CD_SEV_ERROR && !xs_is_alternative(&r->d[i]))
			return 1;
	return 0;
}

static size_t n_causes(const struct xs_result *r)
{
	size_t i, k = 0;

	for (i = 0; i < r->n; i++) /* the unknown failure is no known cause */
		k += r->d[i].sig->role == SIG_CAUSE && !xs_is_fallback(r->d[i].sig) &&
		     !xs_is_alternative(&r->d[i]);
	return k;
}

static size_t n_alternatives(const struct xs_result *r)
{
	size_t i, k = 0;

	for (i = 0; i < r->n; i++)
		k += xs_is_alternative(&r->d[i]) != 0;
	return k;
}

static const char *role_name(const struct xs_diag *d)
{
	if (xs_is_alternative(d))
		return "alternative";
	return d->sig->role == SIG_CAUSE ? "cause" : "symptom";
}

static const char *input_name(const struct xs_result *r, uint32_t i)
{
	if (i >= r->n_inputs || !r->inputs[i].name)
		return "?";
	return strcmp(r->inputs[i].name, "-") ? r->inputs[i].name : "(stdin)";
}

/* "0-3,7" */
static void rank_ranges(const struct xs_diag *d, char *out, size_t cap)
{
	size_t n = 0;
	unsigned i = 0;

	out[0] = '\0';
	while (i < XS_RANKS) {
		unsigned j;
		if (!xs_has_rank(d, i)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < XS_RANKS && xs_has_rank(d, j + 1); j++)
			;
		if (j == i)
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%u", n ? "," : "",
					      i);
		else
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%u-%u",
					      n ? "," : "", i, j);
		i = j + 1;
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *diag_json(struct xs_result *r, const struct xs_diag *d, int is_root)
{
	json_t *o = json_object(), *a, *facts = json_object();
	size_t i;
	unsigned k;

	json_object_set_new(o, "category", json_str(d->sig->category));
	json_object_set_new(o, "signature", json_str(d->sig->id));
	json_object_set_new(o, "severity", json_str(severity_name(d->sig->severity)));
	json_object_set_new(o, "role", json_str(role_name(d)));
	if (xs_is_alternative(d))
		json_object_set_new(o, "alternative_to", json_str(d->alt_of->id));
	json_object_set_new(o, "root_cause", json_boolean(is_root));
	json_object_set_new(o, "title", json_str(xr_expand(r, d, d->sig->title)));
	json_object_set_new(o, "input", json_str(input_name(r, d->input)));
	json_object_set_new(o, "line", json_i64((int64_t)d->first_line));
	a = json_array();
	for (i = 0; i < d->n_lines; i++)
		json_array_append_new(a, json_i64((int64_t)d->lines[i]));
	json_object_set_new(o, "lines", a);
	json_object_set_new(o, "count", json_i64((int64_t)d->count));
	a = json_array();
	for (k = 0; k < XS_RANKS; k++)
		if (xs_has_rank(d, k))
			json_array_append_new(a, json_integer(k));
	json_object_set_new(o, "ranks", a);
	json_object_set_new(o, "text", json_str(d->text));
	for (i = 0; i < d->n_facts; i++)
		json_object_set_new(facts, d->facts[i].name, json_str(d->facts[i].value));
	json_object_set_new(o, "facts", facts);
	for (i = 0, a = NULL; i < d->n_facts; i++) /* facts taken from another line */
		if (d->facts[i].line) {
			if (!a)
				a = json_object();
			json_object_set_new(a, d->facts[i].name,
					    json_i64((int64_t)d->facts[i].line));
		}
	if (a)
		json_object_set_new(o, "fact_lines", a);
	json_object_set_new(o, "explanation", json_str(xr_expand(r, d, d->sig->explain)));
	a = json_array();
	for (i = 0; i < d->sig->fix.n; i++)
		json_array_append_new(a, json_str(xr_expand(r, d, d->sig->fix.v[i])));
	json_object_set_new(o, "fix", a);
	json_object_set_new(o, "environment", json_strv(d->env, d->n_env, 1));
	a = json_array(); /* `unknown`: each line that looks like the failure */
	for (i = 0; i < d->n_lines && d->line_text[i]; i++)
		json_array_append_new(a, json_pack("{s:I, s:o}", "line", (json_int_t)d->lines[i],
						   "text", json_str(d->line_text[i])));
	json_object_set_new(o, "candidates", a);
	json_object_set_new(o, "sources", json_strv(d->sig->source.v, d->sig->source.n, 1));
	return o;
}

json_t *xr_json(struct xs_result *r, const struct xr_opts *o)
{
	json_t *root = json_object(), *a = json_array(), *sum = json_object();
	size_t i;

	if (!root || !a || !sum)
		return NULL;
	json_object_set_new(root, "schema", json_str(XR_SCHEMA));
	json_object_set_new(root, "tool",
			    json_pack("{s:s, s:s}", "name", "cuda-doctor", "version", CD_VERSION));
	json_object_set_new(root, "command", json_str(o->command));
	if (o->exit_status >= 0)
		json_object_set_new(root, "exit_status", json_integer(o->exit_status));
	for (i = 0; i < r->n_inputs; i++)
		json_array_append_new(a, json_pack("{s:o, s:I, s:I}", "name",
						   json_str(input_name(r, (uint32_t)i)), "bytes",
						   (json_int_t)r->inputs[i].bytes, "lines",
						   (json_int_t)r->inputs[i].lines));
	json_object_set_new(root, "inputs", a);
	json_object_set_new(root, "environment_checked", json_boolean(o->env_checked));
	a = json_array();
	for (i = 0; i < r->n; i++)
		json_array_append_new(a, diag_json(r, &r->d[i], i == 0 && n_causes(r) > 0));
	json_object_set_new(root, "diagnoses", a);
	json_object_set_new(sum, "diagnoses", json_integer((json_int_t)r->n));
	json_object_set_new(sum, "causes", json_integer((json_int_t)n_causes(r)));
	json_object_set_new(sum, "alternatives", json_integer((json_int_t)n_alternatives(r)));
	json_object_set_new(sum, "errors", json_boolean(xr_has_error(r)));
	json_object_set_new(sum, "root_cause",
			    r->n && n_causes(r) ? json_str(r->d[0].sig->id) : json_null());
	json_object_set_new(sum, "matched_lines", json_integer((json_int_t)r->hits));
	json_object_set_new(sum, "traceback_code_lines", json_integer((json_int_t)r->code_lines));
	json_object_set_new(sum, "dropped", json_integer((json_int_t)r->dropped));
	json_object_set_new(sum, "long_lines", json_integer((json_int_t)r->cut_lines));
	json_object_set_new(root, "summary", sum);
	return root;
}

/* ---- text and Markdown ---------------------------------------------------- */

struct tx {
	FILE *out;
	const struct xr_opts *o;
	struct xs_result *r;
};

static const char *col(const struct tx *t, const char *c)
{
	return t->o->color ? c : "";
}

/* Print s after a label, wrapped at 100 columns with a hanging indent. */
static void wrapped(const struct tx *t, const char *label, const char *s)
{
	const int width = 100, ind = 10;
	int colm = ind;
	const char *p = s;

	fprintf(t->out, "  %s%-7s%s ", col(t, C_DIM), label, col(t, C_OFF));
	while (*p) {
		const char *w = p;
		int n;
		while (*p && *p != ' ')
			p++;
		n = (int)(p - w);
		if (colm > ind && colm + 1 + n > width) {
			fprintf(t->out, "\n%*s", ind, "");
			colm = ind;
		} else if (colm > ind) {
			fputc(' ', t->out);
			colm++;
		}
		fwrite(w, 1, (size_t)n, t->out);
		colm += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', t->out);
}

static void lines_note(const struct xs_diag *d, char *out, size_t cap)
{
	char ranks[256];
	size_t n = 0, i;

	out[0] = '\0';
	for (i = 1; i < d->n_lines && i < 6; i++)
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%llu",
				      i > 1 ? ", " : "also lines ",
				      (unsigned long long)d->lines[i]);
	if (d->count > 1)
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%llu times", n ? "; " : "",
				      (unsigned long long)d->count);
	rank_ranges(d, ranks, sizeof(ranks));
	if (d->n_ranks)
		snprintf(out + n, n < cap ? cap - n : 0, "%s%s %s", n ? "; " : "",
			 d->n_ranks > 1 ? "ranks" : "rank", ranks);
}

/* root: the first diagnosis when a cause was found; full: print facts, why
 * and fix (causes, the first diagnosis whatever its role, or -v). */
static void text_diag(const struct tx *t, const struct xs_diag *d, int root, int full)
{
	struct xs_result *r = t->r;
	const char *sev = xs_is_alternative(d)		       ? "?"
			  : d->sig->severity == CD_SEV_ERROR   ? "✗"
			  : d->sig->severity == CD_SEV_WARNING ? "!"
							       : "·";
	const char *c = d->sig->severity == CD_SEV_ERROR && !xs_is_alternative(d) ? C_RED : C_YEL;
	char note[512], facts[1024] = "";
	size_t i, n = 0;

	fprintf(t->out, "\n%s%s%s %s%s%s%s · %s\n", col(t, c), sev, col(t, C_OFF), col(t, C_BOLD),
		root			      ? "root cause · "
		: xs_is_alternative(d)	      ? "or · "
		: d->sig->role == SIG_SYMPTOM ? "symptom · "
					      : "",
		d->sig->category, col(t, C_OFF), d->sig->id);
	fprintf(t->out, "  %s\n", xr_expand(r, d, d->sig->title));
	if (d->line_text[0]) { /* `unknown`: every line that looks like the failure */
		for (i = 0; i < d->n_lines; i++)
			fprintf(t->out, "  %s%s%s   %s%s%llu: %s\n", col(t, C_DIM),
				i ? "    " : "line", col(t, C_OFF),
				r->n_inputs > 1 ? input_name(r, d->input) : "",
				r->n_inputs > 1 ? ":" : "", (unsigned long long)d->lines[i],
				d->line_text[i]);
	} else if (xs_is_alternative(d)) { /* the line is the diagnosis's it reads again */
		fprintf(t->out, "  %sline%s   %s%s%llu (%s's)\n", col(t, C_DIM), col(t, C_OFF),
			r->n_inputs > 1 ? input_name(r, d->input) : "", r->n_inputs > 1 ? ":" : "",
			(unsigned long long)d->first_line, d->alt_of->id);
	} else {
		fprintf(t->out, "  %sline%s   %s%s%llu: %s\n", col(t, C_DIM), col(t, C_OFF),
			r->n_inputs > 1 ? input_name(r, d->input) : "", r->n_inputs > 1 ? ":" : "",
			(unsigned long long)d->first_line, d->text ? d->text : "");
		lines_note(d, note, sizeof(note));
		if (note[0])
			fprintf(t->out, "          (%s)\n", note);
	}
	if (!full)
		return;
	for (i = 0; i < d->n_facts && !xs_is_alternative(d); i++) {
		n += (size_t)snprintf(facts + n, n < sizeof(facts) ? sizeof(facts) - n : 0,
				      "%s%s=%s", i ? "  " : "", d->facts[i].name,
				      d->facts[i].value);
		if (d->facts[i].line) /* from another line than the one shown */
			n += (size_t)snprintf(facts + n, n < sizeof(facts) ? sizeof(facts) - n : 0,
					      " (line %llu)", (unsigned long long)d->facts[i].line);
	}
	if (facts[0])
		fprintf(t->out, "  %sfacts%s   %s\n", col(t, C_DIM), col(t, C_OFF), facts);
	wrapped(t, xs_is_alternative(d) ? "tell" : "why", xr_expand(r, d, d->sig->explain));
	for (i = 0; i < d->n_env; i++)
		fprintf(t->out, "  %s%s%s %s\n", col(t, C_DIM), i ? "       " : "here   ",
			col(t, C_OFF), d->env[i]);
	for (i = 0; i < d->sig->fix.n; i++)
		fprintf(t->out, "  %s%s%s %s\n", col(t, C_DIM), i ? "       " : "fix    ",
			col(t, C_OFF), xr_expand(r, d, d->sig->fix.v[i]));
	if (t->o->verbose)
		for (i = 0; i < d->sig->source.n; i++)
			fprintf(t->out, "  %s%s%s %s\n", col(t, C_DIM), i ? "       " : "source ",
				col(t, C_OFF), d->sig->source.v[i]);
}

static void xr_text_report(const struct tx *t)
{
	const struct xs_result *r = t->r;
	size_t i, causes = n_causes(r), alts = n_alternatives(r), symptoms;
	uint64_t lines = 0;

	for (i = 0; i < r->n_inputs; i++)
		lines += r->inputs[i].lines;
	fprintf(t->out, "cuda-doctor %s: %llu lines read", t->o->command,
		(unsigned long long)lines);
	if (t->o->exit_status >= 0)
		fprintf(t->out, ", the command exited with status %d", t->o->exit_status);
	if (!r->n) {
		fprintf(t->out, "; no known failure found\n");
		return;
	}
	if (r->d[0].sig == &xs_sig_unknown && r->n == 1)
		fprintf(t->out, "; no known failure found, but lines that look like one\n");
	else if (xs_is_hint(r->d[0].sig) && r->n == 1)
		fprintf(t->out, "; no line looks like a failure: a hint from the log's words, "
				"for a run that failed, hung or stopped\n");
	else if (xs_is_fallback(r->d[0].sig) && r->n == 1)
		fprintf(t->out, "; no known failure found: a guess from the log's words\n");
	else {
		symptoms = r->n - causes - alts;
		fprintf(t->out, "; %zu diagnos%s (%zu cause%s, %zu symptom%s", r->n,
			r->n == 1 ? "is" : "es", causes, causes == 1 ? "" : "s", symptoms,
			symptoms == 1 ? "" : "s");
		if (alts)
			fprintf(t->out, ", %zu alternative%s", alts, alts == 1 ? "" : "s");
		fprintf(t->out, ")%s\n", causes ? ", root cause first" : "");
	}
	for (i = 0; i < r->n; i++)
		text_diag(t, &r->d[i], i == 0 && causes,
			  i == 0 || r->d[i].sig->role == SIG_CAUSE || t->o->verbose);
	if (r->dropped)
		fprintf(t->out, "\n(%llu more distinct diagnoses not kept)\n",
			(unsigned long long)r->dropped);
	if (!t->o->env_checked)
		fprintf(t->out, "\n(environment not checked: --no-env)\n");
}

static void xr_md_report(const struct tx *t)
{
	struct xs_result *r = t->r;
	size_t i, j;

	fprintf(t->out, "# cuda-doctor %s\n\n", t->o->command);
	if (!r->n) {
		fprintf(t->out, "No known failure found.\n");
		return;
	}
	for (i = 0; i < r->n; i++) {
		const struct xs_diag *d = &r->d[i];
		fprintf(t->out, "## %s `%s`: %s\n\n", d->sig->severity == CD_SEV_ERROR ? "✗" : "!",
			d->sig->category, xr_expand(r, d, d->sig->title));
		fprintf(t->out, "- **signature**: `%s` (%s)\n- **line %llu**: `%s`\n", d->sig->id,
			role_name(d), (unsigned long long)d->first_line, d->text ? d->text : "");
		for (j = 0; j < d->n_lines && d->line_text[j]; j++)
			fprintf(t->out, "- **line %llu**: `%s`\n", (unsigned long long)d->lines[j],
				d->line_text[j]);
		for (j = 0; j < d->n_facts; j++)
			if (d->facts[j].line)
				fprintf(t->out, "- **%s**: `%s` (line %llu)\n", d->facts[j].name,
					d->facts[j].value, (unsigned long long)d->facts[j].line);
			else
				fprintf(t->out, "- **%s**: `%s`\n", d->facts[j].name,
					d->facts[j].value);
		fprintf(t->out, "- **why**: %s\n", xr_expand(r, d, d->sig->explain));
		for (j = 0; j < d->n_env; j++)
			fprintf(t->out, "- **here**: %s\n", d->env[j]);
		fprintf(t->out, "\n```sh\n");
		for (j = 0; j < d->sig->fix.n; j++)
			fprintf(t->out, "%s\n", xr_expand(r, d, d->sig->fix.v[j]));
		fprintf(t->out, "```\n\n");
	}
}

int xr_render(FILE *out, struct xs_result *r, const struct xr_opts *o)
{
	struct tx t = {out, o, r};
	json_t *j;
	int rc;

	if (o->format == CD_FMT_JSON || o->format == CD_FMT_HTML) {
		j = xr_json(r, o);
		if (!j)
			return CD_ENOMEM;
		rc = o->format == CD_FMT_JSON
			     ? json_print(out, j)
			     : html_print(out, j, o->command ? o->command : "explain");
		json_decref(j);
		return rc;
	}
	if (o->format == CD_FMT_MARKDOWN)
		xr_md_report(&t);
	else
		xr_text_report(&t);
	return 0;
}
