/* arena: bump allocation for the facts and findings of one run.
 * Everything allocated from an arena is freed together by arena_free; no
 * pointer into an arena outlives it. Allocation failure returns NULL, which
 * callers record as an unknown fact rather than aborting. */
#ifndef CD_ARENA_H
#define CD_ARENA_H

#include <stdarg.h>
#include <stddef.h>

#include "core/err.h"

struct cd_arena_chunk;

struct cd_arena {
	struct cd_arena_chunk *head;
	size_t used_total;
	size_t max_total; /* 0: CD_ARENA_DEFAULT_MAX */
};

#define CD_ARENA_DEFAULT_MAX ((size_t)256 << 20)

void arena_init(struct cd_arena *a);
void arena_free(struct cd_arena *a);
CD_WUR void *arena_alloc(struct cd_arena *a, size_t size); /* zeroed */
/* zeroed array of n elements; NULL on overflow of n * size */
CD_WUR void *arena_calloc(struct cd_arena *a, size_t n, size_t size);
CD_WUR char *arena_strdup(struct cd_arena *a, const char *s); /* NULL in, NULL out */
CD_WUR char *arena_strndup(struct cd_arena *a, const char *s, size_t n);
CD_WUR char *arena_printf(struct cd_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same with a va_list (ap is consumed). */
CD_WUR char *arena_vprintf(struct cd_arena *a, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
