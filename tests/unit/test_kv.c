/* Unit tests for src/format/kv: encoding, decoding, and every way a line can
 * be malformed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/kv.h"

static void roundtrip(const char *key, const char *val)
{
	char line[4096], k[KV_KEY_MAX], v[KV_VAL_MAX];
	struct kv_reader r;
	size_t n = kv_encode(line, sizeof(line), key, val);

	assert_true(n > 0);
	assert_int_equal(strlen(line), n);
	assert_int_equal(line[n - 1], '\n');
	assert_null(memchr(line, '\n', n - 1)); /* one line, whatever the value */
	kv_reader_init(&r, (const uint8_t *)line, n);
	assert_int_equal(kv_next(&r, k, v), 1);
	assert_string_equal(k, key);
	assert_string_equal(v, val);
	assert_int_equal(kv_next(&r, k, v), 0);
}

static void kv_roundtrips(void **state)
{
	(void)state;
	roundtrip("driver_version", "580.159.04");
	roundtrip("gpu.0.name", "NVIDIA H200");
	roundtrip("empty", "");
	roundtrip("esc", "a\\b\nc=d\te\x01\x7f\xc3\xa9");
	roundtrip("K-9_x.y", "  leading and trailing  ");
}

static void kv_encode_limits(void **state)
{
	char line[32], big[2048];

	(void)state;
	assert_int_equal(kv_encode(line, sizeof(line), "", "v"), 0);
	assert_int_equal(kv_encode(line, sizeof(line), "a=b", "v"), 0);
	assert_int_equal(kv_encode(line, sizeof(line), "a b", "v"), 0);
	memset(big, 'k', 64);
	big[64] = '\0';
	assert_int_equal(kv_encode(line, sizeof(line), big, "v"), 0); /* key too long */
	memset(big, 'v', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(kv_encode(line, sizeof(line), "k", big), 0); /* does not fit */
	assert_int_equal(kv_encode(line, 4, "k", ""), 3);
	assert_string_equal(line, "k=\n");
}

static int next(struct kv_reader *r, char *k, char *v)
{
	return kv_next(r, k, v);
}

static void kv_malformed(void **state)
{
	static const char in[] = "good=1\n"
				 "noequals\n"
				 "=empty key\n"
				 "bad key=1\n"
				 "esc=\\q\n"
				 "nul=a\\x00b\n"
				 "hex=\\x4\n"
				 "hex2=\\xzz\n"
				 "raw=\x01\n"
				 "trail=\\\n"
				 "ok2=\\x41\\n\\\\\n"
				 "cut=unterminated";
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	struct kv_reader r;
	int i;

	(void)state;
	kv_reader_init(&r, (const uint8_t *)in, sizeof(in) - 1);
	assert_int_equal(next(&r, k, v), 1);
	assert_string_equal(k, "good");
	for (i = 0; i < 9; i++) {
		assert_int_equal(next(&r, k, v), CD_EFORMAT);
		assert_string_equal(k, "");
	}
	assert_int_equal(next(&r, k, v), 1);
	assert_string_equal(k, "ok2");
	assert_string_equal(v, "A\n\\");
	assert_int_equal(next(&r, k, v), CD_EFORMAT); /* unterminated last line */
	assert_int_equal(next(&r, k, v), 0);
	assert_int_equal(r.records, 2);
	assert_int_equal(r.bad, 10);
}

static void kv_long_lines(void **state)
{
	static uint8_t in[KV_LINE_MAX * 2];
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	struct kv_reader r;
	size_t n;

	(void)state;
	/* A value that decodes to more than KV_VAL_MAX - 1 bytes is rejected... */
	n = 0;
	in[n++] = 'k';
	in[n++] = '=';
	memset(in + n, 'a', KV_VAL_MAX);
	n += KV_VAL_MAX;
	in[n++] = '\n';
	/* ...and so is a key of 64 bytes. */
	memset(in + n, 'k', KV_KEY_MAX);
	n += KV_KEY_MAX;
	in[n++] = '=';
	in[n++] = '\n';
	/* The longest value that fits. */
	in[n++] = 'k';
	in[n++] = '=';
	memset(in + n, 'b', KV_VAL_MAX - 1);
	n += KV_VAL_MAX - 1;
	in[n++] = '\n';
	kv_reader_init(&r, in, n);
	assert_int_equal(kv_next(&r, k, v), CD_EFORMAT);
	assert_int_equal(kv_next(&r, k, v), CD_EFORMAT);
	assert_int_equal(kv_next(&r, k, v), 1);
	assert_int_equal(strlen(v), KV_VAL_MAX - 1);
	assert_int_equal(kv_next(&r, k, v), 0);
	/* Empty input. */
	kv_reader_init(&r, in, 0);
	assert_int_equal(kv_next(&r, k, v), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kv_roundtrips),
		cmocka_unit_test(kv_encode_limits),
		cmocka_unit_test(kv_malformed),
		cmocka_unit_test(kv_long_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
