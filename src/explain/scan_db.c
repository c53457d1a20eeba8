/* scan_db: the signature database of the scanner: the signatures parsed
 * from the embedded data/signatures (checked against the hash the compiled
 * Vectorscan database was built from), the causes between categories
 * (data/explain_causes.tsv) and that compiled database. */
#include <hs/hs_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "explain/scan_int.h"
#include "kb/kb.h"

/* Written by tools/sigc.c from data/signatures into $(BUILD)/gen/sigdb.c. */
extern const unsigned char xs_hsdb[];
extern const size_t xs_hsdb_len;
extern const uint64_t xs_sig_hash;
/* the literal op each template is anchored on, in database order */
extern const size_t xs_anchor_n;
extern const uint8_t xs_anchor_ops[];

/* Read data/explain_causes.tsv into db->causes and close it transitively;
 * an unknown category or a cycle is CD_EINTERNAL (the data is wrong). */
static int load_causes(struct xs_db *db, struct cd_err *err)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	size_t n = 0, a, b, k;
	int rc = 0;

	if (!t)
		return err_set(err, CD_ENOMEM, "out of memory");
	while (sig_categories[n])
		n++;
	if (n > 32 || kb_tsv_open(t, "explain_causes.tsv")) {
		free(t);
		return err_set(err, CD_EINTERNAL, "explain_causes.tsv is missing");
	}
	while (!rc && kb_tsv_next(t)) {
		int c = sig_category_index(kb_tsv_get(t, "cause"));
		int e = sig_category_index(kb_tsv_get(t, "effect"));
		if (c < 0 || e < 0 || c == e)
			rc = err_set(err, CD_EINTERNAL,
				     "explain_causes.tsv:%zu: not two categories", t->lineno);
		else
			db->causes[c] |= (uint32_t)1 << e;
	}
	free(t);
	memcpy(db->direct, db->causes, sizeof(db->direct));
	for (k = 0; k < n; k++) /* Warshall: through category k */
		for (a = 0; a < n; a++)
			if (db->causes[a] >> k & 1)
				db->causes[a] |= db->causes[k];
	for (a = 0; !rc && a < n; a++)
		if (db->causes[a] >> a & 1)
			rc = err_set(err, CD_EINTERNAL, "explain_causes.tsv: %s causes itself",
				     sig_categories[a]);
	(void)b;
	return rc;
}

/* Anchor the templates as tools/sigc.c did when it compiled the database
 * (the signatures' patterns, then the context facts' anchored on a literal),
 * so a match's position relative to its anchor means the same. */
static int apply_anchors(struct sigdb *s, struct cd_err *err)
{
	size_t i;
	int rc = xs_anchor_n != sigdb_n_anchored(s);

	for (i = 0; !rc && i < xs_anchor_n; i++)
		if (sigdb_anchored(s, i))
			rc = tmpl_set_anchor(sigdb_anchored(s, i), xs_anchor_ops[i]);
	return rc ? err_set(err, CD_EINTERNAL, "the database's anchors do not match its patterns")
		  : 0;
}

int xs_db_open(struct xs_db **out, struct cd_err *err)
{
	struct xs_db *db = calloc(1, sizeof(*db));
	int rc;

	*out = NULL;
	if (!db)
		return err_set(err, CD_ENOMEM, "out of memory");
	sigdb_init(&db->sigs);
	rc = sigdb_load_kb(&db->sigs, err);
	if (!rc && db->sigs.hash != xs_sig_hash)
		rc = err_set(err, CD_EINTERNAL, "signature database does not match its patterns");
	if (!rc)
		rc = apply_anchors(&db->sigs, err);
	if (!rc)
		rc = load_causes(db, err);
	if (!rc &&
	    hs_deserialize_database((const char *)xs_hsdb, xs_hsdb_len, &db->hs) != HS_SUCCESS)
		rc = err_set(err, CD_EINTERNAL, "cannot load the compiled signature database");
	if (rc) {
		xs_db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

void xs_db_close(struct xs_db *db)
{
	if (!db)
		return;
	if (db->hs)
		hs_free_database(db->hs);
	sigdb_free(&db->sigs);
	free(db);
}

static int by_name(const void *a, const void *b)
{
	const struct kb_file *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int sigdb_load_kb(struct sigdb *db, struct cd_err *err)
{
	/* the tables after the signatures, in the order tools/sigc.c reads them
	 * (the context patterns' ids follow it) */
	static const struct {
		const char *name;
		int (*parse)(struct sigdb *, const char *, const uint8_t *, size_t,
			     struct cd_err *);
	} tables[] = {
		{"explain_fallback.tsv", sigdb_parse_fallback},
		{"explain_facts.tsv", sigdb_parse_facts},
		{"gpu_models.tsv", sigdb_parse_models},
		{"explain_also.tsv", sigdb_parse_also},
	};
	const struct kb_file *files[256];
	const struct kb_file *f;
	size_t n = 0, i;
	int rc;

	for (f = kb_files; f->name && n < 256; f++)
		if (str_has_prefix(f->name, "signatures/") && str_has_suffix(f->name, ".txt"))
			files[n++] = f;
	qsort(files, n, sizeof(files[0]), by_name);
	for (i = 0; i < n; i++) {
		rc = sigdb_parse(db, files[i]->name, files[i]->data, files[i]->len, err);
		if (rc)
			return rc;
	}
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		f = kb_get(tables[i].name);
		if (!f)
			return err_set(err, CD_EINTERNAL, "%s is missing", tables[i].name);
		rc = tables[i].parse(db, f->name, f->data, f->len, err);
		if (rc)
			return rc;
	}
	return sigdb_finish(db, err);
}

const struct sigdb *xs_db_sigs(const struct xs_db *db)
{
	return &db->sigs;
}
