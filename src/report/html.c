/* html: one self-contained HTML page for any command's JSON report (check,
 * model, explain, run, jit, ldd), so the page and `--json` can never disagree.
 * The findings (or explain's diagnoses) come first as cards with their
 * evidence and fixes, then every other key of the report as nested tables.
 * No script, no external resource (a Content-Security-Policy forbids both);
 * every string is escaped for HTML text and attribute context. */
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "report/render.h"

#define HTML_DEPTH_MAX 24 /* deeper values are shown as "..." */

static const char css[] =
	".cuda-doctor{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"color:#1b1f24;max-width:1100px}"
	".cuda-doctor h1{font-size:20px;margin:0 0 4px}"
	".cuda-doctor h2{font-size:16px;margin:18px 0 6px}"
	".cuda-doctor .meta{color:#57606a;margin:0 0 10px}"
	".cuda-doctor .summary{font-weight:600;margin:6px 0 12px}"
	".cuda-doctor .card{border:1px solid #d0d7de;border-left:6px solid #8c959f;"
	"border-radius:6px;padding:8px 12px;margin:8px 0;background:#fff}"
	".cuda-doctor .sev-error{border-left-color:#cf222e}"
	".cuda-doctor .sev-warning{border-left-color:#bf8700}"
	".cuda-doctor .sev-info{border-left-color:#0969da}"
	".cuda-doctor .card h3{font-size:15px;margin:0 0 4px}"
	".cuda-doctor .badge{display:inline-block;font-size:12px;padding:0 6px;"
	"border-radius:10px;color:#fff;background:#8c959f;margin-right:6px}"
	".cuda-doctor .sev-error .badge{background:#cf222e}"
	".cuda-doctor .sev-warning .badge{background:#9a6700}"
	".cuda-doctor .sev-info .badge{background:#0969da}"
	".cuda-doctor .id{color:#57606a;font-family:ui-monospace,monospace;font-size:12px}"
	".cuda-doctor pre{background:#f6f8fa;border-radius:4px;padding:6px 8px;margin:4px 0;"
	"white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,monospace}"
	".cuda-doctor ul{margin:4px 0;padding-left:20px}"
	".cuda-doctor table{border-collapse:collapse;margin:2px 0}"
	".cuda-doctor td,.cuda-doctor th{border:1px solid #d8dee4;padding:2px 6px;"
	"vertical-align:top;text-align:left}"
	".cuda-doctor th{background:#f6f8fa;font-weight:600;white-space:nowrap}"
	".cuda-doctor .unk{color:#8c959f;font-style:italic}"
	".cuda-doctor details{margin:4px 0}"
	".cuda-doctor summary{cursor:pointer;font-weight:600}"
	".cuda-doctor .ok{color:#1a7f37;font-weight:600}";

/* Text or attribute content: & < > " ' escaped, C0 controls other than tab
 * and newline replaced (they are parse errors in HTML). */
static void esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		switch (c) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
				fputs("&#xFFFD;", out);
			else
				fputc(c, out);
		}
	}
}

static const char *jstr(const json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void scalar(FILE *out, const json_t *v)
{
	char num[64];

	if (!v || json_is_null(v)) {
		fputs("<span class=\"unk\">unknown</span>", out);
	} else if (json_is_string(v)) {
		esc(out, json_string_value(v));
	} else if (json_is_boolean(v)) {
		fputs(json_is_true(v) ? "yes" : "no", out);
	} else if (json_is_integer(v)) {
		fprintf(out, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(num, sizeof(num), "%.6g", json_real_value(v));
		fputs(num, out);
	}
}

static int is_scalar(const json_t *v)
{
	return !json_is_object(v) && !json_is_array(v);
}

static void value(FILE *out, const json_t *v, int depth);

static void object(FILE *out, const json_t *o, int depth)
{
	const char *k;
	json_t *v;

	if (!json_object_size(o)) {
		fputs("<span class=\"unk\">none</span>", out);
		return;
	}
	fputs("<table>", out);
	json_object_foreach((json_t *)o, k, v)
	{
		fputs("<tr><th>", out);
		esc(out, k);
		fputs("</th><td>", out);
		value(out, v, depth + 1);
		fputs("</td></tr>", out);
	}
	fputs("</table>", out);
}

static void array(FILE *out, const json_t *a, int depth)
{
	size_t i, n = json_array_size(a);
	int flat = 1;

	for (i = 0; i < n; i++)
		flat &= is_scalar(json_array_get(a, i));
	if (!n) {
		fputs("<span class=\"unk\">none</span>", out);
		return;
	}
	if (flat && n <= 8) {
		for (i = 0; i < n; i++) {
			fputs(i ? ", " : "", out);
			scalar(out, json_array_get(a, i));
		}
		return;
	}
	fputs("<ul>", out);
	for (i = 0; i < n; i++) {
		fputs("<li>", out);
		value(out, json_array_get(a, i), depth + 1);
		fputs("</li>", out);
	}
	fputs("</ul>", out);
}

static void value(FILE *out, const json_t *v, int depth)
{
	if (depth > HTML_DEPTH_MAX)
		fputs("...", out);
	else if (json_is_object(v))
		object(out, v, depth);
	else if (json_is_array(v))
		array(out, v, depth);
	else
		scalar(out, v);
}

/* A list of strings as <ul> (evidence, environment) or <pre> (fixes). */
static void strings(FILE *out, const json_t *a, const char *label, int code)
{
	size_t i, n = json_array_size(a);

	if (!n)
		return;
	fprintf(out, "<div class=\"%s\"><b>%s</b>", label, label);
	fputs(code ? "<pre>" : "<ul>", out);
	for (i = 0; i < n; i++) {
		const json_t *s = json_array_get(a, i);
		fputs(code ? (i ? "\n" : "") : "<li>", out);
		if (json_is_string(s))
			esc(out, json_string_value(s));
		else
			value(out, s, HTML_DEPTH_MAX);
		fputs(code ? "" : "</li>", out);
	}
	fputs(code ? "</pre></div>" : "</ul></div>", out);
}

static const char *sev_class(const char *sev)
{
	if (sev && !strcmp(sev, "error"))
		return "error";
	if (sev && !strcmp(sev, "warning"))
		return "warning";
	return "info";
}

/* One finding (id, section) or one diagnosis (category, signature). */
static void card(FILE *out, const json_t *x)
{
	const char *sev = jstr(x, "severity"), *id = jstr(x, "id"), *detail = jstr(x, "detail");

	fprintf(out, "<div class=\"card sev-%s\"><h3><span class=\"badge\">", sev_class(sev));
	esc(out, sev ? sev : "info");
	fputs("</span>", out);
	esc(out, jstr(x, "title"));
	fputs("</h3><div class=\"id\">", out);
	esc(out, id ? id : jstr(x, "category"));
	fputs(" &middot; ", out);
	esc(out, id ? jstr(x, "section") : jstr(x, "signature"));
	if (!id && jstr(x, "input")) {
		fputs(" &middot; ", out);
		esc(out, jstr(x, "input"));
		if (json_is_integer(json_object_get(x, "line")))
			fprintf(out, ":%lld",
				(long long)json_integer_value(json_object_get(x, "line")));
	}
	fputs("</div>", out);
	if (!detail)
		detail = jstr(x, "explanation");
	if (jstr(x, "text")) {
		fputs("<pre>", out);
		esc(out, jstr(x, "text"));
		fputs("</pre>", out);
	}
	if (detail) {
		fputs("<p>", out);
		esc(out, detail);
		fputs("</p>", out);
	}
	strings(out, json_object_get(x, "evidence"), "evidence", 0);
	strings(out, json_object_get(x, "environment"), "environment", 0);
	strings(out, json_object_get(x, "fix"), "fix", 1);
	fputs("</div>\n", out);
}

static void cards(FILE *out, const json_t *list, const char *what)
{
	size_t i, n = json_array_size(list), c[3] = {0, 0, 0};

	for (i = 0; i < n; i++) {
		const char *s = sev_class(jstr(json_array_get(list, i), "severity"));
		c[s[0] == 'e' ? 0 : s[0] == 'w' ? 1 : 2]++;
	}
	fprintf(out, "<h2>%s</h2>\n", what);
	if (!n) {
		fputs("<p class=\"summary ok\">&#10003; nothing wrong found</p>\n", out);
		return;
	}
	fprintf(out, "<p class=\"summary\">%zu error%s, %zu warning%s, %zu note%s</p>\n", c[0],
		c[0] == 1 ? "" : "s", c[1], c[1] == 1 ? "" : "s", c[2], c[2] == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		card(out, json_array_get(list, i));
}

/* Every key but the ones shown above, one <details> each. */
static void rest(FILE *out, const json_t *root, const char *list_key)
{
	const char *k;
	json_t *v;

	fputs("<h2>Report</h2>\n", out);
	json_object_foreach((json_t *)root, k, v)
	{
		if (!strcmp(k, list_key) || !strcmp(k, "schema") || !strcmp(k, "tool"))
			continue;
		fputs("<details><summary>", out);
		esc(out, k);
		fputs("</summary>", out);
		value(out, v, 0);
		fputs("</details>\n", out);
	}
}

static void head(FILE *out, const json_t *root, const char *command)
{
	const json_t *tool = json_object_get(root, "tool");

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>cuda-doctor ",
	      out);
	esc(out, command);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<div class=\"cuda-doctor\">\n",
		css);
	fputs("<h1>cuda-doctor ", out);
	esc(out, command);
	fputs("</h1>\n<p class=\"meta\">", out);
	esc(out, jstr(tool, "name") ? jstr(tool, "name") : "cuda-doctor");
	fputs(" ", out);
	esc(out, jstr(tool, "version"));
	fputs(" &middot; ", out);
	esc(out, jstr(root, "schema"));
	if (jstr(tool, "root") && strcmp(jstr(tool, "root"), "/")) {
		fputs(" &middot; root ", out);
		esc(out, jstr(tool, "root"));
	}
	fputs("</p>\n", out);
}

int html_print(FILE *out, json_t *root, const char *command)
{
	const char *list_key = json_object_get(root, "diagnoses") ? "diagnoses" : "findings";

	if (!root)
		return CD_ENOMEM;
	head(out, root, command);
	cards(out, json_object_get(root, list_key),
	      !strcmp(list_key, "diagnoses") ? "Diagnoses" : "Findings");
	rest(out, root, list_key);
	fputs("</div>\n</body></html>\n", out);
	return ferror(out) ? CD_EIO : 0;
}
