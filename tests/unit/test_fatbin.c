/* Unit tests for src/format/fatbin.c on hand-built containers: kinds,
 * a/f variants, sorting and de-duplication, several containers with
 * padding between them, and lying or truncated headers. Layouts follow the
 * comment at the top of fatbin.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "format/fatbin.h"

static uint8_t fb[4096];
static size_t fb_n;

static void put(size_t off, uint64_t v, unsigned size)
{
	unsigned i;

	for (i = 0; i < size; i++)
		fb[off + i] = (uint8_t)(v >> (8 * i));
}

static size_t cont_at; /* start of the container being written */

static void container_begin(void)
{
	cont_at = fb_n;
	put(fb_n, FATBIN_MAGIC, 4);
	put(fb_n + 4, 1, 2);
	put(fb_n + 6, 16, 2);
	fb_n += 16;
}

static void container_end(void)
{
	put(cont_at + 8, fb_n - cont_at - 16, 8);
}

/* An entry with a payload of plen bytes (not read by the walker). */
static void entry(uint16_t kind, uint32_t arch, uint64_t flags, uint32_t hsize, uint64_t plen)
{
	memset(fb + fb_n, 0, hsize + plen);
	put(fb_n, kind, 2);
	put(fb_n + 2, 0x0101, 2);
	put(fb_n + 4, hsize, 4);
	put(fb_n + 8, plen, 8);
	put(fb_n + 24, 8, 2);
	put(fb_n + 26, 1, 2);
	put(fb_n + 28, arch, 4);
	put(fb_n + 40, flags, 8);
	memset(fb + fb_n + hsize, 0xA5, plen); /* junk that must never be parsed */
	fb_n += hsize + plen;
}

#define LNX (FATBIN_FLAG_64BIT | FATBIN_FLAG_LINUX)

static void build_two(void)
{
	memset(fb, 0, sizeof(fb));
	fb_n = 0;
	container_begin();
	entry(FATBIN_KIND_ELF, 100, LNX | FATBIN_FLAG_FAMILY | 0x1000000, 112, 40);
	entry(FATBIN_KIND_ELF, 80, LNX, 64, 24);
	entry(FATBIN_KIND_PTX, 90, LNX | FATBIN_FLAG_COMPRESS_ZSTD, 80, 16);
	entry(FATBIN_KIND_ELF, 80, LNX, 64, 8); /* a duplicate arch */
	container_end();
	fb_n += 8; /* alignment padding between containers */
	container_begin();
	entry(FATBIN_KIND_ELF, 90, LNX | FATBIN_FLAG_ARCH_SPECIFIC, 64, 32);
	entry(FATBIN_KIND_LTOIR, 80, LNX, 120, 16);
	entry(0x40, 75, LNX, 64, 8); /* an unknown kind is counted, not listed */
	entry(FATBIN_KIND_PTX, 90, LNX | FATBIN_FLAG_ARCH_SPECIFIC | FATBIN_FLAG_COMPRESS_LZ4, 64,
	      8);
	container_end();
}

static void names(const uint32_t *keys, size_t n, int kind, char *out, size_t cap)
{
	char one[32];
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < n && len < cap; i++) {
		fatbin_arch_name(kind, keys[i], one, sizeof(one));
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? " " : "", one);
	}
}

static void summary(void **state)
{
	struct fatbin_summary s;
	char txt[256];

	(void)state;
	build_two();
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), 0);
	assert_int_equal(s.containers, 2);
	assert_int_equal(s.entries, 8);
	assert_int_equal(s.sass_entries, 4);
	assert_int_equal(s.ptx_entries, 2);
	assert_int_equal(s.lto_entries, 1);
	assert_int_equal(s.other_entries, 1);
	assert_int_equal(s.compressed_entries, 2);
	assert_int_equal(s.gap_bytes, 8);
	assert_false(s.partial);
	names(s.sass, s.n_sass, FATBIN_KIND_ELF, txt, sizeof(txt));
	assert_string_equal(txt, "sm_80 sm_90a sm_100f");
	names(s.ptx, s.n_ptx, FATBIN_KIND_PTX, txt, sizeof(txt));
	assert_string_equal(txt, "compute_90 compute_90a");
	names(s.lto, s.n_lto, FATBIN_KIND_LTOIR, txt, sizeof(txt));
	assert_string_equal(txt, "lto_80");
}

static int stop_at_third(const struct fatbin_entry *e, void *ctx)
{
	int *n = ctx;

	assert_true(e->header_size >= FATBIN_ENTRY_MIN);
	return ++*n == 3 ? 42 : 0;
}

static void callback(void **state)
{
	int n = 0;

	(void)state;
	build_two();
	assert_int_equal(fatbin_walk(fb, fb_n, stop_at_third, &n, NULL, NULL), 42);
	assert_int_equal(n, 3);
}

static void lying_sizes(void **state)
{
	struct fatbin_summary s;
	struct cd_err err = {0};
	size_t second;

	(void)state;
	/* Container size past the end: CD_ERANGE, the first container kept. */
	build_two();
	second = cont_at;
	put(second + 8, 1u << 20, 8);
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, &err), CD_ERANGE);
	assert_true(s.partial);
	assert_int_equal(s.containers, 1);
	assert_int_equal(s.n_sass, 2);
	assert_non_null(strstr(err.msg, "exceed"));
	/* Truncated buffer: the same. */
	build_two();
	assert_int_equal(fatbin_summarize(fb, fb_n - 1, &s, NULL), CD_ERANGE);
	assert_int_equal(s.containers, 1);
	/* Entry header size 0 (and < 64): refused, no endless loop. */
	build_two();
	put(16 + 4, 0, 4);
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), CD_EFORMAT);
	put(16 + 4, 63, 4);
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), CD_EFORMAT);
	/* Entry header size larger than its container. */
	put(16 + 4, 0xffffffffu, 4);
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), CD_EFORMAT);
	/* Payload size that runs past the container (and would overflow). */
	build_two();
	put(16 + 8, UINT64_MAX - 10, 8);
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), CD_ERANGE);
	/* Container header size below 16. */
	build_two();
	put(6, 8, 2);
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), CD_ERANGE);
	/* Huge fat size that overflows an addition. */
	build_two();
	put(8, UINT64_MAX, 8);
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), CD_ERANGE);
}

static void empty_and_junk(void **state)
{
	struct fatbin_summary s;
	static const uint8_t zeros[64];

	(void)state;
	assert_int_equal(fatbin_summarize(zeros, 0, &s, NULL), 0);
	assert_int_equal(s.containers, 0);
	assert_int_equal(fatbin_summarize(zeros, sizeof(zeros), &s, NULL), 0);
	assert_int_equal(s.containers, 0);
	assert_int_equal(s.gap_bytes, sizeof(zeros));
	/* A container with no entries. */
	memset(fb, 0, sizeof(fb));
	fb_n = 0;
	container_begin();
	container_end();
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), 0);
	assert_int_equal(s.containers, 1);
	assert_int_equal(s.entries, 0);
}

/* More distinct archs than the set holds: the walk still ends cleanly. */
static void many_archs(void **state)
{
	struct fatbin_summary s;
	uint32_t a;

	(void)state;
	memset(fb, 0, sizeof(fb));
	fb_n = 0;
	container_begin();
	for (a = 0; a < 60; a++)
		entry(FATBIN_KIND_ELF, 200 - a, LNX, 64, 0);
	container_end();
	assert_int_equal(fatbin_summarize(fb, fb_n, &s, NULL), 0);
	assert_int_equal(s.n_sass, 60);
	assert_int_equal(s.sass[0], FATBIN_KEY(141, 0));
	assert_int_equal(s.sass[59], FATBIN_KEY(200, 0));
}

/* Containers inside other data: found at any offset, junk and near misses
 * (right magic, bad sizes) skipped, results added to the summary. */
static void scan_data(void **state)
{
	static uint8_t data[8192];
	struct fatbin_summary s;
	size_t at = 0;
	char txt[128];

	(void)state;
	memset(data, 0x11, sizeof(data));
	/* a near miss: magic, then a size running past the end */
	memcpy(data + 5, "\x50\xed\x55\xba\x01\x00\x10\x00\xff\xff\xff\xff\x00\x00\x00\x00", 16);
	/* a near miss: magic with version 2 */
	memcpy(data + 40, "\x50\xed\x55\xba\x02\x00\x10\x00", 8);
	build_two();
	at = 101; /* unaligned */
	memcpy(data + at, fb, fb_n);
	/* the same again right after, to check the scan resumes after a container */
	memcpy(data + at + fb_n + 3, fb, fb_n);
	memset(&s, 0, sizeof(s));
	assert_int_equal(fatbin_scan(data, sizeof(data), NULL, NULL, &s), 4);
	assert_int_equal(s.containers, 4);
	assert_int_equal(s.entries, 16);
	names(s.sass, s.n_sass, FATBIN_KIND_ELF, txt, sizeof(txt));
	assert_string_equal(txt, "sm_80 sm_90a sm_100f");
	/* A container whose last entry lies is not counted at all. */
	put(cont_at + 16 + 8, 1u << 20, 8); /* (in fb) second container, first entry */
	memcpy(data + at, fb, fb_n);
	memset(data + at + fb_n, 0x11, sizeof(data) - at - fb_n);
	memset(&s, 0, sizeof(s));
	assert_int_equal(fatbin_scan(data, sizeof(data), NULL, NULL, &s), 1);
	assert_int_equal(s.entries, 4);
	/* Nothing in a short or empty buffer. */
	assert_int_equal(fatbin_scan(data, 10, NULL, NULL, &s), 0);
	assert_int_equal(fatbin_scan(data, 0, NULL, NULL, &s), 0);
}

/* The scan in windows of any size from 4 bytes finds what one scan finds,
 * each step moves on, and a window before the position does nothing. */
static void scan_windows(void **state)
{
	static uint8_t data[8192];
	static const uint64_t widths[] = {4, 5, 16, 17, 100, 1000, 8192, 100000};
	struct fatbin_summary whole, s;
	struct fatbin_scanner sc;
	uint64_t found, prev;
	size_t at = 101, k;

	(void)state;
	memset(data, 0x11, sizeof(data));
	memcpy(data + 40, "\x50\xed\x55\xba\x02\x00\x10\x00", 8);
	build_two();
	memcpy(data + at, fb, fb_n);
	memcpy(data + at + fb_n + 3, fb, fb_n);
	memcpy(data + sizeof(data) - fb_n, fb, fb_n); /* ends the buffer */
	memset(&whole, 0, sizeof(whole));
	found = fatbin_scan(data, sizeof(data), NULL, NULL, &whole);
	assert_int_equal(found, 6);
	for (k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
		memset(&s, 0, sizeof(s));
		fatbin_scan_init(&sc);
		while (sc.off < sizeof(data) && !sc.stopped) {
			prev = sc.off;
			fatbin_scan_step(&sc, data, sizeof(data), sc.off + widths[k], NULL, NULL,
					 &s);
			assert_true(sc.stopped || sc.off > prev);
		}
		assert_int_equal(sc.found, found);
		assert_memory_equal(&s, &whole, sizeof(s));
	}
	prev = sc.off;
	fatbin_scan_step(&sc, data, sizeof(data), 10, NULL, NULL, &s);
	assert_int_equal(sc.off, prev);
}

static void merge(void **state)
{
	struct fatbin_summary a, b;
	char txt[128];

	(void)state;
	build_two();
	assert_int_equal(fatbin_summarize(fb, fb_n, &a, NULL), 0);
	memset(fb, 0, sizeof(fb));
	fb_n = 0;
	container_begin();
	entry(FATBIN_KIND_ELF, 87, LNX, 64, 8);
	entry(FATBIN_KIND_PTX, 75, LNX, 64, 8);
	container_end();
	assert_int_equal(fatbin_summarize(fb, fb_n, &b, NULL), 0);
	fatbin_summary_merge(&a, &b);
	assert_int_equal(a.containers, 3);
	assert_int_equal(a.entries, 10);
	names(a.sass, a.n_sass, FATBIN_KIND_ELF, txt, sizeof(txt));
	assert_string_equal(txt, "sm_80 sm_87 sm_90a sm_100f");
	names(a.ptx, a.n_ptx, FATBIN_KIND_PTX, txt, sizeof(txt));
	assert_string_equal(txt, "compute_75 compute_90 compute_90a");
}

/* The stream walk finds what fatbin_summarize finds, whatever the chunk
 * sizes, after junk that looks like a container and is not. */
static void stream(void **state)
{
	static uint8_t big[8192];
	struct fatbin_summary want;
	struct fatbin_stream st;
	size_t chunk, off, at = 64, i;
	char a[256], b[256];

	(void)state;
	build_two();
	assert_int_equal(fatbin_summarize(fb, fb_n, &want, NULL), 0);
	memset(big, 0x5a, sizeof(big));
	/* at 8: the magic with version 2; at 32: a container whose first entry
	 * has a 16-byte header; both must be passed over */
	memcpy(big + 8, "\x50\xed\x55\xba\x02\x00\x10\x00", 8);
	memcpy(big + 32, "\x50\xed\x55\xba\x01\x00\x10\x00\x00\x01\x00\x00\x00\x00\x00\x00", 16);
	memset(big + 48, 0, 16);
	big[48 + 4] = 16;
	memcpy(big + at, fb, fb_n);
	memcpy(big + at + fb_n + 16, fb, fb_n); /* the same again after a gap */
	for (chunk = 1; chunk <= 4096; chunk = chunk * 3 + 1) {
		fatbin_stream_init(&st);
		for (off = 0; off < sizeof(big); off += chunk)
			fatbin_stream_feed(&st, big + off,
					   off + chunk <= sizeof(big) ? chunk : sizeof(big) - off);
		fatbin_stream_end(&st);
		assert_int_equal(st.sum.containers, 4);
		assert_int_equal(st.sum.entries, 2 * want.entries);
		assert_false(st.sum.partial);
		names(st.sum.sass, st.sum.n_sass, FATBIN_KIND_ELF, a, sizeof(a));
		names(want.sass, want.n_sass, FATBIN_KIND_ELF, b, sizeof(b));
		assert_string_equal(a, b);
		names(st.sum.ptx, st.sum.n_ptx, FATBIN_KIND_PTX, a, sizeof(a));
		names(want.ptx, want.n_ptx, FATBIN_KIND_PTX, b, sizeof(b));
		assert_string_equal(a, b);
	}
	/* a stream that ends inside a container keeps what it read */
	fatbin_stream_init(&st);
	fatbin_stream_feed(&st, big, at + 100);
	fatbin_stream_end(&st);
	assert_true(st.sum.partial);
	assert_int_equal(st.sum.containers, 1);
	for (i = 0; i < sizeof(big); i++) /* junk only: nothing, and no crash */
		big[i] = (uint8_t)(i * 131 + 7);
	fatbin_stream_init(&st);
	fatbin_stream_feed(&st, big, sizeof(big));
	fatbin_stream_end(&st);
	assert_int_equal(st.sum.entries, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summary),	cmocka_unit_test(callback),
		cmocka_unit_test(lying_sizes),	cmocka_unit_test(empty_and_junk),
		cmocka_unit_test(many_archs),	cmocka_unit_test(scan_data),
		cmocka_unit_test(scan_windows), cmocka_unit_test(merge),
		cmocka_unit_test(stream),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
