/* diff: see diff.h. Strings are interned, so two leaves share a key or a
 * value exactly when their pointers are equal; the tables are open
 * addressing over FNV-1a, doubled at half full. */
#include "report/diff.h"
#include "report/diff_int.h"

#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "core/vec.h"
#include "report/hostlist.h"

static uint64_t hash_of(const char *s)
{
	return str_fnv1a(STR_FNV_SEED, s, strlen(s));
}

static int set_grow(struct diff_set *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	struct diff_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return CD_ENOMEM;
	for (i = 0; i < t->cap; i++) {
		size_t k;
		if (!t->slots[i].s)
			continue;
		for (k = t->slots[i].hash & (cap - 1); s[k].s; k = (k + 1) & (cap - 1))
			;
		s[k] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->cap = cap;
	return 0;
}

/* The slot of s: found (->s set) or where it would go. NULL without memory. */
struct diff_slot *diff_set_slot(struct diff_set *t, const char *s)
{
	uint64_t h = hash_of(s);
	size_t k;

	if ((t->n + 1) * 2 > t->cap && set_grow(t))
		return NULL;
	for (k = h & (t->cap - 1); t->slots[k].s; k = (k + 1) & (t->cap - 1))
		if (t->slots[k].hash == h && !strcmp(t->slots[k].s, s))
			return &t->slots[k];
	t->slots[k].hash = h;
	return &t->slots[k];
}

const struct diff_slot *diff_set_find(const struct diff_set *t, const char *s)
{
	uint64_t h = hash_of(s);
	size_t k;

	if (!t->cap)
		return NULL;
	for (k = h & (t->cap - 1); t->slots[k].s; k = (k + 1) & (t->cap - 1))
		if (t->slots[k].hash == h && !strcmp(t->slots[k].s, s))
			return &t->slots[k];
	return NULL;
}

static const char *intern(struct diff *d, const char *s)
{
	struct diff_slot *slot = diff_set_slot(d->strings, s);

	if (!slot)
		return NULL;
	if (!slot->s) {
		slot->s = arena_strdup(&d->arena, s);
		if (!slot->s)
			return NULL;
		d->strings->n++;
	}
	return slot->s;
}

static void set_free(struct diff_set *t)
{
	if (t)
		free(t->slots);
	free(t);
}

void diff_init(struct diff *d)
{
	memset(d, 0, sizeof(*d));
	arena_init(&d->arena);
	d->arena.max_total = (size_t)4 << 30; /* bounded by distinct values; 4 GiB is a bug */
	d->strings = calloc(1, sizeof(*d->strings));
	d->hosts = calloc(1, sizeof(*d->hosts));
	d->fps = calloc(1, sizeof(*d->fps));
}

void diff_free(struct diff *d)
{
	size_t i;

	for (i = 0; i < d->n_groups; i++)
		free(d->groups[i].members);
	free(d->nodes);
	free(d->groups);
	free(d->bad);
	free(d->order);
	set_free(d->strings);
	set_free(d->hosts);
	set_free(d->fps);
	arena_free(&d->arena);
}

int diff_add_bad(struct diff *d, const char *source, const char *msg)
{
	struct diff_bad *grown =
		vec_grow(NULL, d->bad, &d->cap_bad, d->n_bad, sizeof(*grown), DIFF_VEC_FIRST, 0);

	if (!grown)
		return CD_ENOMEM;
	d->bad = grown;
	d->bad[d->n_bad].source = arena_strdup(&d->arena, source);
	d->bad[d->n_bad].msg = arena_strdup(&d->arena, msg);
	d->n_bad++;
	return 0;
}

/* The node's name: the report's host name, else the file's, "name#2" for
 * the second report that gives one already seen. */
static const char *host_name(struct diff *d, const char *host, const char *source, int *dup)
{
	const char *base = strrchr(source, '/');
	struct diff_slot *slot;
	char buf[512];

	if (!host || !*host) {
		base = base ? base + 1 : source;
		str_copy(buf, sizeof(buf), base);
		if (str_has_suffix(buf, ".json"))
			buf[strlen(buf) - 5] = '\0';
		host = buf;
	}
	slot = diff_set_slot(d->hosts, host);
	if (!slot)
		return NULL;
	if (!slot->s) {
		slot->s = arena_strdup(&d->arena, host);
		d->hosts->n++;
		return slot->s;
	}
	slot->value++;
	*dup = 1;
	d->n_duplicates++;
	if (!d->dup_example)
		d->dup_example = slot->s;
	return arena_printf(&d->arena, "%s#%zu", slot->s, slot->value + 1);
}

static int add_node(struct diff *d, const char *host, const char *source, size_t group)
{
	struct diff_node *n =
		vec_grow(NULL, d->nodes, &d->cap_nodes, d->n_nodes, sizeof(*n), DIFF_VEC_FIRST, 0);

	if (!n)
		return CD_ENOMEM;
	d->nodes = n;
	n = &d->nodes[d->n_nodes];
	n->dup = 0;
	n->host = host_name(d, host, source, &n->dup);
	n->source = arena_strdup(&d->arena, source);
	n->group = group;
	if (!n->host || !n->source)
		return CD_ENOMEM;
	d->n_nodes++;
	d->groups[group].nodes++;
	return 0;
}

const struct diff_group *diff_group_of(const struct diff *d, const char *fp)
{
	const struct diff_slot *s = diff_set_find(d->fps, fp);

	return s ? &d->groups[s->value] : NULL;
}

int diff_add_known(struct diff *d, const struct fleetrep_head *h, const char *source)
{
	const struct diff_slot *s;

	if (!h->has_fingerprint || !h->complete)
		return 0;
	s = diff_set_find(d->fps, h->fingerprint);
	if (!s)
		return 0;
	return add_node(d, h->has_hostname ? h->hostname : NULL, source, s->value) ? CD_ENOMEM : 1;
}

struct collect {
	struct diff *d;
	struct diff_pair *v;
	size_t n, cap;
	int rc;
};

static int collect_leaf(void *ctx, const char *key, const json_t *value)
{
	struct collect *c = ctx;
	char *text = json_dumps(value, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	struct diff_pair *p =
		text ? vec_grow(NULL, c->v, &c->cap, c->n, sizeof(*p), DIFF_VEC_FIRST, 0) : NULL;

	if (!p) {
		free(text);
		return CD_ENOMEM;
	}
	c->v = p;
	p = &c->v[c->n];
	p->key = intern(c->d, key);
	p->value = intern(c->d, text);
	free(text);
	if (!p->key || !p->value)
		return CD_ENOMEM;
	c->n++;
	return 0;
}

int diff_cmp_pair(const void *a, const void *b)
{
	return strcmp(((const struct diff_pair *)a)->key, ((const struct diff_pair *)b)->key);
}

static int cmp_finding(const void *a, const void *b)
{
	const struct diff_finding *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c ? c : strcmp(x->severity, y->severity);
}

/* The distinct (id, severity) of the report's findings, sorted. */
static int group_findings(struct diff *d, struct diff_group *g, const json_t *report)
{
	const json_t *a = json_object_get(report, "findings"), *x;
	size_t i, k, n = json_is_array(a) ? json_array_size(a) : 0;

	g->findings = arena_calloc(&d->arena, n ? n : 1, sizeof(*g->findings));
	if (!g->findings)
		return CD_ENOMEM;
	json_array_foreach(a, i, x)
	{
		const char *id = json_string_value(json_object_get(x, "id"));
		const char *sev = json_string_value(json_object_get(x, "severity"));
		struct diff_finding f = {intern(d, id ? id : "?"), intern(d, sev ? sev : "?")};
		if (!f.id || !f.severity)
			return CD_ENOMEM;
		for (k = 0; k < g->n_findings; k++)
			if (g->findings[k].id == f.id && g->findings[k].severity == f.severity)
				break;
		if (k == g->n_findings)
			g->findings[g->n_findings++] = f;
	}
	qsort(g->findings, g->n_findings, sizeof(*g->findings), cmp_finding);
	return 0;
}

static int new_group(struct diff *d, const json_t *report, const char *fp, size_t *out)
{
	struct collect c = {d, NULL, 0, 0, 0};
	struct fleet_walk w = {collect_leaf, &c};
	struct diff_group *g;
	struct diff_slot *slot;
	int rc;

	g = vec_grow(NULL, d->groups, &d->cap_groups, d->n_groups, sizeof(*g), DIFF_VEC_FIRST, 0);
	if (!g)
		return CD_ENOMEM;
	d->groups = g;
	g = &d->groups[d->n_groups];
	memset(g, 0, sizeof(*g));
	str_copy(g->fp, sizeof(g->fp), fp);
	rc = fleet_leaves(report, &w);
	if (!rc) {
		if (c.n) /* no leaves: c.v is NULL */
			qsort(c.v, c.n, sizeof(*c.v), diff_cmp_pair);
		g->pairs = arena_calloc(&d->arena, c.n ? c.n : 1, sizeof(*g->pairs));
		rc = g->pairs ? 0 : CD_ENOMEM;
	}
	if (!rc) {
		if (c.n)
			memcpy(g->pairs, c.v, c.n * sizeof(*c.v));
		g->n_pairs = c.n;
		rc = group_findings(d, g, report);
	}
	free(c.v);
	slot = rc ? NULL : diff_set_slot(d->fps, fp);
	if (!slot)
		return CD_ENOMEM;
	slot->s = arena_strdup(&d->arena, fp);
	slot->value = d->n_groups;
	d->fps->n++;
	*out = d->n_groups++;
	return slot->s ? 0 : CD_ENOMEM;
}

int diff_add_report(struct diff *d, json_t *report, const char *source)
{
	const json_t *fleet = json_object_get(report, "fleet");
	const char *claim = json_string_value(json_object_get(fleet, "fingerprint"));
	const char *host = json_string_value(json_object_get(fleet, "hostname"));
	const struct diff_slot *s;
	char fp[FLEET_FP_MAX];
	size_t g;
	int rc;

	if (!host)
		host = json_string_value(
			json_object_get(json_object_get(report, "host"), "hostname"));
	if (fleet_fingerprint(report, fp))
		return CD_ENOMEM;
	if (claim && strcmp(claim, fp))
		d->n_mismatch++; /* edited, or another build's rules: grouped by content */
	d->n_parsed++;
	s = diff_set_find(d->fps, fp);
	if (s)
		g = s->value;
	else if ((rc = new_group(d, report, fp, &g)))
		return rc;
	return add_node(d, host, source, g);
}

int diff_hosts(const struct diff *d, const size_t *g, size_t n, struct cd_buf *out)
{
	const char **names;
	size_t i, k, total = 0, m = 0;
	int rc;

	for (i = 0; i < n; i++)
		total += d->groups[g[i]].n_members;
	names = malloc((total ? total : 1) * sizeof(*names));
	if (!names)
		return CD_ENOMEM;
	for (i = 0; i < n; i++)
		for (k = 0; k < d->groups[g[i]].n_members; k++)
			names[m++] = d->nodes[d->groups[g[i]].members[k]].host;
	rc = hostlist_fold(names, m, out);
	free(names);
	return rc;
}

const char *diff_show(const char *value, char *buf, size_t cap)
{
	json_t *j;

	if (!value)
		return "(absent)";
	if (value[0] != '"')
		return value;
	j = json_loads(value, JSON_DECODE_ANY, NULL);
	str_copy(buf, cap, j && json_is_string(j) ? json_string_value(j) : value);
	json_decref(j);
	return buf;
}

int diff_value_has(const struct diff_value *v, size_t g)
{
	size_t i;

	for (i = 0; i < v->n_groups; i++)
		if (v->groups[i] == g)
			return 1;
	return 0;
}
