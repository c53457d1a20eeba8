/* diff_html: see diff_render.h. One file, nothing fetched: the style and the
 * host filter are inline. Rows are the nodes, the groups that stray first
 * (most strays first), the majority last; columns the keys that differ; a
 * cell is blank where the node has the key's majority value. */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "report/diff_render.h"

static void esc(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.5em}"
	"table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:2px 6px;"
	"text-align:left;white-space:nowrap}th{background:#f3f3f3;position:sticky;top:0}"
	"th.must{background:#fbe3e3}td.v{background:#fff3cd;font-family:monospace}"
	"td.must{background:#f8d7da}.maj{color:#777;font-weight:normal}"
	"tr.majority td:first-child{color:#777}#filter{margin:0.5em 0;padding:3px;width:20em}";

/* Filter rows by host name; nothing else runs. */
static const char script[] =
	"(function(){var f=document.getElementById('filter');"
	"var rows=document.querySelectorAll('#grid tbody tr');"
	"f.addEventListener('input',function(){var q=f.value.toLowerCase();"
	"for(var i=0;i<rows.length;i++){var h=rows[i].firstChild.textContent.toLowerCase();"
	"rows[i].style.display=h.indexOf(q)>=0?'':'none';}});})();";

static void head(FILE *out, const struct diff *d)
{
	char a[32], b[32], show[256];
	size_t maj = d->n_groups ? d->groups[d->order[0]].nodes : 0, k;

	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>cuda-doctor diff: %s nodes</title><style>%s</style></head><body>\n",
		diff_count(d->n_nodes, a, sizeof(a)), style);
	fprintf(out, "<h1>cuda-doctor diff</h1>\n<p id=\"summary\">%s nodes", a);
	if (d->n_groups > 1)
		fprintf(out, ": %s identical; %s in %zu groups", diff_count(maj, a, sizeof(a)),
			diff_count(d->n_nodes - maj, b, sizeof(b)), d->n_groups - 1);
	else
		fputs(", all identical", out);
	fputs(".</p>\n", out);
	if (d->n_must_differ) {
		fputs("<p><strong>Keys that must match differ:</strong>", out);
		for (k = 0; k < d->n_keys; k++)
			if (d->keys[k].must) {
				fputc(' ', out);
				esc(out, d->keys[k].key);
			}
		fputs("</p>\n", out);
	}
	fputs("<input id=\"filter\" placeholder=\"filter hosts\" aria-label=\"filter hosts\">\n"
	      "<table id=\"grid\"><thead><tr><th>host</th><th>group</th>",
	      out);
	for (k = 0; k < d->n_keys; k++) {
		fprintf(out, "<th%s>", d->keys[k].must ? " class=\"must\"" : "");
		esc(out, d->keys[k].key);
		fputs("<br><span class=\"maj\">", out);
		esc(out, diff_show(d->keys[k].values[0].value, show, sizeof(show)));
		fputs("</span></th>", out);
	}
	fputs("</tr></thead>\n<tbody>\n", out);
}

/* cell[rank * n_keys + k]: the value index the group of that rank has (0:
 * the majority). */
static size_t *cells(const struct diff *d)
{
	size_t *rank = calloc(d->n_groups ? d->n_groups : 1, sizeof(*rank)), *c, i, k, v;

	c = calloc((d->n_groups ? d->n_groups : 1) * (d->n_keys ? d->n_keys : 1), sizeof(*c));
	if (!rank || !c) {
		free(rank);
		free(c);
		return NULL;
	}
	for (i = 0; i < d->n_groups; i++)
		rank[d->order[i]] = i;
	for (k = 0; k < d->n_keys; k++)
		for (v = 1; v < d->keys[k].n_values; v++)
			for (i = 0; i < d->keys[k].values[v].n_groups; i++)
				c[rank[d->keys[k].values[v].groups[i]] * d->n_keys + k] = v;
	free(rank);
	return c;
}

static void rows_of(FILE *out, const struct diff *d, size_t r, const size_t *cell)
{
	const struct diff_group *g = &d->groups[d->order[r]];
	char show[512];
	size_t m, k;

	for (m = 0; m < g->n_members; m++) {
		fprintf(out, "<tr%s><td>", r ? "" : " class=\"majority\"");
		esc(out, d->nodes[g->members[m]].host);
		fprintf(out, "</td><td>%zu</td>", r + 1);
		for (k = 0; k < d->n_keys; k++) {
			size_t v = cell[r * d->n_keys + k];
			if (!v) {
				fputs("<td></td>", out);
				continue;
			}
			fprintf(out, "<td class=\"%s\">", d->keys[k].must ? "v must" : "v");
			esc(out, diff_show(d->keys[k].values[v].value, show, sizeof(show)));
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
}

static void tail(FILE *out, const struct diff *d)
{
	char n[32];
	size_t i;

	fputs("</tbody></table>\n", out);
	if (d->n_partial) {
		fputs("<h2>Findings only some nodes have</h2>\n<ul>\n", out);
		for (i = 0; i < d->n_partial; i++) {
			fputs("<li>", out);
			esc(out, d->partial[i].f->id);
			fprintf(out, " (%s): %s nodes</li>\n", d->partial[i].f->severity,
				diff_count(d->partial[i].nodes, n, sizeof(n)));
		}
		fputs("</ul>\n", out);
	}
	if (d->n_bad) {
		fputs("<h2>Unreadable</h2>\n<ul>\n", out);
		for (i = 0; i < d->n_bad; i++) {
			fputs("<li>", out);
			esc(out, d->bad[i].source);
			fputs(": ", out);
			esc(out, d->bad[i].msg);
			fputs("</li>\n", out);
		}
		fputs("</ul>\n", out);
	}
	fprintf(out, "<script>%s</script>\n</body></html>\n", script);
}

int diff_html(FILE *out, const struct diff *d)
{
	size_t *cell = cells(d), r;

	if (!cell)
		return CD_ENOMEM;
	head(out, d);
	for (r = 1; r < d->n_groups; r++)
		rows_of(out, d, r, cell);
	if (d->n_groups)
		rows_of(out, d, 0, cell);
	tail(out, d);
	free(cell);
	return ferror(out) ? CD_EIO : 0;
}
