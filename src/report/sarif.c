/* sarif: see sarif.h. Levels: error -> "error", warning -> "warning",
 * info -> "note". A finding's fix lines go into the result's message after
 * its detail (SARIF fixes need byte-exact replacements, which these are not). */
#include "report/sarif.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "kb/dfrules.h"
#include "report/render.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static const char *level(enum cd_severity s)
{
	return s == CD_SEV_ERROR ? "error" : s == CD_SEV_WARNING ? "warning" : "note";
}

static json_t *text(const char *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "text", json_str(s ? s : ""));
	return o;
}

static json_t *rule(const struct cd_finding *x)
{
	json_t *r = json_object(), *cfg = json_object();
	struct dfrule d;
	char url[256];

	json_object_set_new(r, "id", json_string(x->id));
	if (dfrules_find(x->id, &d) == 0) {
		json_object_set_new(r, "shortDescription", text(d.summary));
		json_object_set_new(r, "fullDescription", text(d.documented));
		if (dfrules_first_url(&d, url, sizeof(url)) == 0)
			json_object_set_new(r, "helpUri", json_str(url));
		json_object_set_new(r, "help", text(d.source));
	} else {
		json_object_set_new(r, "shortDescription", text(x->title));
		json_object_set_new(r, "helpUri",
				    json_string("https://github.com/cuda-doctor/"
						"cuda-doctor/blob/main/docs/"
						"findings.md"));
	}
	json_object_set_new(cfg, "level", json_string(level(x->severity)));
	json_object_set_new(r, "defaultConfiguration", cfg);
	return r;
}

static json_t *message(const struct cd_finding *x)
{
	size_t n = strlen(x->title ? x->title : "") + strlen(x->detail ? x->detail : "") + 8, i;
	char *m;
	json_t *o;

	for (i = 0; i < x->n_fix; i++)
		n += strlen(x->fix[i]) + 8;
	m = malloc(n);
	if (!m)
		return text(x->title);
	snprintf(m, n, "%s%s%s", x->title ? x->title : x->id, x->detail ? ". " : "",
		 x->detail ? x->detail : "");
	for (i = 0; i < x->n_fix; i++)
		snprintf(m + strlen(m), n - strlen(m), "%sfix: %s", i ? "; " : " ", x->fix[i]);
	o = text(m);
	free(m);
	return o;
}

static json_t *location(const struct cd_finding *x, const char *artifact)
{
	json_t *loc = json_object(), *phys = json_object(), *art = json_object(), *reg;
	const char *uri = x->file ? x->file : artifact;

	json_object_set_new(art, "uri", json_str(uri));
	json_object_set_new(phys, "artifactLocation", art);
	if (x->line) {
		reg = json_object();
		json_object_set_new(reg, "startLine", json_integer(x->line));
		json_object_set_new(reg, "endLine",
				    json_integer(x->end_line ? x->end_line : x->line));
		json_object_set_new(phys, "region", reg);
	}
	json_object_set_new(loc, "physicalLocation", phys);
	return loc;
}

int sarif_print(FILE *out, const struct cd_findings *fs, const char *artifact)
{
	json_t *root = json_object(), *runs = json_array(), *run = json_object();
	json_t *tool = json_object(), *drv = json_object(), *rules = json_array();
	json_t *results = json_array(), *ids = json_object();
	size_t i;
	int rc;

	json_object_set_new(drv, "name", json_string("cuda-doctor"));
	json_object_set_new(drv, "version", json_string(CD_VERSION));
	json_object_set_new(drv, "informationUri",
			    json_string("https://github.com/cuda-doctor/cuda-doctor"));
	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		json_t *res = json_object(), *locs = json_array(),
		       *idx = json_object_get(ids, x->id);
		if (!idx) {
			idx = json_integer((json_int_t)json_array_size(rules));
			json_object_set_new(ids, x->id, idx);
			json_array_append_new(rules, rule(x));
		}
		json_object_set_new(res, "ruleId", json_string(x->id));
		json_object_set(res, "ruleIndex", idx);
		json_object_set_new(res, "level", json_string(level(x->severity)));
		json_object_set_new(res, "message", message(x));
		if (x->file || artifact) {
			json_array_append_new(locs, location(x, artifact));
			json_object_set_new(res, "locations", locs);
		} else {
			json_decref(locs);
		}
		json_array_append_new(results, res);
	}
	json_object_set_new(drv, "rules", rules);
	json_object_set_new(tool, "driver", drv);
	json_object_set_new(run, "tool", tool);
	json_object_set_new(run, "results", results);
	json_array_append_new(runs, run);
	json_object_set_new(root, "$schema", json_string(SARIF_SCHEMA));
	json_object_set_new(root, "version", json_string("2.1.0"));
	json_object_set_new(root, "runs", runs);
	rc = json_print(out, root);
	json_decref(root);
	json_decref(ids);
	return rc;
}
