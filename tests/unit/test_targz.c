/* Unit tests for src/format/targz: ustar headers field by field (checksum,
 * octal sizes, the name split into prefix and name), and whole archives
 * inflated back with zlib and walked as tar does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/buf.h"
#include "core/err.h"
#include "format/targz.h"

static unsigned checksum(const uint8_t *h)
{
	unsigned sum = 0;
	size_t i;

	for (i = 0; i < TAR_BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return sum;
}

static uint64_t octal_field(const uint8_t *f, size_t w)
{
	char tmp[24] = {0};

	memcpy(tmp, f, w);
	return strtoull(tmp, NULL, 8);
}

static void header_fields(void **state)
{
	uint8_t h[TAR_BLOCK];

	(void)state;
	assert_int_equal(targz_header(h, "b/README.txt", 1234, 1700000000, '0'), 0);
	assert_string_equal((const char *)h, "b/README.txt");
	assert_memory_equal(h + 100, "0000644", 8);
	assert_memory_equal(h + 108, "0000000", 8);
	assert_int_equal(octal_field(h + 124, 12), 1234);
	assert_int_equal(octal_field(h + 136, 12), 1700000000);
	assert_int_equal(h[156], '0');
	assert_memory_equal(h + 257,
			    "ustar\0"
			    "00",
			    8);
	assert_int_equal(octal_field(h + 148, 7), checksum(h));
	assert_int_equal(h[154], '\0');
	assert_int_equal(h[155], ' ');
	assert_int_equal(h[265], '\0'); /* no user name */
	assert_int_equal(h[297], '\0'); /* no group name */
	assert_int_equal(targz_header(h, "d/", 0, 0, '5'), 0);
	assert_memory_equal(h + 100, "0000755", 8);
}

static void long_names_split_or_fail(void **state)
{
	uint8_t h[TAR_BLOCK];
	char name[400];

	(void)state;
	memset(name, 'p', 150);
	name[150] = '/';
	memset(name + 151, 'n', 99);
	name[250] = '\0';
	assert_int_equal(targz_header(h, name, 1, 0, '0'), 0);
	assert_int_equal(strnlen((const char *)h, 100), 99);
	assert_int_equal(strnlen((const char *)h + 345, 155), 150);
	memset(name, 'x', 300);
	name[300] = '\0';
	assert_int_equal(targz_header(h, name, 1, 0, '0'), CD_EFORMAT); /* no '/' to split at */
	assert_int_equal(targz_header(h, "", 1, 0, '0'), CD_EFORMAT);
	assert_int_equal(targz_header(h, "a", 1ULL << 40, 0, '0'), CD_EFORMAT);
}

static int to_buf(void *ctx, const uint8_t *p, size_t n)
{
	return buf_append(ctx, p, n);
}

static int fail_sink(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx, (void)p, (void)n;
	return CD_EIO;
}

static void inflate_all(const struct cd_buf *gz, struct cd_buf *tar)
{
	z_stream z = {0};
	uint8_t out[4096];
	int zr;

	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (Bytef *)gz->p;
	z.avail_in = (uInt)gz->len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = inflate(&z, Z_NO_FLUSH);
		assert_true(zr == Z_OK || zr == Z_STREAM_END);
		assert_int_equal(buf_append(tar, out, sizeof(out) - z.avail_out), 0);
	} while (zr != Z_STREAM_END);
	assert_int_equal(z.avail_in, 0); /* one gzip member, nothing after it */
	inflateEnd(&z);
}

static void archive_round_trip(void **state)
{
	struct cd_buf gz, tar;
	struct targz *t = malloc(sizeof(*t));
	struct cd_err err = {0};
	char *big = malloc(100000);
	const uint8_t *h;
	size_t off;

	(void)state;
	assert_non_null(t);
	assert_non_null(big);
	memset(big, 'z', 100000);
	buf_init(&gz, 0);
	buf_init(&tar, 0);
	assert_int_equal(targz_open(t, to_buf, &gz, 1700000000, &err), 0);
	assert_int_equal(targz_dir(t, "b", &err), 0);
	assert_int_equal(targz_add(t, "b/one.txt", "hello\n", 6, &err), 0);
	assert_int_equal(targz_add(t, "b/empty", "", 0, &err), 0);
	assert_int_equal(targz_add(t, "b/big", big, 100000, &err), 0);
	assert_int_equal(targz_close(t, &err), 0);
	assert_int_equal(t->members, 4);
	assert_true(gz.len < 2000); /* deflate, not stored blocks */
	assert_int_equal((uint8_t)gz.p[0], 0x1f);
	assert_int_equal((uint8_t)gz.p[1], 0x8b);
	assert_int_equal(gz.p[3] & 0x08, 0); /* no file name in the gzip header */
	inflate_all(&gz, &tar);
	assert_int_equal(tar.len % TAR_BLOCK, 0);
	h = (const uint8_t *)tar.p;
	assert_string_equal((const char *)h, "b/");
	assert_int_equal(h[156], '5');
	off = TAR_BLOCK;
	assert_string_equal((const char *)tar.p + off, "b/one.txt");
	assert_int_equal(octal_field((const uint8_t *)tar.p + off + 148, 7),
			 checksum((const uint8_t *)tar.p + off));
	assert_memory_equal(tar.p + off + TAR_BLOCK, "hello\n\0", 7);
	off += 2 * TAR_BLOCK;
	assert_string_equal((const char *)tar.p + off, "b/empty");
	off += TAR_BLOCK;
	assert_string_equal((const char *)tar.p + off, "b/big");
	off += TAR_BLOCK + (100000 + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	assert_int_equal(tar.len, off + 2 * TAR_BLOCK); /* the two zero blocks at the end */
	buf_free(&gz);
	buf_free(&tar);
	free(big);
	free(t);
}

static void a_failing_sink_stops_the_archive(void **state)
{
	struct targz *t = malloc(sizeof(*t));
	struct cd_err err = {0};
	char *big = malloc(1 << 20);
	size_t i;
	int rc;

	(void)state;
	assert_non_null(t);
	assert_non_null(big);
	for (i = 0; i < (1 << 20); i++)
		big[i] = (char)(i * 2654435761u >> 13); /* does not compress */
	assert_int_equal(targz_open(t, fail_sink, NULL, 0, &err), 0);
	rc = targz_add(t, "x", big, 1 << 20, &err);
	if (!rc)
		rc = targz_close(t, &err);
	assert_int_equal(rc, CD_EIO);
	targz_abort(t);
	assert_int_equal(targz_add(t, "y", "", 0, &err), CD_EINTERNAL);
	free(big);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_fields),
		cmocka_unit_test(long_names_split_or_fail),
		cmocka_unit_test(archive_round_trip),
		cmocka_unit_test(a_failing_sink_stops_the_archive),
	};
	return cmocka_run_group_tests_name("targz", tests, NULL, NULL);
}
