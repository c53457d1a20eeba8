/* fuzz_fatbin: the fatbin container/entry walker and the embedded-container
 * scan on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static int count(const struct fatbin_entry *e, void *ctx)
{
	uint64_t *c = ctx;

	*c += e->header_size;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct fatbin_summary s;
	uint64_t c = 0;
	char name[32];
	size_t i;

	(void)fatbin_walk(p, n, count, &c, NULL, NULL);
	(void)fatbin_summarize(p, n, &s, NULL);
	memset(&s, 0, sizeof(s));
	(void)fatbin_scan(p, n, count, &c, &s);
	for (i = 0; i < s.n_sass; i++)
		fatbin_arch_name(FATBIN_KIND_ELF, s.sass[i], name, sizeof(name));
	for (i = 0; i < s.n_ptx; i++)
		fatbin_arch_name(FATBIN_KIND_PTX, s.ptx[i], name, sizeof(name));
	return 0;
}
