/* model_split: device placement for the memory plan (see model_plan.c for the
 * rules it follows). Tensors are grouped into the units device_map keeps
 * whole: a numbered block ("model.layers.12", "blk.3") with everything under
 * it, else the module that owns the tensor ("model.embed_tokens", "lm_head").
 * The KV cache is charged to the blocks of the main stack, where it lives. */
#include <stdlib.h>
#include <string.h>

#include "check/model/model.h"
#include "core/str.h"

struct unit {
	const char *name;
	size_t keylen, prefixlen;
	int rank; /* 0 embeddings, 1 numbered blocks, 2 other modules, 3 output head */
	uint64_t num;
	uint64_t bytes;
};

/* The unit key of a tensor name: up to the first all-digit component. */
static void unit_key(const char *n, struct unit *u)
{
	const char *p = n, *dot;

	u->name = n;
	while (*p) {
		const char *q = p;
		dot = strchr(p, '.');
		if (!dot)
			break;
		while (q < dot && *q >= '0' && *q <= '9')
			q++;
		if (q == dot && dot > p && p > n) {
			u->rank = 1;
			u->keylen = (size_t)(dot - n);
			u->prefixlen = (size_t)(p - n - 1);
			u->num = strtoull(p, NULL, 10);
			return;
		}
		p = dot + 1;
	}
	dot = strrchr(n, '.');
	u->keylen = dot ? (size_t)(dot - n) : strlen(n);
	u->prefixlen = u->keylen;
	u->rank = strstr(n, "embed") || str_has_prefix(n, "token_embd") ? 0
		  : str_has_prefix(n, "lm_head") || str_has_prefix(n, "output.") ||
				  str_has_prefix(n, "embed_out")
			  ? 3
			  : 2;
	if (strstr(n, "lm_head"))
		u->rank = 3;
}

static int cmp_unit(const void *x, const void *y)
{
	const struct unit *a = x, *b = y;
	size_t n = a->prefixlen < b->prefixlen ? a->prefixlen : b->prefixlen;
	int c;

	if (a->rank != b->rank)
		return a->rank - b->rank;
	c = memcmp(a->name, b->name, n);
	if (c || a->prefixlen != b->prefixlen)
		return c ? c : a->prefixlen < b->prefixlen ? -1 : 1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	n = a->keylen < b->keylen ? a->keylen : b->keylen;
	c = memcmp(a->name, b->name, n);
	return c ? c : (a->keylen > b->keylen) - (a->keylen < b->keylen);
}

static int same_unit(const struct unit *a, const struct unit *b)
{
	return a->keylen == b->keylen && !memcmp(a->name, b->name, a->keylen);
}

/* Units in load order with their bytes at dtype; *n gets the count. */
static struct unit *build_units(const struct cd_model_facts *m, const char *dtype, uint64_t kv,
				uint64_t weights, size_t *n)
{
	size_t nt = m->w.n_tensors, i, k = 0, best = 0, main = 0, cnt;
	struct unit *u;

	if (!nt) { /* no headers (pickle): even blocks of the layer count */
		int64_t l = m->config.num_hidden_layers > 0 ? m->config.num_hidden_layers : 1;
		if (l > 4096) /* config.json is untrusted */
			l = 4096;
		u = calloc((size_t)l, sizeof(*u));
		for (i = 0; u && i < (size_t)l; i++) {
			u[i].name = "model";
			u[i].rank = 1;
			u[i].num = i;
			u[i].bytes = (weights + kv) / (uint64_t)l +
				     (i + 1 == (size_t)l ? (weights + kv) % (uint64_t)l : 0);
		}
		*n = u ? (size_t)l : 0;
		return u;
	}
	u = calloc(nt, sizeof(*u));
	if (!u)
		return (*n = 0), NULL;
	for (i = 0; i < nt; i++) {
		unit_key(m->w.tensors[i].name, &u[i]);
		u[i].bytes = mp_tensor_bytes(&m->w.tensors[i], dtype);
	}
	qsort(u, nt, sizeof(*u), cmp_unit);
	for (i = 0; i < nt; i++) { /* merge tensors of one unit */
		if (k && same_unit(&u[k - 1], &u[i]))
			u[k - 1].bytes += u[i].bytes;
		else
			u[k++] = u[i];
	}
	/* The main stack: the numbered prefix with the most blocks gets the KV. */
	for (i = 0; i < k; i = i + cnt) {
		for (cnt = 1; i + cnt < k && u[i].rank == 1 && u[i + cnt].rank == 1 &&
			      u[i + cnt].prefixlen == u[i].prefixlen &&
			      !memcmp(u[i].name, u[i + cnt].name, u[i].prefixlen);
		     cnt++)
			;
		if (u[i].rank == 1 && cnt > best) {
			best = cnt;
			main = i;
		}
	}
	if (best)
		for (i = 0; i < best; i++)
			u[main + i].bytes += kv / best + (i + 1 == best ? kv % best : 0);
	else if (k)
		u[k - 1].bytes += kv; /* no numbered blocks: the last unit */
	*n = k;
	return u;
}

/* Record where each device's units start and end, by unit index. */
struct span_idx {
	size_t first, last;
};

static void names(struct mp_device *d, const struct span_idx *ix, const struct unit *u,
		  struct cd_arena *a)
{
	if (!d->n_units)
		return;
	d->first_unit = arena_strndup(a, u[ix->first].name, u[ix->first].keylen);
	d->last_unit = arena_strndup(a, u[ix->last].name, u[ix->last].keylen);
}

static int64_t usable_of(const struct mp_device *d, double headroom)
{
	return d->free == CD_UNK ? CD_UNK : (int64_t)((double)d->free * headroom);
}

/* device_map="auto" over n > 1 GPUs; returns the bytes left for the CPU. */
static uint64_t split(struct mp_device *devs, size_t n, const struct unit *u, size_t nu,
		      uint64_t total, struct span_idx *ix)
{
	uint64_t per_gpu, biggest = 0, off = 0;
	size_t i, d = 0;

	for (i = 0; i < nu; i++)
		if (u[i].bytes > biggest)
			biggest = u[i].bytes;
	per_gpu = total / n + biggest + biggest / 4; /* get_balanced_memory's buffer */
	for (i = 0; i + 1 < n; i++)
		if ((uint64_t)devs[i].budget > per_gpu)
			devs[i].budget = (int64_t)per_gpu;
	for (i = 0; i < nu; i++) {
		while (d < n && devs[d].assigned + u[i].bytes > (uint64_t)devs[d].budget)
			d++;
		if (d == n) {
			off += u[i].bytes;
			continue;
		}
		if (!devs[d].n_units++)
			ix[d].first = i;
		ix[d].last = i;
		devs[d].assigned += u[i].bytes;
	}
	return off;
}

void mp_evaluate(const struct cd_model_facts *m, const struct mp_request *r, const char *dtype,
		 uint64_t kv, struct mp_device *devs, size_t n, struct cd_arena *a,
		 struct mp_eval *out)
{
	struct span_idx ix[MP_GPUS_MAX];
	struct unit *u = NULL;
	size_t nu = 0, i, used = 0;
	uint64_t total;
	int unknown = 0;

	memset(out, 0, sizeof(*out));
	out->fits = CD_TRI_UNKNOWN;
	out->usable = CD_UNK;
	out->weights = mp_weights_at(m, dtype, &out->estimated);
	total = out->weights + kv;
	out->required = total;
	for (i = 0; i < n; i++) {
		devs[i].assigned = 0;
		devs[i].n_units = 0;
		devs[i].first_unit = devs[i].last_unit = NULL;
		devs[i].usable = usable_of(&devs[i], r->headroom);
		if (devs[i].usable == CD_UNK)
			unknown = 1;
		else if (strcmp(devs[i].name, "cpu"))
			devs[i].budget = devs[i].usable > (int64_t)MP_CUDA_OVERHEAD
						 ? devs[i].usable - (int64_t)MP_CUDA_OVERHEAD
						 : 0;
		else
			devs[i].budget = devs[i].usable;
	}
	if (!n)
		return;
	if (!strcmp(devs[0].name, "cpu") || n == 1) {
		int gpu = strcmp(devs[0].name, "cpu") != 0;
		devs[0].assigned = total;
		out->required = total + (gpu ? MP_CUDA_OVERHEAD : 0);
		out->usable = devs[0].usable;
		if (!unknown)
			out->fits =
				out->required <= (uint64_t)devs[0].usable ? CD_TRI_YES : CD_TRI_NO;
		u = build_units(m, dtype, kv, out->weights, &nu);
		devs[0].n_units = nu;
		if (nu) {
			ix[0].first = 0;
			ix[0].last = nu - 1;
			names(&devs[0], &ix[0], u, a);
		}
		free(u);
		return;
	}
	if (unknown || n > MP_GPUS_MAX) {
		out->required = total + MP_CUDA_OVERHEAD * n;
		return;
	}
	u = build_units(m, dtype, kv, out->weights, &nu);
	out->offload = split(devs, n, u, nu, total, ix);
	out->usable = 0;
	for (i = 0; i < n; i++) {
		out->usable += devs[i].usable;
		names(&devs[i], &ix[i], u, a);
		used += devs[i].n_units > 0;
	}
	free(u);
	out->required = total + MP_CUDA_OVERHEAD * (used ? used : 1);
	out->fits = out->offload ? CD_TRI_NO : CD_TRI_YES;
}
