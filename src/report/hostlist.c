/* hostlist: see hostlist.h. Each name is split into prefix, number and
 * suffix around its last run of digits; names of one prefix and suffix fold
 * together when their numbers have the same width class: the width of the
 * widest zero-padded number of that family (and numbers exactly that wide),
 * or unpadded. */
#include "report/hostlist.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

#define DIGITS_MAX 18 /* longer runs are not numbers here */

struct hl_name {
	const char *name;
	size_t plen, dlen; /* prefix length; digits (0: no number) */
	uint64_t num;
	int zero; /* zero-padded ("017") */
	size_t cls;
};

static void split(struct hl_name *h, const char *name)
{
	size_t len = strlen(name), end = len, start;

	memset(h, 0, sizeof(*h));
	h->name = name;
	h->plen = len;
	while (end > 0 && !isdigit((unsigned char)name[end - 1]))
		end--;
	start = end;
	while (start > 0 && isdigit((unsigned char)name[start - 1]))
		start--;
	if (end == start || end - start > DIGITS_MAX)
		return;
	h->plen = start;
	h->dlen = end - start;
	h->zero = name[start] == '0' && h->dlen > 1;
	h->num = strtoull(name + start, NULL, 10);
}

static int same_family(const struct hl_name *a, const struct hl_name *b)
{
	return a->dlen && b->dlen && a->plen == b->plen && !strncmp(a->name, b->name, a->plen) &&
	       !strcmp(a->name + a->plen + a->dlen, b->name + b->plen + b->dlen);
}

/* A total order: prefix (a plain name is all prefix), plain names first,
 * then suffix, width class and number. */
static int cmp_family(const void *x, const void *y)
{
	const struct hl_name *a = x, *b = y;
	size_t m = a->plen < b->plen ? a->plen : b->plen;
	int c = memcmp(a->name, b->name, m);

	if (c || a->plen != b->plen)
		return c ? c : (a->plen < b->plen ? -1 : 1);
	if (!a->dlen || !b->dlen)
		return (a->dlen > 0) - (b->dlen > 0);
	c = strcmp(a->name + a->plen + a->dlen, b->name + b->plen + b->dlen);
	if (c)
		return c;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return a->num < b->num ? -1 : a->num > b->num;
}

/* The width class of each name: see the file comment. */
static void classify(struct hl_name *h, size_t n)
{
	size_t i = 0, k, w;

	while (i < n) {
		for (k = i, w = 0; k < n && same_family(&h[i], &h[k]); k++)
			if (h[k].zero && h[k].dlen > w)
				w = h[k].dlen;
		if (k == i)
			k = i + 1;
		for (; i < k; i++)
			h[i].cls = h[i].dlen && (h[i].zero || h[i].dlen == w) ? h[i].dlen : 0;
	}
}

static int put_num(struct cd_buf *out, uint64_t v, size_t cls)
{
	return buf_printf(out, "%0*" PRIu64, (int)cls, v);
}

/* One bracket for h[0..n), all of one family and class, sorted. */
static int put_run(struct cd_buf *out, const struct hl_name *h, size_t n)
{
	size_t i = 0;
	int rc = buf_printf(out, "%.*s%s", (int)h->plen, h->name, n > 1 ? "[" : "");

	while (!rc && i < n) {
		size_t k = i;
		/* a duplicate name folds into its number */
		while (k + 1 < n && (h[k + 1].num == h[k].num || h[k + 1].num == h[k].num + 1))
			k++;
		if (i)
			rc = buf_putc(out, ',');
		if (!rc)
			rc = put_num(out, h[i].num, h[i].cls);
		if (!rc && h[k].num > h[i].num)
			rc = buf_putc(out, '-') ? CD_ENOMEM : put_num(out, h[k].num, h[k].cls);
		i = k + 1;
	}
	if (!rc)
		rc = buf_printf(out, "%s%s", n > 1 ? "]" : "", h->name + h->plen + h->dlen);
	return rc;
}

int hostlist_fold(const char *const *names, size_t n, struct cd_buf *out)
{
	struct hl_name *h = n ? calloc(n, sizeof(*h)) : NULL;
	size_t i = 0, k;
	int rc = 0;

	if (!n)
		return 0;
	if (!h)
		return CD_ENOMEM;
	for (k = 0; k < n; k++)
		split(&h[k], names[k]);
	qsort(h, n, sizeof(*h), cmp_family);
	classify(h, n);
	qsort(h, n, sizeof(*h), cmp_family);
	while (!rc && i < n) {
		if (i)
			rc = buf_putc(out, ',');
		if (!h[i].dlen) {
			rc = rc ? rc : buf_puts(out, h[i].name);
			i++;
			continue;
		}
		for (k = i + 1; k < n && same_family(&h[i], &h[k]) && h[k].cls == h[i].cls; k++)
			;
		rc = rc ? rc : put_run(out, h + i, k - i);
		i = k;
	}
	free(h);
	return rc;
}
