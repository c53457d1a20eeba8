/* fuzz_pep508: requirements and markers from arbitrary bytes, evaluated in a
 * fixed environment; results must be one of the three truth values. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "format/pep508.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pep508_req r;
	const struct pep508_env env = {"3.12",	"3.12.3", "cpython", "3.12.3", "CPython",
				       "posix", "linux",  "Linux",   "x86_64", NULL,
				       NULL,	"",	  0};
	int v;

	if (pep508_parse((const char *)data, size, &r, NULL) == 0) {
		v = pep508_req_applies(&r, (const char *)data, &env);
		if (v < PEP508_UNKNOWN || v > PEP508_TRUE)
			abort();
		if (r.marker_len && r.marker_off + r.marker_len > size)
			abort();
	}
	v = pep508_marker_eval((const char *)data, size, &env, NULL);
	if (v > PEP508_TRUE)
		abort();
	return 0;
}
