/* libFuzzer target: format/shcmd on arbitrary bytes (not NUL-terminated). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/shcmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	struct cd_arena a;
	struct sh_script s;
	struct cd_err e = {0};
	size_t i, k;

	arena_init(&a);
	if (shcmd_split((const char *)p, n, &a, &s, &e) == 0)
		for (i = 0; i < s.n; i++) {
			for (k = 0; k < s.cmds[i].argc; k++)
				if (!s.cmds[i].argv[k])
					__builtin_trap();
			for (k = 0; k < s.cmds[i].n_assign; k++)
				if (!strchr(s.cmds[i].assign[k], '='))
					__builtin_trap();
		}
	arena_free(&a);
	return 0;
}
