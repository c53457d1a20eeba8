/* fuzz_stindex: the shard index reader on arbitrary bytes. After a read
 * that succeeds, every tensor it kept is found again by its name, and the
 * shards' counts add up to the tensors that map to one. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "format/stindex.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct cd_arena a;
	struct stindex x;
	uint64_t mapped = 0, counted = 0;
	char *name;
	size_t i;

	arena_init(&a);
	a.max_total = (size_t)64 << 20;
	if (stindex_parse(p, n, &a, &x, NULL) == 0) {
		for (i = 0; i < x.n_tensors; i++) {
			name = strndup(x.tensors[i].name, x.tensors[i].len);
			if (name && stindex_shard_of(&x, name) != x.tensors[i].shard)
				__builtin_trap();
			free(name);
			mapped += x.tensors[i].shard != STINDEX_NONE;
		}
		for (i = 0; i < x.n_shards; i++)
			counted += x.shards[i].n_tensors;
		if (mapped != counted)
			__builtin_trap();
	}
	stindex_free(&x);
	arena_free(&a);
	return 0;
}
