/* libFuzzer target for src/format/redact with the rules of
 * data/redact_rules.tsv: no input may crash the engine or read out of
 * bounds, and the text out must not depend on how the input was cut into
 * pieces. Two sets are fed the same inputs in the same order (one whole, one
 * in two pieces at a point the first byte picks), so their aliases stay in
 * step; a block of one input does not carry into the next (a stream each). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "format/redact.h"
#include "kb/redactkb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct rd_set *whole, *split;

static struct rd_set *set_up(void)
{
	struct rd_set *s = NULL;

	if (redactkb_load(&s, NULL) || rd_set_value(s, "@host", "gpunode17") ||
	    rd_set_value(s, "@user", "alice") || rd_set_value(s, "@home", "/home/alice") ||
	    rd_set_allow(s, "9.1.0.70"))
		__builtin_trap(); /* the set every input runs through */
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cd_buf a, b;
	struct rd_stream st;
	size_t cut = size ? data[0] % (size + 1) : 0;
	int ra, rb;

	if (!whole) {
		whole = set_up();
		split = set_up();
	}
	buf_init(&a, 0);
	buf_init(&b, 0);
	ra = rd_text(whole, -1, data, size, &a, NULL);
	rd_stream_init(&st, split, -1, &b);
	rb = rd_stream_feed(&st, data, cut, NULL);
	if (!rb)
		rb = rd_stream_feed(&st, data + cut, size - cut, NULL);
	if (!rb)
		rb = rd_stream_end(&st, NULL);
	rd_stream_free(&st);
	if (ra != rb || (!ra && (a.len != b.len || memcmp(a.p ? a.p : "", b.p ? b.p : "", a.len))))
		__builtin_trap();
	buf_free(&a);
	buf_free(&b);
	return 0;
}
