/* libFuzzer target for src/format/cvd: CUDA_VISIBLE_DEVICES is whatever the
 * user exported. Parse, then resolve against a fixed set of GPUs; entries
 * must lie inside the input and the visible count within the entries. */
#include <stdint.h>
#include <string.h>

#include "core/span.h"
#include "format/cvd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const uuids[] = {"GPU-5a3f9c1e-7b2d-4e8a-9c61-0f2b8d4e7a13", NULL,
					    "GPU-c81e2a47-3d95-4b0f-8e26-71a9f5d0b3c4"};
	struct cvd_list l;
	struct cvd_result r;
	size_t i;

	cvd_parse(data, size, &l);
	if (l.n > CVD_ENTRIES_MAX || (l.stop && !span_ok(size, l.stop_off, l.stop_len)))
		__builtin_trap();
	for (i = 0; i < l.n; i++)
		if (!span_ok(size, l.e[i].off, l.e[i].len))
			__builtin_trap();
	cvd_resolve(&l, data, size, uuids, 3, &r);
	if (r.visible > l.n || (r.problem && r.problem != CVD_P_STOPPED && r.at >= l.n))
		__builtin_trap();
	for (i = 0; i < r.visible; i++)
		if (r.gpu[i] < -1 || r.gpu[i] >= 3)
			__builtin_trap();
	return 0;
}
