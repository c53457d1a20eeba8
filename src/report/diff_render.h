/* diff_render: the views of a finished struct diff: text for people, JSON
 * lines for jq (docs/diff.md), and one self-contained HTML page (inline style
 * and script, nothing fetched) with a node x key grid of the keys that
 * differ. Renderers only read the diff; they return 0, CD_ENOMEM or CD_EIO. */
#ifndef CD_DIFF_RENDER_H
#define CD_DIFF_RENDER_H

#include <stdio.h>

#include "core/err.h"
#include "report/diff.h"
#include "report/render.h"

#define DIFF_SCHEMA "cuda-doctor.diff/1"

CD_WUR int diff_text(const struct cd_render *r, const struct diff *d);
CD_WUR int diff_jsonl(FILE *out, const struct diff *d);
CD_WUR int diff_html(FILE *out, const struct diff *d);
/* 9812 -> "9,812" */
const char *diff_count(size_t n, char *buf, size_t cap);

#endif
