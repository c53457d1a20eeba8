/* fuzz_ldcache: the ld.so.cache reader and lookup on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/ldcache.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct ldc_cache c;
	struct ldc_entry e, hit;
	char flags[64];
	uint32_t i;
	unsigned hw;

	if (ldc_parse(p, n, &c, NULL))
		return 0;
	for (i = 0; i < c.n && i < 256; i++) {
		if (ldc_entry_get(&c, i, &e))
			continue;
		ldc_flags_text(e.flags, flags, sizeof(flags));
		if (ldc_lookup(&c, e.key, e.flags, &hit, &hw) == 0)
			(void)strlen(hit.value);
	}
	(void)ldc_lookup(&c, "libc.so.6", ldc_flags_for(62, 1), &hit, &hw);
	return 0;
}
