/* libFuzzer target for src/format/dpkgst: no input may read out of bounds,
 * every string handed out is NUL-terminated within its field, and the count
 * returned is the number of callbacks. */
#include <stdint.h>
#include <string.h>

#include "format/dpkgst.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void seen(void *ctx, const char *name, const char *arch, const char *version)
{
	if (strlen(name) >= DPKGST_FIELD_MAX || strlen(arch) >= DPKGST_FIELD_MAX ||
	    strlen(version) >= DPKGST_FIELD_MAX || !*name)
		__builtin_trap();
	(*(int *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int calls = 0, n = dpkgst_each(data, size, seen, &calls);

	if (n != calls)
		__builtin_trap();
	return 0;
}
