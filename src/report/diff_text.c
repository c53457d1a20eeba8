/* diff_text: see diff_render.h. Long host lists are cut in text (the JSON
 * lines have them whole); at most DIFF_TEXT_GROUPS groups and
 * DIFF_TEXT_VALUES minority values per key are listed. */
#include <string.h>

#include "core/err.h"
#include "report/color.h"
#include "report/diff_render.h"

#define DIFF_TEXT_GROUPS 20
#define DIFF_TEXT_VALUES 10
#define DIFF_TEXT_HOSTS	 160 /* characters of a host list */
#define VALUE_SHOW	 96

const char *diff_count(size_t n, char *buf, size_t cap)
{
	char raw[32];
	size_t len, i, o = 0;

	snprintf(raw, sizeof(raw), "%zu", n);
	len = strlen(raw);
	for (i = 0; i < len && o + 2 < cap; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

static void hosts(const struct cd_render *r, const struct diff *d, const size_t *g, size_t n)
{
	struct cd_buf b;

	buf_init(&b, 0);
	if (!diff_hosts(d, g, n, &b) && b.p) {
		if (b.len > DIFF_TEXT_HOSTS)
			fprintf(r->out, "  %.*s…", DIFF_TEXT_HOSTS, b.p);
		else
			fprintf(r->out, "  %s", b.p);
	}
	buf_free(&b);
}

static const char *nodes_word(size_t n)
{
	return n == 1 ? "node" : "nodes";
}

static void summary(const struct cd_render *r, const struct diff *d)
{
	char a[32], b[32];
	size_t maj = d->n_groups ? d->groups[d->order[0]].nodes : 0;

	fprintf(r->out, "%s%s %s", col(r, C_BOLD), diff_count(d->n_nodes, a, sizeof(a)),
		nodes_word(d->n_nodes));
	if (d->n_groups <= 1)
		fprintf(r->out, ", all identical%s\n", col(r, C_OFF));
	else
		fprintf(r->out, ": %s identical; %s in %zu group%s%s\n",
			diff_count(maj, a, sizeof(a)), diff_count(d->n_nodes - maj, b, sizeof(b)),
			d->n_groups - 1, d->n_groups == 2 ? "" : "s", col(r, C_OFF));
}

/* Each group but the majority, as the keys where it differs from the
 * majority of each key. */
static void groups(const struct cd_render *r, const struct diff *d)
{
	char n[32], show[VALUE_SHOW + 1], maj[VALUE_SHOW + 1];
	size_t i, k, v;

	if (d->n_groups < 2)
		return;
	fprintf(r->out, "\n%sGroups%s (each as its difference from the majority)\n", col(r, C_BOLD),
		col(r, C_OFF));
	for (i = 0; i < d->n_groups && i < DIFF_TEXT_GROUPS; i++) {
		size_t g = d->order[i];
		fprintf(r->out, "  %8s %-5s %.19s", diff_count(d->groups[g].nodes, n, sizeof(n)),
			nodes_word(d->groups[g].nodes), d->groups[g].fp);
		if (!i) { /* its host list is most of the fleet: --json has it */
			fprintf(r->out, "  (the largest group)\n");
			continue;
		}
		hosts(r, d, &g, 1);
		fputc('\n', r->out);
		for (k = 0; k < d->n_keys; k++) {
			const struct diff_key *key = &d->keys[k];
			for (v = 1; v < key->n_values; v++)
				if (diff_value_has(&key->values[v], g))
					break;
			if (v == key->n_values)
				continue;
			fprintf(r->out, "      %s%s%s: %.*s (majority %.*s)\n",
				key->must ? col(r, C_RED) : "", key->key,
				key->must ? col(r, C_OFF) : "", VALUE_SHOW,
				diff_show(key->values[v].value, show, sizeof(show)), VALUE_SHOW,
				diff_show(key->values[0].value, maj, sizeof(maj)));
		}
	}
	if (d->n_groups > DIFF_TEXT_GROUPS)
		fprintf(r->out, "  ... and %zu more groups (diff --json lists every one)\n",
			d->n_groups - DIFF_TEXT_GROUPS);
}

static void keys(const struct cd_render *r, const struct diff *d)
{
	char n[32], show[VALUE_SHOW + 1];
	size_t k, v;

	if (!d->n_keys)
		return;
	fprintf(r->out, "\n%sKeys that differ%s (most strays first)\n", col(r, C_BOLD),
		col(r, C_OFF));
	for (k = 0; k < d->n_keys; k++) {
		const struct diff_key *key = &d->keys[k];
		fprintf(r->out, "  %s%s%s%s%s%s\n", col(r, C_BOLD), key->key, col(r, C_OFF),
			col(r, C_RED), key->must ? "  [must match]" : "", col(r, C_OFF));
		for (v = 0; v < key->n_values && v <= DIFF_TEXT_VALUES; v++) {
			const struct diff_value *x = &key->values[v];
			fprintf(r->out, "    %-24.*s %8s %s", VALUE_SHOW,
				diff_show(x->value, show, sizeof(show)),
				diff_count(x->nodes, n, sizeof(n)), nodes_word(x->nodes));
			if (v)
				hosts(r, d, x->groups, x->n_groups);
			fputc('\n', r->out);
		}
		if (key->n_values > DIFF_TEXT_VALUES + 1)
			fprintf(r->out, "    ... and %zu more values\n",
				key->n_values - DIFF_TEXT_VALUES - 1);
	}
}

static void findings(const struct cd_render *r, const struct diff *d)
{
	char n[32];
	size_t i;

	if (!d->n_partial)
		return;
	fprintf(r->out, "\n%sFindings only some nodes have%s\n", col(r, C_BOLD), col(r, C_OFF));
	for (i = 0; i < d->n_partial; i++) {
		const struct diff_common *c = &d->partial[i];
		int err = !strcmp(c->f->severity, "error"),
		    warn = !strcmp(c->f->severity, "warning");
		fprintf(r->out, "  %s%s%s %s (%s) %s %s",
			col(r, err    ? C_RED
			       : warn ? C_YEL
				      : C_DIM),
			err    ? "✗"
			: warn ? "!"
			       : "-",
			col(r, C_OFF), c->f->id, c->f->severity, diff_count(c->nodes, n, sizeof(n)),
			nodes_word(c->nodes));
		hosts(r, d, c->groups, c->n_groups);
		fputc('\n', r->out);
	}
}

static void problems(const struct cd_render *r, const struct diff *d)
{
	size_t i;

	if (d->n_duplicates)
		fprintf(r->out,
			"\n%s!%s %zu report%s repeat a host name (%s first): counted apart as "
			"NAME#2, NAME#3, ...\n",
			col(r, C_YEL), col(r, C_OFF), d->n_duplicates,
			d->n_duplicates == 1 ? "" : "s", d->dup_example);
	if (d->n_mismatch)
		fprintf(r->out,
			"\n%s!%s %zu report%s whose fingerprint does not match its content "
			"(edited, "
			"or written by another cuda-doctor): grouped by content\n",
			col(r, C_YEL), col(r, C_OFF), d->n_mismatch, d->n_mismatch == 1 ? "" : "s");
	if (!d->n_bad)
		return;
	fprintf(r->out, "\n%sUnreadable%s (%zu, not counted as nodes)\n", col(r, C_RED),
		col(r, C_OFF), d->n_bad);
	for (i = 0; i < d->n_bad; i++)
		fprintf(r->out, "  %s: %s\n", d->bad[i].source, d->bad[i].msg);
}

int diff_text(const struct cd_render *r, const struct diff *d)
{
	size_t k;

	summary(r, d);
	groups(r, d);
	keys(r, d);
	findings(r, d);
	problems(r, d);
	if (d->n_must_differ) {
		fprintf(r->out, "\n%sdiff: keys that must match differ:%s", col(r, C_RED),
			col(r, C_OFF));
		for (k = 0; k < d->n_keys; k++)
			if (d->keys[k].must)
				fprintf(r->out, " %s", d->keys[k].key);
		fputc('\n', r->out);
	}
	return ferror(r->out) ? CD_EIO : 0;
}
