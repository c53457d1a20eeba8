/* diff_int: what diff.c and diff_rank.c share: the interning table and the
 * pair order. Private to report/diff*.c. */
#ifndef CD_DIFF_INT_H
#define CD_DIFF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct diff_slot {
	const char *s;
	uint64_t hash;
	size_t value;
};

struct diff_set {
	struct diff_slot *slots;
	size_t cap, n;
};

/* The slot of s: found (->s set) or where it goes; NULL without memory. */
CD_WUR struct diff_slot *diff_set_slot(struct diff_set *t, const char *s);
const struct diff_slot *diff_set_find(const struct diff_set *t, const char *s);
/* struct diff_pair by key, for qsort and bsearch. */
int diff_cmp_pair(const void *a, const void *b);
/* Elements each of diff's growing arrays (core/vec.h) starts with. */
#define DIFF_VEC_FIRST 64

#endif
