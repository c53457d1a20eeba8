/* vec: the one growable array: elements of a fixed size, a hard cap on
 * their number, growth by doubling with every product checked for overflow.
 * Storage is the heap (realloc; the owner frees it) or an arena (a larger
 * copy each time; freed with the arena). Past the cap or out of memory the
 * array is left as it was and the call returns NULL. */
#ifndef CD_VEC_H
#define CD_VEC_H

#include <stddef.h>

#include "core/arena.h"
#include "core/err.h"

/* Elements the first growth allocates when the caller names none. */
#define VEC_FIRST 16

/* The array p (cap elements of size bytes, n of them in use) with room for
 * one more element: p itself while n < *cap, else an array holding the n of
 * first elements (0: VEC_FIRST) the first time, twice *cap after, at most
 * max (0: no cap but SIZE_MAX bytes), from arena a or, when a is NULL, from
 * the heap (p is then realloc'd). *cap gets the new size; the caller stores
 * the result in place of p. A first size near the usual count keeps a heap
 * from growing through a chain of copies. NULL when n has reached max, on
 * overflow or out of memory: p and *cap are unchanged. */
CD_WUR void *vec_grow(struct cd_arena *a, void *p, size_t *cap, size_t n, size_t size, size_t first,
		      size_t max);

/* A vector that carries its element size and cap, for builders that keep
 * their array private. Elements are at p, n of them. */
struct cd_vec {
	void *p;
	size_t n, cap;
	size_t size;		/* bytes per element */
	size_t first;		/* elements of the first allocation; 0: VEC_FIRST */
	size_t max;		/* most elements; 0: no cap but SIZE_MAX bytes */
	struct cd_arena *arena; /* NULL: the heap, freed by vec_free */
};

void vec_init(struct cd_vec *v, size_t size, size_t first, size_t max, struct cd_arena *arena);
/* A zeroed element at the end (pointers to earlier elements may move), or
 * NULL with the vector unchanged. */
CD_WUR void *vec_push(struct cd_vec *v);
/* Frees heap storage (an arena's stays with the arena) and empties v. */
void vec_free(struct cd_vec *v);

#endif
