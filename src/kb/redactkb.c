/* redactkb: see redactkb.h. */
#include "kb/redactkb.h"

#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "kb/kb.h"

static int row_def(const struct kb_tsv *t, struct rd_def *d, struct cd_err *err)
{
	const char *g = kb_tsv_get(t, "group");

	memset(d, 0, sizeof(*d));
	d->name = kb_tsv_get(t, "name");
	d->kind = kb_tsv_get(t, "kind");
	d->flags = kb_tsv_get(t, "flags");
	d->keywords = kb_tsv_get(t, "keywords");
	d->pattern = kb_tsv_get(t, "pattern");
	d->end = kb_tsv_get(t, "end");
	d->replacement = kb_tsv_get(t, "replacement");
	d->allow = kb_tsv_get(t, "allow");
	d->allow_context = kb_tsv_get(t, "allow_context");
	if (!d->name || !d->kind || !d->pattern || !d->replacement || !g ||
	    !kb_tsv_get(t, "source") || !*kb_tsv_get(t, "source"))
		return err_set(err, CD_EFORMAT, "%s:%zu: a column or the source is missing",
			       REDACTKB_FILE, t->lineno);
	if (*g && str_to_int(g, 0, 9, &d->group))
		return err_set(err, CD_EFORMAT, "%s:%zu: group '%s'", REDACTKB_FILE, t->lineno, g);
	return 0;
}

int redactkb_load_only(struct rd_set **out, const char *only, struct cd_err *err)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	struct rd_set *s = NULL;
	struct rd_def d;
	char msg[CD_ERR_MSG_MAX];
	int rc, rows = 0;

	*out = NULL;
	if (!t || rd_set_new(&s)) {
		rc = err_set(err, CD_ENOMEM, "redaction rules: out of memory");
		goto out;
	}
	rc = kb_tsv_open(t, REDACTKB_FILE);
	if (rc) {
		rc = err_set(err, rc, "%s is not embedded", REDACTKB_FILE);
		goto out;
	}
	while (kb_tsv_next(t)) {
		if ((rc = row_def(t, &d, err)))
			goto out;
		if (only && strcmp(d.name, only))
			continue;
		if ((rc = rd_set_add(s, &d, err))) {
			str_copy(msg, sizeof(msg), err ? err->msg : "");
			rc = err_set(err, rc, "%s:%zu: %s", REDACTKB_FILE, t->lineno, msg);
			goto out;
		}
		rows++;
	}
	if (!rows)
		rc = err_set(err, CD_ENOENT, "%s: no rule %s", REDACTKB_FILE, only ? only : "");
out:
	free(t);
	if (rc)
		rd_set_free(s);
	else
		*out = s;
	return rc;
}

int redactkb_load(struct rd_set **out, struct cd_err *err)
{
	return redactkb_load_only(out, NULL, err);
}
