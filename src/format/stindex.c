/* stindex: see stindex.h. The index of a 1,000,000-shard claim used to be a
 * jansson tree (361 MB); here a tensor costs 16 bytes and two slots of a
 * hash table, its name stays in the caller's bytes, and the read stops at
 * the first shard past the cap. Keys and values are compared unescaped, as
 * jansson compares them; \u0000 is refused as jansson refuses it. */
#include "format/stindex.h"

#include <stdlib.h>
#include <string.h>

#include "core/vec.h"
#include "format/jscan.h"

struct ctx {
	struct jscan j;
	struct cd_arena *a;
	struct stindex *x;
	struct cd_err *err;
};

/* FNV-1a, 64 bits. */
static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	while (n--) {
		h ^= (uint8_t)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

static void key_at(const struct stindex *x, int shards, uint32_t i, const char **s, size_t *len)
{
	*s = shards ? x->shards[i].name : x->tensors[i].name;
	*len = shards ? x->shards[i].len : x->tensors[i].len;
}

/* The slot of (s, len) in a table of cap slots: its entry's (*hit 1) or the
 * empty one where it would go. */
static size_t slot_of(const struct stindex *x, int shards, const uint32_t *t, size_t cap,
		      const char *s, size_t len, int *hit)
{
	size_t i = (size_t)hash(s, len) & (cap - 1), kl;
	const char *k;

	for (*hit = 0; t[i]; i = (i + 1) & (cap - 1)) {
		key_at(x, shards, t[i] - 1, &k, &kl);
		if (kl == len && !memcmp(k, s, len)) {
			*hit = 1;
			break;
		}
	}
	return i;
}

/* Room for one more entry at a load of at most one half. */
static int grow_slots(struct stindex *x, int shards, struct cd_err *err)
{
	size_t n = shards ? x->n_shards : x->n_tensors, cap = shards ? x->scap : x->tcap, ncap, k;
	uint32_t *t, i;
	const char *s;
	size_t len;
	int hit;

	if ((n + 1) * 2 <= cap)
		return 0;
	ncap = cap ? cap * 2 : 1024;
	t = calloc(ncap, sizeof(*t));
	if (!t)
		return err_set(err, CD_ENOMEM, "out of memory for an index of %zu names", n + 1);
	for (i = 0; i < n; i++) {
		key_at(x, shards, i, &s, &len);
		k = slot_of(x, shards, t, ncap, s, len, &hit);
		t[k] = i + 1;
	}
	free(shards ? x->sslot : x->tslot);
	*(shards ? &x->sslot : &x->tslot) = t;
	*(shards ? &x->scap : &x->tcap) = ncap;
	return 0;
}

/* A string, by reference where it has no escape; \u0000 is refused. */
static int read_str(struct ctx *c, const char **s, size_t *len)
{
	int rc = jscan_string_ref(&c->j, c->a, s, len);

	if (!rc && memchr(*s, '\0', *len))
		return err_set(c->err, CD_EFORMAT, "JSON: \\u0000 in a string before byte %zu",
			       c->j.pos);
	return rc;
}

static int shard_id(struct ctx *c, const char *s, size_t len, uint32_t *id)
{
	struct stindex *x = c->x;
	struct stindex_shard *g;
	size_t k;
	int hit, rc;

	k = x->scap ? slot_of(x, 1, x->sslot, x->scap, s, len, &hit) : 0;
	if (x->scap && hit) {
		*id = x->sslot[k] - 1;
		return 0;
	}
	if (x->n_shards == STINDEX_SHARDS_MAX) {
		x->over_cap = 1;
		return err_set(c->err, CD_ERANGE, "more than %u shard files", STINDEX_SHARDS_MAX);
	}
	g = vec_grow(NULL, x->shards, &x->cap_shards, x->n_shards, sizeof(*g), 64,
		     STINDEX_SHARDS_MAX);
	if (!g)
		return err_set(c->err, CD_ENOMEM, "out of memory for shard names");
	x->shards = g;
	if ((rc = grow_slots(x, 1, c->err)))
		return rc;
	g = &x->shards[x->n_shards];
	g->name = arena_strndup(c->a, s, len);
	if (!g->name)
		return err_set(c->err, CD_ENOMEM, "out of memory for shard names");
	g->len = (uint32_t)len;
	g->n_tensors = 0;
	*id = (uint32_t)x->n_shards;
	x->sslot[slot_of(x, 1, x->sslot, x->scap, s, len, &hit)] = (uint32_t)++x->n_shards;
	return 0;
}

/* tensor -> shard; a tensor named again keeps its place and takes the new
 * value. */
static int tensor_set(struct ctx *c, const char *s, size_t len, uint32_t shard)
{
	struct stindex *x = c->x;
	struct stindex_tensor *t;
	size_t k;
	int hit, rc;

	k = x->tcap ? slot_of(x, 0, x->tslot, x->tcap, s, len, &hit) : 0;
	if (x->tcap && hit) {
		t = &x->tensors[x->tslot[k] - 1];
		if (t->shard != STINDEX_NONE)
			x->shards[t->shard].n_tensors--;
	} else {
		if (x->n_tensors == STINDEX_TENSORS_MAX) {
			x->over_cap = 2;
			return err_set(c->err, CD_ERANGE, "more than %u tensors",
				       STINDEX_TENSORS_MAX);
		}
		t = vec_grow(NULL, x->tensors, &x->cap_tensors, x->n_tensors, sizeof(*t), 1024,
			     STINDEX_TENSORS_MAX);
		if (!t)
			return err_set(c->err, CD_ENOMEM, "out of memory for tensor names");
		x->tensors = t;
		if ((rc = grow_slots(x, 0, c->err)))
			return rc;
		t = &x->tensors[x->n_tensors];
		t->name = s;
		t->len = (uint32_t)len;
		x->tslot[slot_of(x, 0, x->tslot, x->tcap, s, len, &hit)] = (uint32_t)++x->n_tensors;
	}
	t->shard = shard;
	if (shard != STINDEX_NONE)
		x->shards[shard].n_tensors++;
	return 0;
}

/* A repeated weight_map replaces the one before it. */
static void map_reset(struct stindex *x)
{
	x->n_tensors = x->n_shards = 0;
	if (x->tslot)
		memset(x->tslot, 0, x->tcap * sizeof(*x->tslot));
	if (x->sslot)
		memset(x->sslot, 0, x->scap * sizeof(*x->sslot));
}

static int parse_map(struct ctx *c)
{
	const char *k, *v;
	size_t kl, vl;
	uint32_t id;
	int rc;

	map_reset(c->x);
	c->x->has_map = 1;
	c->j.pos++; /* '{' */
	if (jscan_accept(&c->j, '}'))
		return 0;
	do {
		if ((rc = read_str(c, &k, &kl)) || (rc = jscan_expect(&c->j, ':')))
			return rc;
		id = STINDEX_NONE;
		if (jscan_peek(&c->j) != '"')
			rc = jscan_skip(&c->j);
		else if ((rc = read_str(c, &v, &vl)) == 0)
			rc = shard_id(c, v, vl, &id);
		if (rc || (rc = tensor_set(c, k, kl, id)))
			return rc;
	} while (jscan_accept(&c->j, ','));
	return jscan_expect(&c->j, '}');
}

/* metadata.total_size: an integer > 0 is kept; a real, a string, a negative
 * number is not an integer size; one past int64 fails, as in jansson. */
static int read_total(struct ctx *c)
{
	struct jscan *j = &c->j;
	int ch = jscan_peek(j);
	size_t at = j->pos;
	uint64_t v;

	c->x->total_size = -1;
	if (ch < '0' || ch > '9')
		return jscan_skip(j);
	while (at < j->n && j->p[at] >= '0' && j->p[at] <= '9')
		at++;
	if (at < j->n && (j->p[at] == '.' || j->p[at] == 'e' || j->p[at] == 'E'))
		return jscan_skip(j);
	if (jscan_u64(j, &v))
		return CD_EFORMAT;
	if (v > INT64_MAX)
		return err_set(c->err, CD_EFORMAT, "JSON: integer too big before byte %zu", j->pos);
	if (v)
		c->x->total_size = (int64_t)v;
	return 0;
}

static int parse_meta(struct ctx *c)
{
	const char *k;
	size_t kl;
	int rc;

	c->x->total_size = -1;
	c->j.pos++; /* '{' */
	if (jscan_accept(&c->j, '}'))
		return 0;
	do {
		if ((rc = read_str(c, &k, &kl)) || (rc = jscan_expect(&c->j, ':')))
			return rc;
		rc = kl == 10 && !memcmp(k, "total_size", 10) ? read_total(c) : jscan_skip(&c->j);
		if (rc)
			return rc;
	} while (jscan_accept(&c->j, ','));
	return jscan_expect(&c->j, '}');
}

/* One member of the top-level object. */
static int member(struct ctx *c)
{
	const char *k;
	size_t kl;
	int rc, obj;

	if ((rc = read_str(c, &k, &kl)) || (rc = jscan_expect(&c->j, ':')))
		return rc;
	obj = jscan_peek(&c->j) == '{';
	if (kl == 10 && !memcmp(k, "weight_map", 10)) {
		if (obj)
			return parse_map(c);
		map_reset(c->x);
		c->x->has_map = 0;
	} else if (kl == 8 && !memcmp(k, "metadata", 8)) {
		if (obj)
			return parse_meta(c);
		c->x->total_size = -1;
	}
	return jscan_skip(&c->j);
}

static int parse_top(struct ctx *c)
{
	int ch = jscan_peek(&c->j), rc;

	if (ch == '[') /* an array: valid JSON without a weight_map */
		return jscan_skip(&c->j) ? CD_EFORMAT : jscan_end(&c->j);
	if (ch != '{')
		return err_set(c->err, CD_EFORMAT, "JSON: expected '{' at byte %zu", c->j.pos);
	c->j.pos++;
	if (!jscan_accept(&c->j, '}')) {
		do {
			if ((rc = member(c)))
				return rc;
		} while (jscan_accept(&c->j, ','));
		if ((rc = jscan_expect(&c->j, '}')))
			return rc;
	}
	return jscan_end(&c->j);
}

int stindex_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct stindex *x,
		  struct cd_err *err)
{
	struct ctx c = {.a = a, .x = x, .err = err};
	int rc;

	memset(x, 0, sizeof(*x));
	x->total_size = -1;
	if (n > UINT32_MAX)
		return err_set(err, CD_ERANGE, "an index of %zu bytes", n);
	if (jscan_utf8_ok(p, n))
		return err_set(err, CD_EFORMAT, "JSON: invalid UTF-8");
	jscan_init(&c.j, p, n, err);
	rc = parse_top(&c);
	if (rc) {
		int over = x->over_cap;
		stindex_free(x);
		x->over_cap = over;
	}
	return rc;
}

uint32_t stindex_shard_of(const struct stindex *x, const char *name)
{
	size_t len = strlen(name), k;
	int hit;

	if (!x->tcap)
		return STINDEX_NONE;
	k = slot_of(x, 0, x->tslot, x->tcap, name, len, &hit);
	return hit ? x->tensors[x->tslot[k] - 1].shard : STINDEX_NONE;
}

void stindex_free(struct stindex *x)
{
	free(x->tensors);
	free(x->shards);
	free(x->tslot);
	free(x->sslot);
	memset(x, 0, sizeof(*x));
	x->total_size = -1;
}
