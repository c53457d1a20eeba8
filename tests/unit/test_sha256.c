/* Unit tests for core/sha256: the FIPS 180-4 example vectors, in one call and
 * split across updates at every block boundary. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"

static void vectors(void **state)
{
	char hex[SHA256_HEX];

	(void)state;
	sha256_hex("", 0, hex);
	assert_string_equal(hex,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, hex);
	assert_string_equal(hex,
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void million_a_split(void **state)
{
	static const char want[] =
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
	char *a = malloc(1000000);
	uint8_t d[SHA256_DIGEST];
	char hex[SHA256_HEX];
	struct sha256 s;
	size_t off = 0, step = 1, i;

	(void)state;
	assert_non_null(a);
	memset(a, 'a', 1000000);
	sha256_hex(a, 1000000, hex);
	assert_string_equal(hex, want);
	/* Uneven pieces cross every position in a block. */
	sha256_init(&s);
	while (off < 1000000) {
		size_t n = step < 1000000 - off ? step : 1000000 - off;
		sha256_update(&s, a + off, n);
		off += n;
		step = step % 131 + 7;
	}
	sha256_final(&s, d);
	for (i = 0; i < SHA256_DIGEST; i++) {
		static const char hx[] = "0123456789abcdef";
		assert_int_equal(hx[d[i] >> 4], want[2 * i]);
		assert_int_equal(hx[d[i] & 15], want[2 * i + 1]);
	}
	free(a);
}

static void lengths_near_padding(void **state)
{
	/* 55, 56 and 64 bytes: one or two padding blocks. */
	static const char *const want[] = {
		"9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
		"b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
		"ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"};
	static const size_t len[] = {55, 56, 64};
	char buf[64], hex[SHA256_HEX];
	size_t i;

	(void)state;
	memset(buf, 'a', sizeof(buf));
	for (i = 0; i < 3; i++) {
		sha256_hex(buf, len[i], hex);
		assert_string_equal(hex, want[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(vectors),
					   cmocka_unit_test(million_a_split),
					   cmocka_unit_test(lengths_near_padding)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
