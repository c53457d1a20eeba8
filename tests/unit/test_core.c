/* Unit tests for src/core: span, buf, arena, str, file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/fmap.h"
#include "core/fsutil.h"
#include "core/span.h"
#include "core/str.h"
#include "core/vec.h"

static void span_bounds(void **state)
{
	const uint8_t b[] = {1, 2, 3, 4, 5, 6, 7, 8, 'a', 0};
	struct cd_span s = {b, sizeof(b)};
	uint32_t v32;
	uint64_t v64;
	const char *str;
	size_t len;

	(void)state;
	assert_true(span_ok(10, 0, 10));
	assert_false(span_ok(10, 1, 10));
	assert_false(span_ok(10, UINT64_MAX, 1));
	assert_false(span_ok(10, 1, UINT64_MAX));
	assert_int_equal(span_u32(s, 0, 0, &v32), 0);
	assert_int_equal(v32, 0x04030201);
	assert_int_equal(span_u32(s, 0, 1, &v32), 0);
	assert_int_equal(v32, 0x01020304);
	assert_int_equal(span_u64(s, 2, 0, &v64), 0);
	assert_int_equal(span_u64(s, 3, 0, &v64), CD_ERANGE);
	assert_int_equal(span_cstr(s, 8, &str, &len), 0);
	assert_string_equal(str, "a");
	assert_int_equal(len, 1);
	/* A string whose NUL is outside the span is rejected. */
	s.n = 9;
	assert_int_equal(span_cstr(s, 8, &str, &len), CD_ERANGE);
}

/* The one integer reader: both byte orders, every width, 0 outside. */
static void span_reader(void **state)
{
	const uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09};
	struct cd_span s = {b, sizeof(b)};

	(void)state;
	assert_int_equal(span_uint(s, 0, 1, 0), 0x01);
	assert_int_equal(span_uint(s, 1, 2, 0), 0x0302);
	assert_int_equal(span_uint(s, 1, 2, 1), 0x0203);
	assert_int_equal(span_uint(s, 0, 3, 0), 0x030201);
	assert_int_equal(span_uint(s, 1, 8, 0), 0x0908070605040302ULL);
	assert_int_equal(span_uint(s, 1, 8, 1), 0x0203040506070809ULL);
	assert_int_equal(span_uint(s, 2, 8, 0), 0);	     /* one byte past the end */
	assert_int_equal(span_uint(s, UINT64_MAX, 1, 0), 0); /* no wrap-around */
	assert_int_equal(span_uint(s, 0, 9, 0), 0);	     /* wider than 64 bits */
	assert_int_equal(span_uint(s, 0, 0, 0), 0);
	assert_int_equal(span_le0(b, sizeof(b), 5, 4), 0x09080706);
	assert_int_equal(span_le0(b, 4, 1, 4), 0);
}

/* The one growable array: doubling from VEC_FIRST, the cap, overflow, both
 * storages; a failed growth leaves the array as it was. */
static void vec_growth(void **state)
{
	struct cd_arena a;
	struct cd_vec v;
	uint32_t *x, *p = NULL, *g;
	size_t cap = 0, i;

	(void)state;
	vec_init(&v, sizeof(uint32_t), 0, 40, NULL);
	for (i = 0; i < 40; i++) {
		x = vec_push(&v);
		assert_non_null(x);
		assert_int_equal(*x, 0);
		*x = (uint32_t)i;
	}
	assert_int_equal(v.n, 40);
	assert_int_equal(v.cap, 40); /* 16, 32, then the cap */
	assert_null(vec_push(&v));
	assert_int_equal(v.n, 40);
	assert_int_equal(((uint32_t *)v.p)[39], 39);
	vec_free(&v);
	assert_null(v.p);

	arena_init(&a);
	for (i = 0; i < 100; i++) {
		g = vec_grow(&a, p, &cap, i, sizeof(*p), 0, 0);
		assert_non_null(g);
		p = g;
		p[i] = (uint32_t)i * 3;
	}
	assert_int_equal(cap, 128);
	for (i = 0; i < 100; i++)
		assert_int_equal(p[i], i * 3);
	/* n * size would not fit in size_t: refused, nothing changed. */
	cap = 4;
	assert_null(vec_grow(&a, p, &cap, SIZE_MAX / 8, 8, 0, 0));
	assert_null(vec_grow(&a, p, &cap, 4, SIZE_MAX / 2, 0, 0));
	assert_int_equal(cap, 4);
	assert_null(vec_grow(&a, p, &cap, 4, 0, 0, 0));
	assert_ptr_equal(vec_grow(&a, p, &cap, 3, sizeof(*p), 0, 0), p); /* room already */
	/* A first size of the caller's, then doubling, the cap still the cap. */
	p = NULL;
	cap = 0;
	p = vec_grow(&a, p, &cap, 0, sizeof(*p), 100, 150);
	assert_non_null(p);
	assert_int_equal(cap, 100);
	p = vec_grow(&a, p, &cap, 100, sizeof(*p), 100, 150);
	assert_non_null(p);
	assert_int_equal(cap, 150);
	assert_null(vec_grow(&a, p, &cap, 150, sizeof(*p), 100, 150));
	arena_free(&a);
}

/* The one path join: the root, trailing slashes, the current directory, and
 * the buffer and arena forms agree. */
static void path_join(void **state)
{
	static const struct {
		const char *dir, *name, *want;
	} v[] = {
		{"/usr/lib", "libc.so.6", "/usr/lib/libc.so.6"},
		{"/usr/lib/", "libc.so.6", "/usr/lib/libc.so.6"},
		{"/usr/lib//", "x", "/usr/lib/x"},
		{"/", "etc", "/etc"},
		{"///", "etc", "/etc"},
		{"", "libfoo.so", "libfoo.so"}, /* an empty RUNPATH entry: the current directory */
		{"lib", "x/y", "lib/x/y"},
	};
	struct cd_arena a;
	char out[64], small[8];
	size_t i;

	(void)state;
	arena_init(&a);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		assert_int_equal(fsu_join(out, sizeof(out), v[i].dir, v[i].name), 0);
		assert_string_equal(out, v[i].want);
		assert_string_equal(fsu_path(&a, v[i].dir, v[i].name), v[i].want);
	}
	assert_int_equal(fsu_join(small, sizeof(small), "/usr/lib", "libc.so.6"), CD_ERANGE);
	assert_null(fsu_path(&a, NULL, "x"));
	assert_null(fsu_path(&a, "/", NULL));
	arena_free(&a);
}

/* The one line splitter: "\n" and "\r\n" ends, a last line without one,
 * empty lines. */
static void span_lines(void **state)
{
	const char *t = "a\r\n\nbc\rd\nlast";
	struct cd_span l;
	size_t pos = 0, n = strlen(t);

	(void)state;
	assert_int_equal(span_line((const uint8_t *)t, n, &pos, 1, &l), 1);
	assert_int_equal(l.n, 1);
	assert_memory_equal(l.p, "a", 1);
	assert_int_equal(span_line((const uint8_t *)t, n, &pos, 1, &l), 1);
	assert_int_equal(l.n, 0);
	assert_int_equal(span_line((const uint8_t *)t, n, &pos, 1, &l), 1);
	assert_int_equal(l.n, 4); /* a '\r' inside a line stays */
	assert_memory_equal(l.p, "bc\rd", 4);
	assert_int_equal(span_line((const uint8_t *)t, n, &pos, 1, &l), 2);
	assert_memory_equal(l.p, "last", 4);
	assert_int_equal(pos, n);
	assert_int_equal(span_line((const uint8_t *)t, n, &pos, 1, &l), 0);
	pos = 0;
	assert_int_equal(span_line((const uint8_t *)t, n, &pos, 0, &l), 1);
	assert_int_equal(l.n, 2); /* without crlf the '\r' is kept */
}

static void buf_cap(void **state)
{
	struct cd_buf b;

	(void)state;
	buf_init(&b, 8);
	assert_int_equal(buf_puts(&b, "12345678"), 0);
	assert_string_equal(b.p, "12345678");
	assert_int_equal(buf_putc(&b, 'x'), CD_ENOMEM);
	assert_int_equal(b.len, 8);
	buf_free(&b);
	buf_init(&b, 0);
	assert_int_equal(buf_printf(&b, "%d-%s", 42, "x"), 0);
	assert_string_equal(b.p, "42-x");
	buf_free(&b);
}

static void arena_basic(void **state)
{
	struct cd_arena a;
	char *s;
	int i;

	(void)state;
	arena_init(&a);
	for (i = 0; i < 10000; i++)
		assert_non_null(arena_alloc(&a, 100));
	s = arena_printf(&a, "%s/%d", "x", 7);
	assert_string_equal(s, "x/7");
	assert_null(arena_calloc(&a, SIZE_MAX / 2, 4));
	assert_null(arena_strdup(&a, NULL));
	a.max_total = a.used_total + 16;
	assert_null(arena_alloc(&a, 64));
	arena_free(&a);
}

static void versions(void **state)
{
	char out[16];
	int v;

	(void)state;
	assert_true(ver_cmp("580.159.04", "580.65.06") > 0);
	assert_true(ver_cmp("12.10", "12.9") > 0);
	assert_int_equal(ver_cmp("13.0", "13.0.0"), 0);
	assert_true(ver_cmp("2.11.0+cu130", "2.2") > 0);
	assert_int_equal(ver_cuda_int("13.0"), 13000);
	assert_int_equal(ver_cuda_int("12.4.1"), 12040);
	assert_int_equal(ver_cuda_int("x"), -1);
	ver_cuda_str(12080, out, sizeof(out));
	assert_string_equal(out, "12.8");
	assert_int_equal(str_to_int("12", 0, 100, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(str_to_int("12x", 0, 100, &v), CD_EFORMAT);
	assert_int_equal(str_to_int("1000", 0, 100, &v), CD_ERANGE);
	assert_int_equal(str_copy(out, 4, "abcdef"), 6);
	assert_string_equal(out, "abc");
}

/* A root with an absolute symlink must resolve inside the root, never on /. */
static void root_symlinks(void **state)
{
	char tmpl[] = "/tmp/cd-unit-XXXXXX", p[1024], host[2048];
	struct cd_root r;
	struct cd_buf b;
	struct cd_err err;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	snprintf(p, sizeof(p), "%s/usr/local/cuda-13.0", tmpl);
	assert_int_equal(system((snprintf(host, sizeof(host), "mkdir -p %s/bin", p), host)), 0);
	snprintf(p, sizeof(p), "%s/usr/local/cuda-13.0/version.txt", tmpl);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs("CUDA Version 13.0.88\n", fp);
	fclose(fp);
	snprintf(p, sizeof(p), "%s/usr/local/cuda", tmpl);
	assert_int_equal(symlink("/usr/local/cuda-13.0", p), 0);
	snprintf(p, sizeof(p), "%s/loop", tmpl);
	assert_int_equal(symlink("/loop", p), 0);

	assert_int_equal(root_init(&r, tmpl, &err), 0);
	buf_init(&b, 0);
	assert_int_equal(file_read(&r, "/usr/local/cuda/version.txt", 1024, &b, &err), 0);
	assert_string_equal(b.p, "CUDA Version 13.0.88\n");
	buf_free(&b);
	assert_int_equal(file_realpath(&r, "/usr/local/cuda/bin/../version.txt", p, sizeof(p)), 0);
	assert_string_equal(p, "/usr/local/cuda-13.0/version.txt");
	assert_true(file_is_dir(&r, "/usr/local/cuda/bin"));
	assert_false(file_exists(&r, "/loop/x"));
	assert_int_equal(root_host_path(&r, "/loop", host, sizeof(host)), CD_EFORMAT);
	/* The link itself: its parent resolved, the last component kept. */
	assert_int_equal(root_entry_path(&r, "/usr/local/cuda", host, sizeof(host)), 0);
	snprintf(p, sizeof(p), "%s/usr/local/cuda", tmpl);
	assert_string_equal(host, p);
	assert_int_equal(file_readlink(&r, "/usr/local/cuda", host, sizeof(host)), 0);
	assert_string_equal(host, "/usr/local/cuda-13.0");
	assert_int_equal(root_entry_path(&r, "/usr/local/cuda/bin", host, sizeof(host)), 0);
	snprintf(p, sizeof(p), "%s/usr/local/cuda-13.0/bin", tmpl);
	assert_string_equal(host, p);
	assert_int_equal(root_entry_path(&r, "/loop/x", host, sizeof(host)), CD_ENOENT);
	assert_int_equal(root_entry_path(&r, "/usr/local/cuda", host, 8), CD_ENOENT);
	assert_int_equal(root_entry_path(&r, "nothing", host, sizeof(host)), CD_ENOENT);
	assert_int_equal(root_init(&r, "/nonexistent-cd", &err), CD_ENOENT);
	snprintf(p, sizeof(p), "%s/usr/local/cuda-13.0/version.txt", tmpl);
	assert_int_equal(root_init(&r, p, &err), CD_EUSAGE);
	snprintf(host, sizeof(host), "rm -rf %s", tmpl);
	assert_int_equal(system(host), 0);
}

/* A sparse file: 4 KiB of 'A', a 1 MiB hole, 4 KiB of 'B'. fmap_data_run
 * skips the hole where the file system says where data is, never skips
 * data, and answers [off, n) without a kept descriptor; fmap_release leaves
 * the bytes readable. */
static void fmap_holes(void **state)
{
	char path[] = "/tmp/cd-unit-sparse-XXXXXX";
	static char blk[4096];
	const uint64_t second = (1u << 20) + 4096;
	struct cd_root r;
	struct cd_fmap m;
	uint64_t at, end, i;
	int fd, holes;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	memset(blk, 'A', sizeof(blk));
	assert_int_equal(pwrite(fd, blk, sizeof(blk), 0), (ssize_t)sizeof(blk));
	memset(blk, 'B', sizeof(blk));
	assert_int_equal(pwrite(fd, blk, sizeof(blk), (off_t)second), (ssize_t)sizeof(blk));
	holes = lseek(fd, 8192, SEEK_DATA) > 8192;
	close(fd);
	assert_int_equal(root_init(&r, NULL, NULL), 0);
	assert_int_equal(fmap_open_scan(&r, path, (size_t)1 << 30, &m, NULL), 0);
	assert_int_equal(m.n, second + 4096);
	fmap_data_run(&m, 100, &at, &end);
	assert_int_equal(at, 100);
	assert_true(end >= 4096 && end <= m.n);
	assert_true(!holes || end < second);
	fmap_data_run(&m, 8192, &at, &end);
	assert_true(at >= 8192 && at <= second && end == m.n);
	assert_true(!holes || at >= (1u << 20));
	for (i = 8192; i < at; i++) /* what was skipped reads as zeros */
		assert_int_equal(m.p[i], 0);
	fmap_data_run(&m, second + 10, &at, &end);
	assert_true(at == second + 10 && end == m.n);
	fmap_data_run(&m, m.n, &at, &end);
	assert_true(at == m.n && end == m.n);
	fmap_release(&m, m.p, m.p + m.n);
	assert_int_equal(m.p[0], 'A');
	assert_int_equal(m.p[second + 4095], 'B');
	fmap_close(&m);
	assert_int_equal(fmap_open(&r, path, (size_t)1 << 30, &m, NULL), 0);
	fmap_data_run(&m, 8192, &at, &end); /* no descriptor kept */
	assert_true(at == 8192 && end == m.n);
	fmap_close(&m);
	fmap_close(&m); /* closing twice is fine */
	unlink(path);
}

static void bytes_format(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(str_bytes(b, sizeof(b), 0), "0 B");
	assert_string_equal(str_bytes(b, sizeof(b), 1023), "1023 B");
	assert_string_equal(str_bytes(b, sizeof(b), 1024), "1 KiB");
	assert_string_equal(str_bytes(b, sizeof(b), 3277), "3.2 KiB");
	assert_string_equal(str_bytes(b, sizeof(b), (int64_t)64 << 20), "64 MiB");
	/* 1023.99 MiB rounds to one GiB, never to "1024.0 MiB" */
	assert_string_equal(str_bytes(b, sizeof(b), ((int64_t)1 << 30) - 10000), "1 GiB");
	assert_string_equal(str_bytes(b, sizeof(b), 150754820096LL), "140.4 GiB");
	assert_string_equal(str_bytes(b, sizeof(b), (int64_t)3 << 40), "3 TiB");
	assert_string_equal(str_bytes(b, sizeof(b), -1), "unknown");
	assert_string_equal(str_bytes(b, sizeof(b), INT64_MIN), "unknown");
	/* a short buffer: cut, always terminated */
	assert_int_equal(strlen(str_bytes(b, 4, (int64_t)64 << 20)), 3);
	assert_memory_equal(b, "64", 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(span_bounds),	 cmocka_unit_test(span_reader),
		cmocka_unit_test(span_lines),	 cmocka_unit_test(vec_growth),
		cmocka_unit_test(path_join),	 cmocka_unit_test(buf_cap),
		cmocka_unit_test(arena_basic),	 cmocka_unit_test(versions),
		cmocka_unit_test(root_symlinks), cmocka_unit_test(bytes_format),
		cmocka_unit_test(fmap_holes),
	};
	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
