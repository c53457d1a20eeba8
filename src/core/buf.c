/* buf: see buf.h. */
#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

void buf_init(struct cd_buf *b, size_t max)
{
	b->p = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max ? max : CD_BUF_DEFAULT_MAX;
}

void buf_free(struct cd_buf *b)
{
	if (!b)
		return;
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void buf_reset(struct cd_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

int buf_reserve(struct cd_buf *b, size_t extra)
{
	size_t need, cap;
	char *np;

	if (!b->max)
		b->max = CD_BUF_DEFAULT_MAX;
	if (extra > b->max || b->len > b->max - extra)
		return CD_ENOMEM;
	need = b->len + extra + 1; /* room for the NUL */
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > ((size_t)-1) / 2 ? need : cap * 2;
	if (cap > b->max + 1)
		cap = b->max + 1;
	np = realloc(b->p, cap);
	if (!np)
		return CD_ENOMEM;
	b->p = np;
	b->cap = cap;
	return 0;
}

int buf_append(struct cd_buf *b, const void *p, size_t n)
{
	int rc = buf_reserve(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_puts(struct cd_buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_putc(struct cd_buf *b, char c)
{
	return buf_append(b, &c, 1);
}

int buf_printf(struct cd_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return CD_EINTERNAL;
	rc = buf_reserve(b, (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *buf_steal(struct cd_buf *b)
{
	char *p = b->p;

	if (!p)
		p = calloc(1, 1);
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}
