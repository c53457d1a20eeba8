/* libFuzzer target: format/archlist (TORCH_CUDA_ARCH_LIST). Checks that the
 * fixed list it proposes is itself accepted. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/archlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static struct archlist_result r, again;
	size_t bad;

	bad = archlist_parse((const char *)p, n, &r);
	if (bad < r.n_bad_kept || r.n_bad_kept > ARCHLIST_MAX_BAD)
		__builtin_trap();
	if (!r.is_auto && !r.too_long && r.fixed[0] &&
	    archlist_parse(r.fixed, strlen(r.fixed), &again) != 0)
		__builtin_trap(); /* the proposed fix must parse clean */
	return 0;
}
