/* fuzz_record: the RECORD reader (src/format/record.c) on arbitrary bytes:
 * every path handed out is NUL-terminated, as long as it says, and shorter
 * than RECORD_PATH_MAX. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static int check(const char *path, size_t len, void *ctx)
{
	(void)ctx;
	if (!len || len >= RECORD_PATH_MAX || strlen(path) != len)
		__builtin_trap();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	size_t skipped;

	(void)record_each(p, n, check, NULL, &skipped); /* check() traps on a bad row */
	return 0;
}
