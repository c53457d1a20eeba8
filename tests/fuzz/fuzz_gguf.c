/* libFuzzer target for src/format/gguf: the input is a whole file, and also
 * the prefix of a longer one (the path that asks for more bytes). */
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "format/gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_arena a;
	struct gguf_file g;
	struct cd_err err;
	uint64_t v;

	arena_init(&a);
	a.max_total = (size_t)64 << 20;
	if (!gguf_parse(data, size, size, &a, &g, &err))
		(void)gguf_get_u64(&g, "general.alignment", &v);
	(void)gguf_parse(data, size, (uint64_t)size * 2 + 1, &a, &g, &err);
	arena_free(&a);
	return 0;
}
