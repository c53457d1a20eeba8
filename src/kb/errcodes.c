/* errcodes: see errcodes.h. */
#include "kb/errcodes.h"

#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

#define ROWS_MAX  160
#define POOL_SIZE (96 * 1024)

static struct errcodes_row rows[ROWS_MAX];
static size_t n_rows;
static char pool_bytes[POOL_SIZE];
static struct kb_pool pool = {pool_bytes, 0, POOL_SIZE};
static int loaded;

static int api_of(const char *s, enum errcodes_api *out)
{
	if (!strcmp(s, "driver"))
		*out = ERRCODES_DRIVER;
	else if (!strcmp(s, "runtime"))
		*out = ERRCODES_RUNTIME;
	else if (!strcmp(s, "nccl"))
		*out = ERRCODES_NCCL;
	else
		return -1;
	return 0;
}

/* Split "a\nb" (the two characters backslash and n) into fix lines. */
static void split_fix(struct errcodes_row *r, const char *fix)
{
	char line[1024];

	while (fix && *fix && r->n_fix < ERRCODES_FIX_MAX) {
		const char *end = strstr(fix, "\\n");
		size_t n = end ? (size_t)(end - fix) : strlen(fix);
		str_ncopy(line, sizeof(line), fix, n);
		if (line[0])
			r->fix[r->n_fix++] = kb_pool_dup(&pool, line);
		fix = end ? end + 2 : NULL;
	}
}

static void load_file(struct kb_tsv *t, const char *name)
{
	if (kb_tsv_open(t, name) != 0)
		return;
	while (kb_tsv_next(t) && n_rows < ROWS_MAX) {
		struct errcodes_row *r = &rows[n_rows];
		const char *api = kb_tsv_get(t, "api"), *code = kb_tsv_get(t, "code");
		int c;
		memset(r, 0, sizeof(*r));
		if (!api || !code || api_of(api, &r->api) ||
		    str_to_int(code, -1000000, 1000000, &c))
			continue;
		r->code = c;
		r->name = kb_pool_dup(&pool, kb_tsv_get(t, "name"));
		r->text = kb_pool_dup(&pool, kb_tsv_get(t, "text"));
		r->meaning = kb_pool_dup(&pool, kb_tsv_get(t, "meaning"));
		r->source = kb_pool_dup(&pool, kb_tsv_get(t, "source"));
		split_fix(r, kb_tsv_get(t, "fix"));
		if (r->name && r->text && r->meaning && r->source)
			n_rows++;
	}
}

static void load(void)
{
	struct kb_tsv *t;

	if (loaded)
		return;
	loaded = 1;
	t = malloc(sizeof(*t)); /* 33 KiB of line buffers: not on the stack */
	if (!t)
		return;
	load_file(t, "cuda_results.tsv");
	load_file(t, "nccl_results.tsv");
	free(t);
}

const struct errcodes_row *errcodes_find(enum errcodes_api api, int64_t code)
{
	size_t i;

	load();
	for (i = 0; i < n_rows; i++)
		if (rows[i].api == api && rows[i].code == code)
			return &rows[i];
	return NULL;
}

const char *errcodes_name(enum errcodes_api api, int64_t code)
{
	const struct errcodes_row *r = errcodes_find(api, code);

	return r ? r->name : NULL;
}
