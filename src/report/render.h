/* render: turn facts and findings into text, JSON or Markdown.
 * Renderers only read; they print to the FILE they are given and return 0 or
 * a CD_E* code (CD_ENOMEM when the JSON tree cannot be built). The json_*
 * helpers give other modules the same null-for-unknown conventions. */
#ifndef CD_RENDER_H
#define CD_RENDER_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "core/opts.h"
#include "facts/facts.h"
#include "facts/finding.h"
#include "facts/plan.h"

#define CD_SCHEMA "cuda-doctor.report/1"

struct cd_render {
	FILE *out;
	enum cd_format format;
	int color;
	int quiet;
	int verbose;
	const char *command; /* "check", ... */
	/* The plan of the findings (check/fix/plan.h): its first step is printed
	 * under them (text, Markdown); NULL for none. */
	const struct cd_plan *plan;
};

void render_init(struct cd_render *r, const struct cd_opts *opts, const char *command);
CD_WUR int render_report(const struct cd_render *r, const struct cd_facts *f,
			 const struct cd_findings *fs);

/* JSON building blocks: unknown (NULL / CD_UNK / CD_TRI_UNKNOWN) -> null.
 * Strings that are not valid UTF-8 are repaired with U+FFFD. */
CD_WUR json_t *json_str(const char *s);
CD_WUR json_t *json_i64(int64_t v);
CD_WUR json_t *json_tri(enum cd_tri t);
CD_WUR json_t *json_strv(const char *const *v, size_t n, int known);
/* Fatbin arch keys of one kind (FATBIN_KIND_*) as names: ["sm_90a", ...]. */
CD_WUR json_t *json_arch_names(int kind, const uint32_t *keys, size_t n);
CD_WUR json_t *json_findings(const struct cd_findings *fs);
CD_WUR json_t *json_report(const struct cd_facts *f, const struct cd_findings *fs,
			   const char *command);
/* check's report: json_report with the fleet object (report/fleet.h), volatile
 * keys null unless f->opts asks to keep them. */
CD_WUR json_t *json_check_report(const struct cd_facts *f, const struct cd_findings *fs);
/* Print with two-space indentation and a final newline. */
CD_WUR int json_print(FILE *out, json_t *root);
/* A self-contained HTML page of any command's JSON report (html.c): findings
 * or diagnoses as cards, then every other key; CD_ENOMEM for a NULL root. */
CD_WUR int html_print(FILE *out, json_t *root, const char *command);

void text_report(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs);
/* The end of every command's text report: "Findings", each finding (mark
 * and title, [severity id], detail, evidence, fixes; notes not with -q) and
 * the count of errors, warnings and notes. */
void text_findings(const struct cd_render *r, const struct cd_findings *fs);
/* The Python / PyTorch section of the text report (stack_report.c). */
void stack_text(const struct cd_render *r, const struct cd_facts *f, const struct cd_findings *fs);
void markdown_report(const struct cd_render *r, const struct cd_facts *f,
		     const struct cd_findings *fs);

#endif
