/* libFuzzer target: format/osrel on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/osrel.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static const char *const keys[] = {"ID", "VERSION_ID", "PRETTY_NAME", "X"};
	char v[256], small[4];
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (osrel_get(p, n, keys[i], v, sizeof(v)) == 0 && strlen(v) >= sizeof(v))
			__builtin_trap();
		if (osrel_get(p, n, keys[i], small, sizeof(small)) == 0 && strlen(small) >= 4)
			__builtin_trap();
	}
	return 0;
}
