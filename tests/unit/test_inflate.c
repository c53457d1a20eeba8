/* Unit tests for src/format/inflate.c: stored, fixed and dynamic blocks
 * (vectors made with Python's zlib, raw DEFLATE; tests/unit/data/
 * gen_inflate_vectors.py writes the large one), output streamed in pieces
 * past the 64 KiB ring, and streams that lie or stop short. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/err.h"
#include "format/inflate.h"

struct sink {
	struct cd_buf b;
	size_t calls, biggest;
	int stop_after; /* stop with 99 after this many calls; 0: never */
};

static int to_sink(const uint8_t *p, size_t n, void *ctx)
{
	struct sink *s = ctx;

	s->calls++;
	if (n > s->biggest)
		s->biggest = n;
	if (s->stop_after && (int)s->calls >= s->stop_after)
		return 99;
	return buf_append(&s->b, p, n);
}

static int run(const uint8_t *in, size_t n, uint64_t max, struct sink *s, struct cd_err *e)
{
	memset(s, 0, sizeof(*s));
	buf_init(&s->b, (size_t)1 << 24);
	return inflate_raw(in, n, max, to_sink, s, NULL, NULL, e);
}

/* python3: zlib.compressobj(9, zlib.DEFLATED, -15, 9, zlib.Z_FIXED) */
static const uint8_t fixed_v[] = {0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7, 0x51, 0xc8, 0x40,
				  0xa2, 0x14, 0xd2, 0x32, 0x2b, 0x52, 0x53, 0x00};
/* level 0: one stored block */
static const uint8_t stored_v[] = {0x01, 0x07, 0x00, 0xf8, 0xff, 's', 't', 'o', 'r', 'e', 'd', '!'};

static void small_blocks(void **state)
{
	struct sink s;
	struct cd_err e = {0};
	size_t used = 0;
	uint64_t out = 0;

	(void)state;
	assert_int_equal(run(fixed_v, sizeof(fixed_v), 1024, &s, &e), 0);
	assert_int_equal(s.b.len, 25);
	assert_memory_equal(s.b.p, "hello, hello, hello fixed", 25);
	buf_free(&s.b);
	assert_int_equal(run(stored_v, sizeof(stored_v), 1024, &s, &e), 0);
	assert_int_equal(s.b.len, 7);
	assert_memory_equal(s.b.p, "stored!", 7);
	buf_free(&s.b);
	/* used / produced, and no sink at all */
	assert_int_equal(inflate_raw(stored_v, sizeof(stored_v), 64, NULL, NULL, &used, &out, &e),
			 0);
	assert_int_equal(used, sizeof(stored_v));
	assert_int_equal(out, 7);
}

static char *words(size_t *n)
{
	static const char *const w[] = {"alpha", "bravo",    "charlie", "delta",  "echo", "foxtrot",
					"golf",	 "hotel",    "india",	"juliet", "kilo", "lima",
					"mike",	 "november", "oscar",	"papa"};
	struct cd_buf b;
	unsigned long x = 1;
	size_t i, blk;
	char *one;
	int k;

	buf_init(&b, 0);
	for (i = 0; i < 2000; i++) {
		x = (x * 1103515245ul + 12345ul) & 0x7ffffffful;
		assert_int_equal(buf_printf(&b, "%s%s", i ? " " : "", w[(x >> 16) % 16]), 0);
	}
	assert_int_equal(buf_putc(&b, '\n'), 0);
	blk = b.len;
	one = buf_steal(&b); /* appending b to itself would read a buffer it moves */
	buf_init(&b, 0);
	for (k = 0; k < 6; k++)
		assert_int_equal(buf_append(&b, one, blk), 0);
	free(one);
	*n = b.len;
	return buf_steal(&b);
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = malloc(1 << 16);

	assert_non_null(f);
	*n = fread(p, 1, 1 << 16, f);
	fclose(f);
	return p;
}

static void dynamic_past_the_ring(void **state)
{
	struct sink s;
	struct cd_err e = {0};
	size_t n, want_n;
	uint8_t *in = slurp("tests/unit/data/inflate_words.deflate", &n);
	char *want = words(&want_n);

	(void)state;
	assert_int_equal(want_n, 73176);
	assert_int_equal(run(in, n, want_n, &s, &e), 0);
	assert_int_equal(s.b.len, want_n);
	assert_memory_equal(s.b.p, want, want_n);
	assert_true(s.calls >= 3);
	assert_true(s.biggest <= INFLATE_CHUNK);
	buf_free(&s.b);
	/* the output cap */
	assert_int_equal(run(in, n, want_n - 1, &s, &e), CD_ERANGE);
	buf_free(&s.b);
	/* a sink that stops: its code comes back */
	memset(&s, 0, sizeof(s));
	buf_init(&s.b, 0);
	s.stop_after = 2;
	assert_int_equal(inflate_raw(in, n, want_n, to_sink, &s, NULL, NULL, &e), 99);
	buf_free(&s.b);
	/* cut short anywhere: an error, never a crash */
	assert_int_not_equal(run(in, n / 2, want_n, &s, &e), 0);
	buf_free(&s.b);
	free(in);
	free(want);
}

static void lying_streams(void **state)
{
	static const uint8_t type3[] = {0x07}; /* final, block type 3 */
	static const uint8_t bad_stored[] = {0x01, 0x07, 0x00, 0x00, 0x00}; /* NLEN wrong */
	static const uint8_t short_stored[] = {0x01, 0x07, 0x00, 0xf8, 0xff, 's'};
	/* fixed block: a match at distance 1 before any output (symbol 257, distance 0) */
	static const uint8_t far[] = {0x03, 0x02, 0x00};
	struct sink s;
	struct cd_err e = {0};
	uint8_t junk[256];
	size_t i;

	(void)state;
	assert_int_equal(run(type3, sizeof(type3), 64, &s, &e), CD_EFORMAT);
	buf_free(&s.b);
	assert_int_equal(run(bad_stored, sizeof(bad_stored), 64, &s, &e), CD_EFORMAT);
	buf_free(&s.b);
	assert_int_equal(run(short_stored, sizeof(short_stored), 64, &s, &e), CD_ERANGE);
	buf_free(&s.b);
	assert_int_not_equal(run(far, sizeof(far), 64, &s, &e), 0);
	buf_free(&s.b);
	assert_int_equal(run(NULL, 0, 64, &s, &e), CD_ERANGE);
	buf_free(&s.b);
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37 + 11);
	for (i = 0; i < sizeof(junk); i++) {
		run(junk + i, sizeof(junk) - i, 1 << 20, &s, &e); /* any result but a crash */
		buf_free(&s.b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_blocks),
		cmocka_unit_test(dynamic_past_the_ring),
		cmocka_unit_test(lying_streams),
	};
	return cmocka_run_group_tests_name("inflate", tests, NULL, NULL);
}
