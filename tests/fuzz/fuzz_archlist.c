/* libFuzzer target: format/archlist, the one parser of TORCH_CUDA_ARCH_LIST,
 * with torch's tables of a release the first byte picks (kb/torcharch) and
 * with a small table of its own. Checks the counts, and that the fixed list
 * it proposes is itself accepted by the same tables. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/archlist.h"
#include "kb/torcharch.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static void one(const uint8_t *p, size_t n, const struct archlist_rules *rules)
{
	static struct archlist_result r, again;
	size_t bad, i, valid = 0;

	bad = archlist_parse(p, n, rules, &r);
	if (bad != r.n_bad || bad > r.n_entries || r.n_kept > ARCHLIST_MAX_ENTRIES ||
	    r.n_kept > r.n_entries ||
	    (r.n_entries >= ARCHLIST_MAX_ENTRIES) != (r.n_kept == ARCHLIST_MAX_ENTRIES))
		__builtin_trap();
	for (i = 0; i < r.n_kept; i++) {
		const struct archlist_entry *e = &r.entries[i];
		if (e->valid != (e->kind == ARCHLIST_OK) ||
		    memchr(e->text, '\0', sizeof(e->text)) == NULL ||
		    (e->valid && !archlist_accepts(rules, e->text)))
			__builtin_trap();
		valid += (size_t)e->valid;
	}
	if (r.n_entries == r.n_kept && valid + bad != r.n_entries)
		__builtin_trap();
	if (!r.is_auto && !r.too_long && r.fixed[0] &&
	    archlist_parse((const uint8_t *)r.fixed, strlen(r.fixed), rules, &again) != 0)
		__builtin_trap(); /* the proposed fix must parse clean */
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static const char *const releases[] = {NULL, "2.11.0", "2.8.0", "2.5.1", "1.13.1", "1.6.0"};
	static const struct archlist_name names[] = {{"Big", "1.0;1.1"}, {"B", "2.0+PTX"}};
	static const char *const arches[] = {"1.0", "1.1", "2.0"};
	static const struct archlist_name renames[] = {{"0.9", "1.0"}};
	static const struct archlist_rules own = {names, 2, arches, 3, renames, 1};
	static struct torcharch_rules tr;

	if (n == 0)
		return 0;
	if (torcharch_rules(releases[p[0] % 6], &tr) == 0)
		one(p + 1, n - 1, &tr.rules);
	one(p + 1, n - 1, &own);
	one(NULL, 0, &own);
	return 0;
}
