/* nvlibs: see nvlibs.h. nvlibs_is_nvidia runs for every ld.so.cache entry
 * (tens of thousands): the table is read once, and a lookup is a prefix test
 * per row. */
#include "kb/nvlibs.h"

#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

#define NVLIBS_ROWS_MAX 96

struct nvlibs_row {
	char stem[32];
	size_t stem_len;
	int cuda_major; /* 0: any */
	char wheel[48]; /* "": none named */
};

static struct nvlibs_row rows[NVLIBS_ROWS_MAX];
static size_t n_rows;
static int loaded;

static int load_row(const struct kb_tsv *t, void *ctx)
{
	const char *stem = kb_tsv_get(t, "stem"), *major = kb_tsv_get(t, "cuda_major");
	struct nvlibs_row *r = &rows[n_rows];

	(void)ctx;
	if (!stem || !*stem || str_copy(r->stem, sizeof(r->stem), stem) >= sizeof(r->stem))
		return 0;
	if (major && *major && str_to_int(major, 1, 99, &r->cuda_major))
		return 0;
	if (str_copy(r->wheel, sizeof(r->wheel), kb_tsv_get(t, "wheel")) >= sizeof(r->wheel))
		return 0;
	r->stem_len = strlen(r->stem);
	return ++n_rows == NVLIBS_ROWS_MAX;
}

static void load(void)
{
	if (loaded)
		return;
	loaded = 1;
	/* Not embedded or out of memory: no rows, no library is NVIDIA's. */
	(void)!kb_tsv_each("nvidia_libs.tsv", load_row, NULL);
}

int nvlibs_is_nvidia(const char *base)
{
	size_t i;

	if (!base)
		return 0;
	load();
	for (i = 0; i < n_rows; i++)
		if (!strncmp(base, rows[i].stem, rows[i].stem_len))
			return 1;
	return 0;
}

size_t nvlibs_wheels(const char *lib, struct nvlibs_wheel *out, size_t cap)
{
	size_t i, n = 0;

	if (!lib)
		return 0;
	load();
	for (i = 0; i < n_rows && n < cap; i++) {
		const struct nvlibs_row *r = &rows[i];
		if (!r->wheel[0] || strncmp(lib, r->stem, r->stem_len) ||
		    !strchr("._-", lib[r->stem_len]) || !lib[r->stem_len])
			continue;
		out[n].cuda_major = r->cuda_major;
		out[n].name = r->wheel;
		n++;
	}
	return n;
}
