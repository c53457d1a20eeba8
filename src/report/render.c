/* render: dispatch to the renderer the options chose. */
#include "report/render.h"

#include <string.h>

#include "core/err.h"
#include "report/prom.h"
#include "report/sarif.h"

void render_init(struct cd_render *r, const struct cd_opts *opts, const char *command)
{
	r->out = stdout;
	r->format = opts->format;
	r->color = opts->color;
	r->quiet = opts->quiet;
	r->verbose = opts->verbose;
	r->command = command;
	r->plan = NULL;
	r->full_json = opts->full_json;
}

static int render_dispatch(const struct cd_render *r, const struct cd_facts *f,
			   const struct cd_findings *fs)
{
	json_t *j;
	int rc;

	switch (r->format) {
	case CD_FMT_JSON:
		j = strcmp(r->command, "check") ? json_report(f, fs, r->command)
						: json_check_report(f, fs);
		rc = json_print(r->out, j);
		json_decref(j);
		return rc;
	case CD_FMT_HTML:
		j = json_report(f, fs, r->command);
		rc = html_print(r->out, j, r->command);
		json_decref(j);
		return rc;
	case CD_FMT_MARKDOWN: markdown_report(r, f, fs); return 0;
	case CD_FMT_SARIF: return sarif_print(r->out, fs, NULL);
	case CD_FMT_PROMETHEUS: return prom_report(r->out, f, fs);
	default: text_report(r, f, fs); return 0;
	}
}

int render_report(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs)
{
	int rc = render_dispatch(r, f, fs);

	/* A write that failed on the way (a full disk, EPIPE) is the answer,
	 * whatever the renderer made of it. */
	if (fflush(r->out) != 0 || ferror(r->out))
		return CD_EIO;
	return rc;
}
