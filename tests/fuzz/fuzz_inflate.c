/* fuzz_inflate: the DEFLATE decoder on arbitrary bytes, its output walked
 * for fatbin containers as a wheel's libtorch_cuda.so would be. */
#include <stddef.h>
#include <stdint.h>

#include "format/fatbin.h"
#include "format/inflate.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static int feed(const uint8_t *b, size_t k, void *ctx)
{
	fatbin_stream_feed(ctx, b, k);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static struct fatbin_stream st;
	size_t used;
	uint64_t out;

	fatbin_stream_init(&st);
	(void)inflate_raw(p, n, 1u << 24, feed, &st, &used, &out, NULL);
	fatbin_stream_end(&st);
	return 0;
}
