/* arena: see arena.h. Chunks are linked newest first; a request larger than
 * the default chunk gets a chunk of its own. */
#include "core/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_DEFAULT ((size_t)64 << 10)
#define ALIGN	      16

struct cd_arena_chunk {
	struct cd_arena_chunk *next;
	size_t cap;
	size_t used;
	_Alignas(ALIGN) unsigned char data[];
};

void arena_init(struct cd_arena *a)
{
	a->head = NULL;
	a->used_total = 0;
	a->max_total = CD_ARENA_DEFAULT_MAX;
}

void arena_free(struct cd_arena *a)
{
	struct cd_arena_chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->used_total = 0;
}

void *arena_alloc(struct cd_arena *a, size_t size)
{
	struct cd_arena_chunk *c = a->head;
	size_t need, cap;
	void *p;

	if (size > SIZE_MAX - ALIGN)
		return NULL;
	need = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (!a->max_total)
		a->max_total = CD_ARENA_DEFAULT_MAX;
	if (need > a->max_total || a->used_total > a->max_total - need)
		return NULL;
	if (!c || c->cap - c->used < need) {
		cap = need > CHUNK_DEFAULT ? need : CHUNK_DEFAULT;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += need;
	a->used_total += need;
	memset(p, 0, size);
	return p;
}

void *arena_calloc(struct cd_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return arena_alloc(a, n * size);
}

char *arena_strndup(struct cd_arena *a, const char *s, size_t n)
{
	char *p;

	if (!s)
		return NULL;
	p = arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct cd_arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_vprintf(struct cd_arena *a, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *p;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return NULL;
	p = arena_alloc(a, (size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct cd_arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}
