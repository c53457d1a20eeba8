/* diff_rank: see diff.h (diff_finish): groups by size, keys that differ by
 * strays, findings only some nodes have. */
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/vec.h"
#include "report/diff.h"
#include "report/diff_int.h"

/* ---- ranking ---------------------------------------------------------------- */

static const struct {
	const char *alias;
	const char *pattern;
} aliases[] = {
	{"driver", "driver.version"},
	{"cuda", "driver.cuda_version"},
	{"cuda-runtime", "torch.cuda_runtime_version"},
	{"torch", "torch.version"},
	{"torch-cuda", "torch.cuda"},
	{"cudnn", "torch.cudnn_version"},
	{"nccl", "torch.nccl_version"},
	{"nccl-env", "env.variables.NCCL_*"},
};

static int must_match(const char *key, const char *const *must, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const char *p = must[i];
		for (k = 0; k < sizeof(aliases) / sizeof(aliases[0]); k++)
			if (!strcmp(p, aliases[k].alias))
				p = aliases[k].pattern;
		if (!fnmatch(p, key, 0))
			return 1;
	}
	return 0;
}

static const char *value_in(const struct diff_group *g, const char *key)
{
	struct diff_pair probe = {key, NULL};
	const struct diff_pair *p =
		bsearch(&probe, g->pairs, g->n_pairs, sizeof(*p), diff_cmp_pair);

	return p ? p->value : NULL;
}

static const struct diff *sort_ctx; /* qsort has no context argument */

static int cmp_group(const void *a, const void *b)
{
	const struct diff_group *x = &sort_ctx->groups[*(const size_t *)a];
	const struct diff_group *y = &sort_ctx->groups[*(const size_t *)b];

	if (x->nodes != y->nodes)
		return x->nodes > y->nodes ? -1 : 1;
	return strcmp(x->fp, y->fp);
}

static int cmp_value(const void *a, const void *b)
{
	const struct diff_value *x = a, *y = b;

	if (x->nodes != y->nodes)
		return x->nodes > y->nodes ? -1 : 1;
	if (!x->value || !y->value)
		return !x->value ? 1 : -1;
	return strcmp(x->value, y->value);
}

static int cmp_key(const void *a, const void *b)
{
	const struct diff_key *x = a, *y = b;

	if (x->strays != y->strays)
		return x->strays > y->strays ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Scratch of tally, sized for every group once: the value of each ranked
 * group and a pointer -> value map, so a key costs O(groups). */
struct tally_scratch {
	struct diff_value *v; /* distinct values, first seen first */
	size_t *vi;	      /* per ranked group: its value's index */
	const char **mkey;    /* map: value pointer (NULL stands for absent) */
	size_t *mval;
	size_t cap; /* map slots, a power of two over twice the groups */
};

static const char absent_mark[] = "";

static size_t map_index(struct tally_scratch *t, const char *val, size_t *n)
{
	const char *k = val ? val : absent_mark;
	size_t h = (size_t)(((uintptr_t)k >> 3) * 0x9E3779B97F4A7C15ULL) & (t->cap - 1);

	while (t->mkey[h] && t->mkey[h] != k)
		h = (h + 1) & (t->cap - 1);
	if (!t->mkey[h]) {
		t->mkey[h] = k;
		t->mval[h] = *n;
		memset(&t->v[*n], 0, sizeof(t->v[*n]));
		t->v[(*n)++].value = val;
	}
	return t->mval[h];
}

/* Tally key over the groups in rank order; 1 when it has two values or more
 * (then kept, in the arena), 0 when every node agrees. */
static int tally(struct diff *d, struct tally_scratch *t, const char *key, struct diff_key *k)
{
	size_t i, n = 0;

	memset(t->mkey, 0, t->cap * sizeof(*t->mkey));
	for (i = 0; i < d->n_groups; i++) {
		size_t g = d->order[i], v = map_index(t, value_in(&d->groups[g], key), &n);
		t->vi[i] = v;
		t->v[v].nodes += d->groups[g].nodes;
		t->v[v].n_groups++;
	}
	if (n < 2)
		return 0;
	k->key = key;
	k->values = arena_calloc(&d->arena, n, sizeof(*k->values));
	if (!k->values)
		return CD_ENOMEM;
	for (i = 0; i < n; i++) {
		k->values[i] = t->v[i];
		k->values[i].groups = arena_calloc(&d->arena, t->v[i].n_groups, sizeof(size_t));
		if (!k->values[i].groups)
			return CD_ENOMEM;
		k->values[i].n_groups = 0;
	}
	for (i = 0; i < d->n_groups; i++) {
		struct diff_value *v = &k->values[t->vi[i]];
		v->groups[v->n_groups++] = d->order[i];
	}
	k->n_values = n;
	qsort(k->values, n, sizeof(*k->values), cmp_value);
	k->strays = d->n_nodes - k->values[0].nodes;
	return 1;
}

static int scratch_init(struct tally_scratch *t, size_t groups)
{
	memset(t, 0, sizeof(*t));
	for (t->cap = 16; t->cap < groups * 2; t->cap *= 2)
		;
	t->v = calloc(groups ? groups : 1, sizeof(*t->v));
	t->vi = calloc(groups ? groups : 1, sizeof(*t->vi));
	t->mkey = calloc(t->cap, sizeof(*t->mkey));
	t->mval = calloc(t->cap, sizeof(*t->mval));
	return t->v && t->vi && t->mkey && t->mval ? 0 : CD_ENOMEM;
}

static void scratch_free(struct tally_scratch *t)
{
	free(t->v);
	free(t->vi);
	free(t->mkey);
	free(t->mval);
}

/* Every key some group has, once (interned: pointers compare). */
static int key_union(struct diff *d, const char ***out, size_t *n)
{
	struct diff_set seen = {0};
	size_t i, k, cap = 0;
	const char **keys = NULL;
	int rc = 0;

	*n = 0;
	for (i = 0; i < d->n_groups && !rc; i++)
		for (k = 0; k < d->groups[i].n_pairs && !rc; k++) {
			struct diff_slot *s = diff_set_slot(&seen, d->groups[i].pairs[k].key);
			const char **grown =
				s ? vec_grow(NULL, keys, &cap, *n, sizeof(*keys), DIFF_VEC_FIRST, 0)
				  : NULL;
			if (!grown) {
				rc = CD_ENOMEM;
				continue;
			}
			keys = grown;
			if (!s->s) {
				s->s = d->groups[i].pairs[k].key;
				seen.n++;
				keys[(*n)++] = s->s;
			}
		}
	free(seen.slots);
	*out = keys;
	return rc;
}

static int rank_keys(struct diff *d, const char *const *must, size_t n_must)
{
	struct tally_scratch t = {0};
	const char **keys;
	size_t n, i;
	int rc = key_union(d, &keys, &n);

	if (!rc)
		rc = scratch_init(&t, d->n_groups);
	if (!rc)
		d->keys = arena_calloc(&d->arena, n ? n : 1, sizeof(*d->keys));
	for (i = 0; !rc && d->keys && i < n; i++) {
		struct diff_key *k = &d->keys[d->n_keys];
		memset(k, 0, sizeof(*k));
		rc = tally(d, &t, keys[i], k);
		if (rc == 1) {
			k->must = must_match(k->key, must, n_must);
			d->n_must_differ += (size_t)k->must;
			d->n_keys++;
			rc = 0;
		}
	}
	free(keys);
	scratch_free(&t);
	if (!rc && !d->keys)
		rc = CD_ENOMEM;
	if (!rc)
		qsort(d->keys, d->n_keys, sizeof(*d->keys), cmp_key);
	return rc;
}

/* Findings by (id, severity) over the groups; those not on every node. */
static int rank_findings(struct diff *d)
{
	size_t i, k, j, cap = 0;

	for (i = 0; i < d->n_groups; i++)
		cap += d->groups[i].n_findings;
	d->partial = arena_calloc(&d->arena, cap ? cap : 1, sizeof(*d->partial));
	if (!d->partial)
		return CD_ENOMEM;
	for (i = 0; i < d->n_groups; i++) {
		const struct diff_group *g = &d->groups[d->order[i]];
		for (k = 0; k < g->n_findings; k++) {
			const struct diff_finding *f = &g->findings[k];
			struct diff_common *c;
			for (j = 0; j < d->n_partial; j++)
				if (d->partial[j].f->id == f->id &&
				    d->partial[j].f->severity == f->severity)
					break;
			c = &d->partial[j];
			if (j == d->n_partial) {
				c->f = f;
				c->groups = arena_calloc(&d->arena, d->n_groups, sizeof(size_t));
				if (!c->groups)
					return CD_ENOMEM;
				d->n_partial++;
			}
			c->nodes += g->nodes;
			c->groups[c->n_groups++] = d->order[i];
		}
	}
	for (i = j = 0; i < d->n_partial; i++)
		if (d->partial[i].nodes < d->n_nodes)
			d->partial[j++] = d->partial[i];
	d->n_partial = j;
	return 0;
}

static int sev_rank(const char *s)
{
	return !strcmp(s, "error") ? 0 : !strcmp(s, "warning") ? 1 : 2;
}

/* Errors first, then the findings on the most nodes. */
static int cmp_common(const void *a, const void *b)
{
	const struct diff_common *x = a, *y = b;
	int sx = sev_rank(x->f->severity), sy = sev_rank(y->f->severity);

	if (sx != sy)
		return sx < sy ? -1 : 1;
	if (x->nodes != y->nodes)
		return x->nodes > y->nodes ? -1 : 1;
	return strcmp(x->f->id, y->f->id);
}

/* Each group's nodes, in input order. */
static int members(struct diff *d)
{
	size_t i;

	for (i = 0; i < d->n_groups; i++) {
		d->groups[i].members =
			malloc((d->groups[i].nodes ? d->groups[i].nodes : 1) * sizeof(size_t));
		if (!d->groups[i].members)
			return CD_ENOMEM;
		d->groups[i].n_members = 0;
	}
	for (i = 0; i < d->n_nodes; i++) {
		struct diff_group *g = &d->groups[d->nodes[i].group];
		g->members[g->n_members++] = i;
	}
	return 0;
}

int diff_finish(struct diff *d, const char *const *must, size_t n_must)
{
	size_t i;
	int rc;

	d->order = malloc((d->n_groups ? d->n_groups : 1) * sizeof(*d->order));
	if (!d->order)
		return CD_ENOMEM;
	for (i = 0; i < d->n_groups; i++)
		d->order[i] = i;
	sort_ctx = d;
	qsort(d->order, d->n_groups, sizeof(*d->order), cmp_group);
	rc = members(d);
	if (!rc)
		rc = rank_keys(d, must, n_must);
	if (!rc)
		rc = rank_findings(d);
	if (!rc)
		qsort(d->partial, d->n_partial, sizeof(*d->partial), cmp_common);
	return rc;
}
