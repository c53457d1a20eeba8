/* libFuzzer target: format/imgcfg on arbitrary bytes (docker inspect, OCI
 * image and runtime configurations): every entry it keeps is NAME=VALUE and
 * the list ends with a NULL. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/imgcfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct cd_arena a;
	struct imgcfg c;
	struct cd_err e = {0};
	size_t i;

	arena_init(&a);
	if (imgcfg_parse(p, n, &a, &c, &e) == 0) {
		if (!c.env || c.env[c.n_env])
			__builtin_trap();
		for (i = 0; i < c.n_env; i++)
			if (!strchr(c.env[i], '=') || c.env[i][0] == '=')
				__builtin_trap();
	}
	arena_free(&a);
	return 0;
}
