/* facts/stack: lookups in the stack facts (see stack.h). Packages are sorted
 * by normalised name, so a lookup is a binary search. */
#include "facts/stack.h"

#include <string.h>

const struct cd_package *packages_find(const struct cd_package *pk, size_t n, const char *name)
{
	size_t lo = 0, hi = pk ? n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int k = strcmp(pk[mid].name, name);
		if (!k)
			return &pk[mid];
		if (k < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct cd_package *stack_find(const struct cd_stack_facts *st, const char *name)
{
	return st ? packages_find(st->packages, st->n_packages, name) : NULL;
}
