/* libFuzzer target for src/format/xidlog: the kernel log is whatever the
 * kernel and every driver wrote into it. Walk it; the reader must stay in
 * range, make progress and keep every string terminated. */
#include <stdint.h>
#include <string.h>

#include "format/xidlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct xidlog_reader r;
	struct xidlog_event ev;
	unsigned d, b, v;
	size_t last = 0;

	xidlog_init(&r, data, size);
	while (xidlog_next(&r, &ev)) {
		if (r.off > size || (r.off <= last && size))
			__builtin_trap();
		last = r.off;
		if (!memchr(ev.pci, '\0', sizeof(ev.pci)) ||
		    !memchr(ev.text, '\0', sizeof(ev.text)))
			__builtin_trap();
		(void)xidlog_pci(ev.pci, &d, &b, &v); /* must not crash; a non-address is -1 */
	}
	if (r.off > size)
		__builtin_trap();
	return 0;
}
