/* libFuzzer target for src/format/nvproc: /proc/driver/nvidia/version as
 * found under --root is untrusted; the result must be a short version string. */
#include <stdint.h>
#include <string.h>

#include "format/nvproc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvproc_version v;

	if (nvproc_parse(data, size, &v) == 0) {
		size_t n = strnlen(v.version, sizeof(v.version));
		if (n == 0 || n >= sizeof(v.version) || strspn(v.version, "0123456789.") != n)
			__builtin_trap();
	}
	return 0;
}
