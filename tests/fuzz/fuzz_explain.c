/* libFuzzer target for the explain path: the streaming scanner (chunking,
 * ANSI stripping, line and rank parsing, capture extraction on matching
 * lines, deduplication) and the renderers, over arbitrary bytes. The first
 * input byte picks the feed size so chunk boundaries move around. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/err.h"
#include "report/explain_render.h"
#include "explain/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct xs_db *db;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_err err = {0};
	struct xs_result *r;
	struct xs_scanner *s = NULL;
	struct xr_opts o = {CD_FMT_JSON, 0, 1, 0, "explain", -1};
	size_t piece, off;
	FILE *null;

	if (!db && xs_db_open(&db, &err) != 0)
		abort();
	if (!size)
		return 0;
	piece = (size_t)data[0] * 37 + 1;
	data++;
	size--;
	r = xs_result_new();
	if (!r)
		return 0;
	if (xs_result_input(r, "fuzz") != 0)
		abort();
	if (xs_open(&s, db, r, 0, &err) != 0)
		abort();
	for (off = 0; off < size; off += piece)
		if (xs_feed(s, data + off, size - off < piece ? size - off : piece) != 0)
			abort();
	if (xs_finish(s) != 0)
		abort();
	xs_close(s);
	xs_rank(r, db);
	null = fopen("/dev/null", "w");
	if (null) { /* the renderers must not crash; out of memory is not a bug */
		(void)xr_render(null, r, &o);
		o.format = CD_FMT_TEXT;
		(void)xr_render(null, r, &o);
		o.format = CD_FMT_MARKDOWN;
		(void)xr_render(null, r, &o);
		fclose(null);
	}
	xs_result_free(r);
	return 0;
}
