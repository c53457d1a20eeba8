/* diff_json: the JSON lines of diff (docs/diff.md): a summary, then each
 * group, key, finding that only some nodes have, duplicate host name and
 * unreadable input, one compact object per line with its "type". */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "report/diff_render.h"

static int line(FILE *out, json_t *o)
{
	int rc = o && !json_dumpf(o, out, JSON_COMPACT) ? 0 : CD_ENOMEM;

	json_decref(o);
	if (!rc)
		fputc('\n', out);
	return rc;
}

static json_t *hosts(const struct diff *d, const size_t *g, size_t n)
{
	struct cd_buf b;
	json_t *j;

	buf_init(&b, (size_t)256 << 20);
	j = diff_hosts(d, g, n, &b) ? NULL : json_string(b.p ? b.p : "");
	buf_free(&b);
	return j;
}

/* A stored value back as JSON; absent is null with "absent": true beside it. */
static json_t *value(const char *v)
{
	return v ? json_loads(v, JSON_DECODE_ANY, NULL) : json_null();
}

static json_t *j_value(const struct diff *d, const struct diff_value *x, int with_hosts)
{
	json_t *o = json_pack("{s:o, s:b, s:I}", "value", value(x->value), "absent", !x->value,
			      "nodes", (json_int_t)x->nodes);

	if (o && with_hosts)
		json_object_set_new(o, "hosts", hosts(d, x->groups, x->n_groups));
	return o;
}

static int summary(FILE *out, const struct diff *d)
{
	json_t *must = json_array();
	size_t k;

	for (k = 0; k < d->n_keys; k++)
		if (d->keys[k].must)
			json_array_append_new(must, json_string(d->keys[k].key));
	return line(out,
		    json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "type", "summary",
			      "schema", DIFF_SCHEMA, "nodes", (json_int_t)d->n_nodes, "groups",
			      (json_int_t)d->n_groups, "majority",
			      (json_int_t)(d->n_groups ? d->groups[d->order[0]].nodes : 0),
			      "unreadable", (json_int_t)d->n_bad, "duplicate_hosts",
			      (json_int_t)d->n_duplicates, "fingerprint_mismatches",
			      (json_int_t)d->n_mismatch, "must_match_differ", must));
}

static int group(FILE *out, const struct diff *d, size_t rank)
{
	size_t g = d->order[rank], k, v;
	json_t *diffs = json_object();

	for (k = 0; k < d->n_keys && rank; k++)
		for (v = 1; v < d->keys[k].n_values; v++)
			if (diff_value_has(&d->keys[k].values[v], g))
				json_object_set_new(diffs, d->keys[k].key,
						    value(d->keys[k].values[v].value));
	return line(out, json_pack("{s:s, s:I, s:s, s:I, s:b, s:o, s:o}", "type", "group", "rank",
				   (json_int_t)rank + 1, "fingerprint", d->groups[g].fp, "nodes",
				   (json_int_t)d->groups[g].nodes, "majority", rank == 0, "hosts",
				   hosts(d, &g, 1), "differences", diffs));
}

static int key(FILE *out, const struct diff *d, const struct diff_key *k)
{
	json_t *vals = json_array();
	size_t v;

	for (v = 1; v < k->n_values; v++)
		json_array_append_new(vals, j_value(d, &k->values[v], 1));
	return line(out, json_pack("{s:s, s:s, s:b, s:I, s:o, s:o}", "type", "key", "key", k->key,
				   "must_match", k->must, "strays", (json_int_t)k->strays,
				   "majority", j_value(d, &k->values[0], 0), "minority", vals));
}

int diff_jsonl(FILE *out, const struct diff *d)
{
	size_t i;
	int rc = summary(out, d);

	for (i = 0; !rc && i < d->n_groups; i++)
		rc = group(out, d, i);
	for (i = 0; !rc && i < d->n_keys; i++)
		rc = key(out, d, &d->keys[i]);
	for (i = 0; !rc && i < d->n_partial; i++) {
		const struct diff_common *c = &d->partial[i];
		rc = line(out,
			  json_pack("{s:s, s:s, s:s, s:I, s:o}", "type", "finding", "id", c->f->id,
				    "severity", c->f->severity, "nodes", (json_int_t)c->nodes,
				    "hosts", hosts(d, c->groups, c->n_groups)));
	}
	for (i = 0; !rc && i < d->n_bad; i++)
		rc = line(out, json_pack("{s:s, s:s, s:s}", "type", "unreadable", "source",
					 d->bad[i].source, "error", d->bad[i].msg));
	for (i = 0; !rc && i < d->n_nodes; i++)
		if (d->nodes[i].dup)
			rc = line(out, json_pack("{s:s, s:s, s:s}", "type", "duplicate", "host",
						 d->nodes[i].host, "source", d->nodes[i].source));
	if (!rc && ferror(out))
		rc = CD_EIO;
	return rc;
}
