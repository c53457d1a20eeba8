/* cudabuild: see cudabuild.h. */
#include "kb/cudabuild.h"

#include <stdlib.h>
#include <string.h>

#include "kb/kb.h"

#define CUDABUILD_MAX 64

static struct cudabuild_row rows[CUDABUILD_MAX];
static size_t n_rows;
static int loaded;

static void load(void)
{
	struct kb_tsv *t;

	if (loaded)
		return;
	loaded = 1;
	t = malloc(sizeof(*t)); /* 33 KiB of line buffers: not on the stack */
	if (!t || kb_tsv_open(t, "cuda_builds.tsv") != 0) {
		free(t);
		return;
	}
	while (kb_tsv_next(t) && n_rows < CUDABUILD_MAX) {
		struct cudabuild_row *r = &rows[n_rows];
		const char *kind = kb_tsv_get(t, "kind");
		r->kind = !strcmp(kind, "pip")	   ? CUDABUILD_PIP
			  : !strcmp(kind, "setup") ? CUDABUILD_SETUP
						   : CUDABUILD_COMMAND;
		r->name = strdup(kb_tsv_get(t, "name"));
		r->condition = strdup(kb_tsv_get(t, "condition"));
		r->torch_archs = !strcmp(kb_tsv_get(t, "arch_list"), "torch");
		r->what = strdup(kb_tsv_get(t, "what"));
		r->source = strdup(kb_tsv_get(t, "source"));
		if (r->name && r->condition && r->what && r->source)
			n_rows++;
	}
	free(t);
}

const struct cudabuild_row *cudabuild_rows(size_t *n)
{
	load();
	*n = n_rows;
	return rows;
}
