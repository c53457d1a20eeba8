/* libFuzzer target: format/libcver (glibc banner, ELF header, versioned
 * file name) and format/ctrhint (cgroup / mountinfo markers). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/ctrhint.h"
#include "format/libcver.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	char v[32], ev[128], *name;
	const char *arch, *kind;

	if (libcver_scan(p, n, v, sizeof(v)) == 0 && strlen(v) >= sizeof(v))
		__builtin_trap();
	if (libcver_elf_arch(p, n, &arch) == 0 && !arch)
		__builtin_trap();
	if (ctrhint_scan(p, n, &kind, ev, sizeof(ev)) == 0 && (!kind || strlen(ev) >= sizeof(ev)))
		__builtin_trap();
	name = malloc(n + 1);
	if (!name)
		return 0;
	memcpy(name, p, n);
	name[n] = '\0';
	(void)libcver_from_name(name, v, sizeof(v)); /* must not crash; any answer will do */
	free(name);
	return 0;
}
