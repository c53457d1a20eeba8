/* fuzz_buildinfo: TensorFlow's build_info.py reader (src/format/buildinfo.c)
 * on arbitrary bytes: strings it keeps are NUL-free, capped, and counted. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "format/buildinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct cd_arena a;
	struct buildinfo b;
	size_t i;

	arena_init(&a);
	if (buildinfo_parse(p, n, &a, &b) == 0) {
		if (b.n_caps > BUILDINFO_CAPS_MAX)
			__builtin_trap();
		for (i = 0; i < b.n_caps; i++)
			if (strlen(b.caps[i]) > BUILDINFO_VALUE_MAX)
				__builtin_trap();
		if (b.cuda_version && strlen(b.cuda_version) > BUILDINFO_VALUE_MAX)
			__builtin_trap();
	}
	arena_free(&a);
	return 0;
}
