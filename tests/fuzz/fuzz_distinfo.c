/* fuzz_distinfo: every reader of src/format/distinfo on arbitrary bytes. The
 * first byte picks the reader; the rest is the input. Checks invariants: the
 * header parse of a prefix never reads past it, counts stay under their caps. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "format/distinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_arena a;
	struct distinfo_meta m;
	struct torch_version_py t;
	struct conda_record r;
	const char *s, *name, *version;
	char *z;

	if (size < 1)
		return 0;
	arena_init(&a);
	switch (data[0] % 6) {
	case 0:
		if (distinfo_parse_metadata(data + 1, size - 1, data[0] & 0x80, &a, &m) == 0) {
			if (m.n_requires > DISTINFO_REQUIRES_MAX || m.header_end > size - 1)
				abort();
			if (distinfo_parse_requires_txt(data + 1, size - 1, &a, &m) == 0 &&
			    m.n_requires > DISTINFO_REQUIRES_MAX)
				abort();
		}
		break;
	/* The parsers must not crash; what they return does not matter here. */
	case 1: (void)distinfo_parse_torch_version(data + 1, size - 1, &a, &t); break;
	case 2: (void)distinfo_parse_conda_json(data + 1, size - 1, &a, &r); break;
	case 3:
		(void)distinfo_cfg_get(data + 1, size - 1, "home", &a, &s);
		(void)distinfo_patchlevel(data + 1, size - 1, &a, &s);
		break;
	default:
		/* names: NUL-terminated copies */
		z = malloc(size);
		if (!z)
			break;
		memcpy(z, data + 1, size - 1);
		z[size - 1] = '\0';
		distinfo_dirname(z, &a, &name, &version);
		(void)distinfo_conda_filename(z, &a, &r);
		free(z);
		break;
	}
	arena_free(&a);
	return 0;
}
