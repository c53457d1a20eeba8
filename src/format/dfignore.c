/* dfignore: see dfignore.h. hadolint's grammar: spaces, "hadolint", spaces1,
 * ["global" spaces1], "ignore", spaces, "=", spaces, then rule names
 * separated by spaces "," spaces, each followed by an optional inline
 * comment; rule names here are cuda-doctor ids (letters, digits, "-"). */
#include "format/dfignore.h"

#include <string.h>

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static size_t blanks(const char *p, size_t k, size_t n)
{
	while (k < n && blank(p[k]))
		k++;
	return k;
}

/* The word w at p[k..n) followed by a blank (need_blank) or anything. */
static int word(const char *p, size_t *k, size_t n, const char *w, int need_blank)
{
	size_t len = strlen(w);

	if (n - *k < len || strncmp(p + *k, w, len))
		return 0;
	if (need_blank && (*k + len >= n || !blank(p[*k + len])))
		return 0;
	*k = blanks(p, *k + len, n);
	return 1;
}

int dfignore_parse(const char *p, size_t n, struct cd_arena *a, struct dfignore *out)
{
	size_t k = 1, is;

	memset(out, 0, sizeof(*out));
	if (!n || p[0] != '#')
		return 0;
	k = blanks(p, k, n);
	if (!word(p, &k, n, "cuda-doctor", 1))
		return 0;
	out->global = word(p, &k, n, "global", 1);
	if (!word(p, &k, n, "ignore", 0) || k >= n || p[k] != '=')
		return 0;
	for (k++; k < n;) {
		k = blanks(p, k, n);
		is = k;
		while (k < n && p[k] != ',' && p[k] != '#' && !blank(p[k]))
			k++;
		if (k > is && out->n < DFIGNORE_IDS_MAX &&
		    !(out->ids[out->n++] = arena_strndup(a, p + is, k - is)))
			return CD_ENOMEM;
		k = blanks(p, k, n);
		if (k < n && p[k] == ',')
			k++;
		else
			break;
	}
	return 1;
}

int dfignore_has(const char *const *ids, size_t n, const char *id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] && (!strcmp(ids[i], id) || !strcmp(ids[i], "all")))
			return 1;
	return 0;
}
