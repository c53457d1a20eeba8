/* vec: see vec.h. */
#include "core/vec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *vec_grow(struct cd_arena *a, void *p, size_t *cap, size_t n, size_t size, size_t first,
	       size_t max)
{
	size_t c, lim = size ? SIZE_MAX / size : 0;
	void *q;

	if (n < *cap)
		return p;
	if (!size || (max && n >= max) || n >= lim)
		return NULL;
	if (!first)
		first = VEC_FIRST;
	c = *cap < first ? first : (*cap > lim / 2 ? lim : *cap * 2);
	if (max && c > max)
		c = max;
	if (c > lim)
		c = lim;
	if (a) {
		q = arena_alloc(a, c * size);
		if (q && n)
			memcpy(q, p, n * size);
	} else {
		q = realloc(p, c * size);
	}
	if (!q)
		return NULL;
	*cap = c;
	return q;
}

void vec_init(struct cd_vec *v, size_t size, size_t first, size_t max, struct cd_arena *arena)
{
	v->p = NULL;
	v->n = v->cap = 0;
	v->size = size;
	v->first = first;
	v->max = max;
	v->arena = arena;
}

void *vec_push(struct cd_vec *v)
{
	void *p = vec_grow(v->arena, v->p, &v->cap, v->n, v->size, v->first, v->max), *e;

	if (!p)
		return NULL;
	v->p = p;
	e = (char *)p + v->n * v->size;
	memset(e, 0, v->size);
	v->n++;
	return e;
}

void vec_free(struct cd_vec *v)
{
	if (!v)
		return;
	if (!v->arena)
		free(v->p);
	v->p = NULL;
	v->n = v->cap = 0;
}
