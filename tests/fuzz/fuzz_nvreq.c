/* libFuzzer target: format/nvreq on arbitrary bytes (not NUL-terminated),
 * against hosts with every fact known, none known, and a brand alone. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/nvreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static const struct nvreq_host hosts[] = {
		{"535.104.05", "12.2", "tesla", "9.0"},
		{NULL, NULL, NULL, NULL},
		{NULL, NULL, "geforce", NULL},
	};
	struct nvreq_eval e;
	char v[32];
	size_t i;

	for (i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		enum nvreq_result r = nvreq_eval((const char *)p, n, &hosts[i], &e);
		if (r == NVREQ_OK && e.alternative >= e.n_alternatives)
			__builtin_trap();
		if (strlen(e.first) >= NVREQ_TEXT_MAX || strlen(e.held) >= NVREQ_TEXT_MAX)
			__builtin_trap();
	}
	if (nvreq_cuda_min((const char *)p, n, v, sizeof(v)) == 0 && strlen(v) >= sizeof(v))
		__builtin_trap();
	return 0;
}
