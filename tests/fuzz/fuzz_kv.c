/* libFuzzer target for src/format/kv: the reader must never read out of
 * bounds, and every record it returns must encode and decode back to itself. */
#include <stdint.h>
#include <string.h>

#include "format/kv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char k[KV_KEY_MAX], v[KV_VAL_MAX], k2[KV_KEY_MAX], v2[KV_VAL_MAX];
	static char line[4 * KV_VAL_MAX + KV_KEY_MAX + 8];
	struct kv_reader r, r2;
	int rc;

	kv_reader_init(&r, data, size);
	while ((rc = kv_next(&r, k, v)) != 0) {
		size_t n;
		if (rc != 1)
			continue;
		n = kv_encode(line, sizeof(line), k, v);
		if (!n)
			__builtin_trap(); /* a decoded record always re-encodes */
		kv_reader_init(&r2, (const uint8_t *)line, n);
		if (kv_next(&r2, k2, v2) != 1 || strcmp(k, k2) || strcmp(v, v2))
			__builtin_trap();
	}
	if (r.off != size)
		__builtin_trap(); /* the reader consumes everything */
	return 0;
}
