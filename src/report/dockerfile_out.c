/* dockerfile_out: see dockerfile_out.h. */
#include "report/dockerfile_out.h"

#include <stdio.h>
#include <string.h>

#include "report/sarif.h"

static const char *nvcc_word(int v)
{
	return v == 1 ? "nvcc" : v == 0 ? "no nvcc" : "nvcc unknown";
}

static void text_stage(const struct cd_render *r, const struct dfc_stage_view *v)
{
	fprintf(r->out, "  stage %zu%s%s%s: %s", v->index, v->name ? " (" : "",
		v->name ? v->name : "", v->name ? ")" : "",
		v->image ? v->image : "(an ARG without a value)");
	if (v->parent >= 0)
		fprintf(r->out, "  [built on stage %d]", v->parent);
	fprintf(r->out, "\n      CUDA %s, %s", v->cuda ? v->cuda : "unknown",
		nvcc_word(v->has_nvcc));
	if (v->img.known && v->img.matched && v->img.flavor[0] && strcmp(v->img.flavor, "none"))
		fprintf(r->out, ", %s image", v->img.flavor);
	if (v->torch)
		fprintf(r->out, ", installs %s", v->torch);
	fprintf(r->out, "%s\n", v->final ? "  (final)" : "");
}

static void text_service(const struct cd_render *r, const struct dfc_service_view *v)
{
	fprintf(r->out, "  service %s: %s%s%s%s\n      GPUs: %s%s\n", v->name,
		v->image   ? v->image
		: v->build ? ""
			   : "(no image)",
		v->image && v->build ? ", " : "", v->build ? "built from " : "",
		v->build ? v->build : "", v->gpus ? v->gpus : "none requested",
		v->gpu_image ? " (a GPU image)" : "");
}

static void text(const struct cd_render *r, const struct dfc_report *rep,
		 const struct cd_findings *fs)
{
	size_t i;

	if (!r->quiet) {
		fprintf(r->out, "cuda-doctor %s dockerfile %s%s\n", CD_VERSION, rep->path,
			rep->compose ? " (Compose)" : "");
		for (i = 0; i < rep->n_stages; i++)
			text_stage(r, &rep->stages[i]);
		for (i = 0; i < rep->n_services; i++)
			text_service(r, &rep->services[i]);
		if (rep->host)
			fprintf(r->out, "  judged against driver %s (CUDA %s%s%s), %s\n",
				rep->host->driver ? rep->host->driver : "?",
				rep->host->cuda ? rep->host->cuda : "?",
				rep->host->brand ? ", brand " : "",
				rep->host->brand ? rep->host->brand : "", rep->host->source);
		if (rep->n_ignored)
			fprintf(r->out, "  %zu finding%s ignored by cuda-doctor ignore comments\n",
				rep->n_ignored, rep->n_ignored == 1 ? "" : "s");
	}
	text_findings(r, fs);
}

static json_t *stage_json(const struct dfc_stage_view *v)
{
	json_t *o = json_object();

	json_object_set_new(o, "index", json_integer((json_int_t)v->index));
	json_object_set_new(o, "name", json_str(v->name));
	json_object_set_new(o, "image", json_str(v->image));
	json_object_set_new(o, "parent", v->parent >= 0 ? json_integer(v->parent) : json_null());
	json_object_set_new(o, "known_image", json_boolean(v->img.known));
	json_object_set_new(o, "pinned", v->img.known ? json_boolean(v->img.pinned) : json_null());
	json_object_set_new(o, "flavor", json_str(v->img.flavor[0] ? v->img.flavor : NULL));
	json_object_set_new(o, "cuda", json_str(v->cuda));
	json_object_set_new(o, "nvcc", v->has_nvcc < 0 ? json_null() : json_boolean(v->has_nvcc));
	json_object_set_new(o, "torch", json_str(v->torch));
	json_object_set_new(o, "final", json_boolean(v->final));
	return o;
}

static json_t *service_json(const struct dfc_service_view *v)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_str(v->name));
	json_object_set_new(o, "line", json_integer(v->line));
	json_object_set_new(o, "image", json_str(v->image));
	json_object_set_new(o, "build", json_str(v->build));
	json_object_set_new(o, "gpus", json_str(v->gpus));
	json_object_set_new(o, "gpu_image", json_boolean(v->gpu_image));
	return o;
}

static int json_out(const struct cd_render *r, const struct dfc_report *rep,
		    const struct cd_findings *fs)
{
	json_t *o = json_object(), *st = json_array(), *sv = json_array(), *h = json_null();
	size_t i;
	int rc;

	json_object_set_new(o, "schema", json_string(CD_DOCKERFILE_SCHEMA));
	json_object_set_new(o, "tool", json_string("cuda-doctor " CD_VERSION));
	json_object_set_new(o, "file", json_str(rep->path));
	json_object_set_new(o, "kind", json_string(rep->compose ? "compose" : "dockerfile"));
	for (i = 0; i < rep->n_stages; i++)
		json_array_append_new(st, stage_json(&rep->stages[i]));
	json_object_set_new(o, "stages", st);
	for (i = 0; i < rep->n_services; i++)
		json_array_append_new(sv, service_json(&rep->services[i]));
	json_object_set_new(o, "services", sv);
	if (rep->host) {
		h = json_object();
		json_object_set_new(h, "driver", json_str(rep->host->driver));
		json_object_set_new(h, "cuda", json_str(rep->host->cuda));
		json_object_set_new(h, "brand", json_str(rep->host->brand));
		json_object_set_new(h, "gpus",
				    rep->host->n_gpus >= 0
					    ? json_integer((json_int_t)rep->host->n_gpus)
					    : json_null());
		json_object_set_new(h, "source", json_str(rep->host->source));
	}
	json_object_set_new(o, "host_driver", h);
	json_object_set_new(o, "ignored", json_integer((json_int_t)rep->n_ignored));
	json_object_set_new(o, "findings", json_findings(fs));
	rc = json_print(r->out, o);
	json_decref(o);
	return rc;
}

static void markdown(const struct cd_render *r, const struct dfc_report *rep,
		     const struct cd_findings *fs)
{
	size_t i, k;

	fprintf(r->out, "# cuda-doctor dockerfile `%s`\n\n", rep->path);
	if (rep->compose) {
		fprintf(r->out, "| service | image | GPUs |\n|---|---|---|\n");
		for (i = 0; i < rep->n_services; i++) {
			const struct dfc_service_view *v = &rep->services[i];
			fprintf(r->out, "| %s | `%s` | %s |\n", v->name,
				v->image ? v->image : (v->build ? v->build : "?"),
				v->gpus ? v->gpus : "none");
		}
	} else {
		fprintf(r->out, "| stage | image | CUDA | nvcc |\n|---|---|---|---|\n");
	}
	for (i = 0; i < rep->n_stages; i++) {
		const struct dfc_stage_view *v = &rep->stages[i];
		fprintf(r->out, "| %zu%s%s | `%s` | %s | %s |\n", v->index, v->name ? " " : "",
			v->name ? v->name : "", v->image ? v->image : "?", v->cuda ? v->cuda : "?",
			nvcc_word(v->has_nvcc));
	}
	fprintf(r->out, "\n## Findings\n\n");
	for (i = 0; i < fs->n; i++) {
		const struct cd_finding *x = fs->items[i];
		fprintf(r->out, "- **%s** `%s` (line %u): %s\n", severity_name(x->severity), x->id,
			x->line, x->title);
		for (k = 0; k < x->n_fix; k++)
			fprintf(r->out, "  - fix: `%s`\n", x->fix[k]);
	}
	if (!fs->n)
		fprintf(r->out, "None.\n");
}

int dockerfile_render(const struct cd_render *r, const struct dfc_report *rep,
		      const struct cd_findings *fs)
{
	switch (r->format) {
	case CD_FMT_JSON: return json_out(r, rep, fs);
	case CD_FMT_SARIF: return sarif_print(r->out, fs, rep->path);
	case CD_FMT_MARKDOWN: markdown(r, rep, fs); return 0;
	default: text(r, rep, fs); return 0;
	}
}
