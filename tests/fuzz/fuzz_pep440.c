/* fuzz_pep440: versions and specifier sets from arbitrary bytes. A version
 * that parses must print in normalised form, re-parse, and compare equal to
 * itself; containment must never crash for any parsed pair. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/pep440.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pep440_specset ss;
	struct pep440_version v, w;
	const uint8_t *bar = memchr(data, '|', size);
	size_t n = bar ? (size_t)(bar - data) : size;
	char out[512];

	if (pep440_parse((const char *)data, n, &v) == 0) {
		size_t len = pep440_format(&v, out, sizeof(out));
		/* implicit numbers can make the normal form longer than the cap */
		if (len <= PEP440_INPUT_MAX &&
		    (pep440_parse(out, len, &w) || pep440_cmp(&v, &w) || pep440_cmp(&w, &v)))
			abort();
	}
	if (bar && pep440_specset_parse((const char *)bar + 1, size - n - 1, &ss) == 0 &&
	    pep440_parse((const char *)data, n, &v) == 0) {
		int d = pep440_specset_contains(&ss, &v, PEP440_PRE_DEFAULT);
		int i = pep440_specset_contains(&ss, &v, PEP440_PRE_INCLUDE);
		if (d && !i) /* allowing pre-releases never removes a match */
			abort();
		pep440_specset_format(&ss, out, sizeof(out));
	}
	return 0;
}
