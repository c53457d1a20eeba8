/* fleetkeys: see fleetkeys.h. */
#include "kb/fleetkeys.h"

#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

#define FLEETKEYS_MAX 32

struct fleetkey_row {
	char key[96];
	enum fleetkey_kind kind;
};

static struct fleetkey_row rows[FLEETKEYS_MAX];
static size_t n_rows;
static int loaded;

static enum fleetkey_kind kind_of(const char *s)
{
	if (!strcmp(s, "self"))
		return FLEETKEY_SELF;
	if (!strcmp(s, "identity"))
		return FLEETKEY_IDENTITY;
	if (!strcmp(s, "volatile"))
		return FLEETKEY_VOLATILE;
	return FLEETKEY_KEEP;
}

static void load(void)
{
	static struct kb_tsv t;

	loaded = 1;
	if (kb_tsv_open(&t, "fleet_keys.tsv"))
		return;
	while (kb_tsv_next(&t) && n_rows < FLEETKEYS_MAX) {
		const char *k = kb_tsv_get(&t, "key"), *kind = kb_tsv_get(&t, "kind");
		struct fleetkey_row *r = &rows[n_rows];
		if (!k || !*k || !kind || str_copy(r->key, sizeof(r->key), k) >= sizeof(r->key))
			continue;
		r->kind = kind_of(kind);
		if (r->kind != FLEETKEY_KEEP)
			n_rows++;
	}
}

enum fleetkey_kind fleetkeys_kind(const char *pattern)
{
	size_t i;

	if (!loaded)
		load();
	for (i = 0; i < n_rows; i++)
		if (!strcmp(rows[i].key, pattern))
			return rows[i].kind;
	return FLEETKEY_KEEP;
}
