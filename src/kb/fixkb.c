/* fixkb: see fixkb.h. At most FIXKB_IDS ids, so the relation is a bit
 * matrix, closed transitively once (Warshall). */
#include "kb/fixkb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

#define FIXKB_IDS     64
#define FIXKB_ID_MAX  48
#define FIXKB_VERIFY  48
#define FIXKB_CMD_MAX 256

static char ids[FIXKB_IDS][FIXKB_ID_MAX];
static unsigned n_ids;
static uint64_t causes[FIXKB_IDS]; /* bit e of causes[c]: c causes e */
static struct {
	char id[FIXKB_ID_MAX];
	char cmd[FIXKB_CMD_MAX];
} verify[FIXKB_VERIFY];
static unsigned n_verify;
static int loaded;

static int index_of(const char *id, int add)
{
	unsigned i;

	for (i = 0; i < n_ids; i++)
		if (!strcmp(ids[i], id))
			return (int)i;
	if (!add || n_ids == FIXKB_IDS || !*id || strlen(id) >= FIXKB_ID_MAX)
		return -1;
	str_copy(ids[n_ids], FIXKB_ID_MAX, id);
	return (int)n_ids++;
}

static void load_causes(struct kb_tsv *t)
{
	unsigned k, i;
	int c, e;

	if (kb_tsv_open(t, "fix_causes.tsv"))
		return;
	while (kb_tsv_next(t)) {
		const char *a = kb_tsv_get(t, "cause"), *b = kb_tsv_get(t, "effect");
		if (!a || !b || (c = index_of(a, 1)) < 0 || (e = index_of(b, 1)) < 0 || c == e) {
			memset(causes, 0, sizeof(causes)); /* a bad row: no order at all */
			return;
		}
		causes[c] |= (uint64_t)1 << e;
	}
	for (k = 0; k < n_ids; k++)
		for (i = 0; i < n_ids; i++)
			if (causes[i] >> k & 1)
				causes[i] |= causes[k];
}

static void load_verify(struct kb_tsv *t)
{
	if (kb_tsv_open(t, "fix_verify.tsv"))
		return;
	while (kb_tsv_next(t) && n_verify < FIXKB_VERIFY) {
		const char *id = kb_tsv_get(t, "id"), *v = kb_tsv_get(t, "verify");
		if (!id || !v || !*v ||
		    str_copy(verify[n_verify].id, FIXKB_ID_MAX, id) >= FIXKB_ID_MAX ||
		    str_copy(verify[n_verify].cmd, FIXKB_CMD_MAX, v) >= FIXKB_CMD_MAX)
			continue;
		n_verify++;
	}
}

static void load(void)
{
	struct kb_tsv *t;

	if (loaded)
		return;
	loaded = 1;
	if (!(t = malloc(sizeof(*t)))) /* 33 KiB of line buffers */
		return;
	load_causes(t);
	load_verify(t);
	free(t);
}

int fixkb_causes(const char *cause, const char *effect)
{
	int c, e;

	load();
	if ((c = index_of(cause, 0)) < 0 || (e = index_of(effect, 0)) < 0)
		return 0;
	return (int)(causes[c] >> e & 1);
}

const char *fixkb_verify(const char *id)
{
	unsigned i;

	load();
	for (i = 0; i < n_verify; i++)
		if (!strcmp(verify[i].id, id))
			return verify[i].cmd;
	return NULL;
}
