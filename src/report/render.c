/* render: dispatch to the renderer the options chose. */
#include "report/render.h"

#include "core/err.h"
#include "report/sarif.h"

void render_init(struct cd_render *r, const struct cd_opts *opts, const char *command)
{
	r->out = stdout;
	r->format = opts->format;
	r->color = opts->color;
	r->quiet = opts->quiet;
	r->verbose = opts->verbose;
	r->command = command;
}

int render_report(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs)
{
	json_t *j;
	int rc;

	switch (r->format) {
	case CD_FMT_JSON:
		j = json_report(f, fs, r->command);
		rc = json_print(r->out, j);
		json_decref(j);
		return rc;
	case CD_FMT_MARKDOWN: markdown_report(r, f, fs); return 0;
	case CD_FMT_SARIF: return sarif_print(r->out, fs, NULL);
	default: text_report(r, f, fs); return 0;
	}
}
