/* xid: see xid.h. */
#include "kb/xid.h"

#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

#define XID_ROWS_MAX	  128
#define RECOVERY_ROWS_MAX 16
#define POOL_SIZE	  (96 * 1024)

static struct xid_row xids[XID_ROWS_MAX];
static struct xid_recovery recs[RECOVERY_ROWS_MAX];
static size_t n_xids, n_recs;
static char pool_bytes[POOL_SIZE];
static struct kb_pool pool = {pool_bytes, 0, POOL_SIZE};
static int loaded;

static const char *col(const struct kb_tsv *t, const char *name)
{
	return kb_pool_dup(&pool, kb_tsv_get(t, name));
}

static void load_xids(struct kb_tsv *t)
{
	if (kb_tsv_open(t, "xid.tsv") != 0)
		return;
	while (kb_tsv_next(t) && n_xids < XID_ROWS_MAX) {
		struct xid_row *r = &xids[n_xids];
		const char *x = kb_tsv_get(t, "xid");
		int v;
		if (!x || str_to_int(x, 0, 100000, &v))
			continue;
		r->xid = v;
		r->name = col(t, "name");
		r->k8s = col(t, "k8s_device_plugin");
		r->dcgm = col(t, "dcgm_health");
		r->dcgm_label = col(t, "dcgm_label");
		r->eks = col(t, "eks_node_agent");
		r->action = col(t, "nvidia_action");
		r->severity = col(t, "severity");
		r->notes = col(t, "notes");
		r->source = col(t, "source");
		if (r->name && r->k8s && r->dcgm && r->dcgm_label && r->eks && r->action &&
		    r->severity && r->notes && r->source)
			n_xids++;
	}
}

static void load_recovery(struct kb_tsv *t)
{
	if (kb_tsv_open(t, "gpu_recovery.tsv") != 0)
		return;
	while (kb_tsv_next(t) && n_recs < RECOVERY_ROWS_MAX) {
		struct xid_recovery *r = &recs[n_recs];
		const char *c = kb_tsv_get(t, "code");
		int v;
		if (!c || str_to_int(c, 0, 1000, &v))
			continue;
		r->code = v;
		r->name = col(t, "name");
		r->severity = col(t, "severity");
		r->meaning = col(t, "meaning");
		r->fix = col(t, "fix");
		r->source = col(t, "source");
		if (r->name && r->severity && r->meaning && r->fix && r->source)
			n_recs++;
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
	load_xids(t);
	load_recovery(t);
	free(t);
}

const struct xid_row *xid_find(int64_t xid)
{
	size_t i;

	load();
	for (i = 0; i < n_xids; i++)
		if (xids[i].xid == xid)
			return &xids[i];
	return NULL;
}

const struct xid_recovery *xid_recovery_find(int64_t code)
{
	size_t i;

	load();
	for (i = 0; i < n_recs; i++)
		if (recs[i].code == code)
			return &recs[i];
	return NULL;
}
