/* fuzz_zip: a wheel read as `fix --wheel` reads it, on arbitrary bytes: the
 * zip reader finds torch/lib/libtorch_cuda.so and the .dist-info METADATA,
 * and a member that is found is inflated (or walked, when stored) into the
 * fatbin stream. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "format/fatbin.h"
#include "format/inflate.h"
#include "format/zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);

static int feed(const uint8_t *b, size_t k, void *ctx)
{
	fatbin_stream_feed(ctx, b, k);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
	static struct fatbin_stream st;
	struct zip_member m;
	char name[256];

	fatbin_stream_init(&st);
	if (zip_find(p, n, "torch/lib/libtorch_cuda.so", &m, NULL) == 0) {
		if (m.method == ZIP_METHOD_STORED)
			fatbin_stream_feed(&st, p + m.data_off, (size_t)m.comp_size);
		else
			(void)inflate_raw(p + m.data_off, (size_t)m.comp_size, 1u << 24, feed, &st,
					  NULL, NULL, NULL);
	}
	fatbin_stream_end(&st);
	if (zip_find_suffix(p, n, ".dist-info/METADATA", name, sizeof(name), &m, NULL) == 0)
		(void)inflate_raw(p + m.data_off, (size_t)m.comp_size, 1u << 20, NULL, NULL, NULL,
				  NULL, NULL);
	return 0;
}
