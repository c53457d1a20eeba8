/* libFuzzer target for src/format/safetensors: the input is a whole file. */
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "format/safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_arena a;
	struct st_file st;
	struct cd_err err;
	uint64_t len;

	arena_init(&a);
	a.max_total = (size_t)64 << 20;
	(void)st_header_len(data, size, size, &len, &err);
	(void)st_parse(data, size, size, &a, &st, &err);
	/* The same header as the prefix of a longer, sparse file. */
	(void)st_parse(data, size, (uint64_t)size + 4096, &a, &st, &err);
	arena_free(&a);
	return 0;
}
