/* report: render the diagnoses of `explain` and `run` as text, JSON
 * (schema cuda-doctor.explain/1, docs/explain.md) or Markdown. Renderers
 * only read the result; strings they build live in the result's arena.
 * xr_json returns a new reference the caller decrefs (NULL on no memory). */
#ifndef CD_XREPORT_H
#define CD_XREPORT_H

#include <jansson.h>
#include <stdio.h>

#include "core/err.h"
#include "core/opts.h"
#include "explain/scan.h"

#define XR_SCHEMA "cuda-doctor.explain/1"

struct xr_opts {
	enum cd_format format;
	int color;
	int verbose;
	int env_checked;     /* the environment cross-check ran */
	const char *command; /* "explain" or "run" */
	int exit_status;     /* run: the command's exit status, -1 for explain */
};

/* A fix/title/explanation template with {fact} replaced by the diagnosis'
 * facts ({{ and }} are literal braces; an unknown fact stays as <name>). */
CD_WUR const char *xr_expand(struct xs_result *r, const struct xs_diag *d, const char *tmpl);
CD_WUR json_t *xr_json(struct xs_result *r, const struct xr_opts *o);
CD_WUR int xr_render(FILE *out, struct xs_result *r, const struct xr_opts *o);
/* 1 when some diagnosis has error severity. */
int xr_has_error(const struct xs_result *r);

#endif
