/* Unit tests for src/format/safetensors and its JSON scanner: valid headers,
 * and every way a header can lie about its data. Buffers are built here byte by
 * byte: an 8-byte little-endian length, the JSON, and (virtually) the data,
 * whose size is passed as the file size. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "format/jscan.h"
#include "format/safetensors.h"

struct fx {
	uint8_t *p;
	size_t n;
	uint64_t file_size;
};

/* The header bytes of a file whose JSON is json and whose data is data_len long. */
static struct fx mk(const char *json, uint64_t data_len)
{
	struct fx f;
	size_t len = strlen(json), i;

	f.n = 8 + len;
	f.p = malloc(f.n);
	for (i = 0; i < 8; i++)
		f.p[i] = (uint8_t)((uint64_t)len >> (8 * i));
	memcpy(f.p + 8, json, len);
	f.file_size = f.n + data_len;
	return f;
}

static int parse(const char *json, uint64_t data_len, struct st_file *out, struct cd_err *err,
		 struct cd_arena *a)
{
	struct fx f = mk(json, data_len);
	int rc = st_parse(f.p, f.n, f.file_size, a, out, err);

	free(f.p);
	return rc;
}

static void valid_header(void **state)
{
	struct cd_arena a;
	struct st_file st;
	struct cd_err err = {0};

	(void)state;
	arena_init(&a);
	assert_int_equal(
		parse("{\"b\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[12,20]},"
		      "\"__metadata__\":{\"format\":\"pt\"},"
		      " \"a\" : {\"shape\":[2,3],\"dtype\":\"F16\",\"data_offsets\":[0,12],"
		      "\"extra\":{\"k\":[1,2.5e3,true,null,\"x\"]}}}   ",
		      20, &st, &err, &a),
		0);
	assert_int_equal(st.n_tensors, 2);
	assert_string_equal(st.tensors[0].name, "a"); /* sorted by offset */
	assert_int_equal(st.tensors[0].ndim, 2);
	assert_int_equal(st.tensors[0].shape[1], 3);
	assert_int_equal(st.tensors[0].nelem, 6);
	assert_int_equal(st.tensors[0].bits, 16);
	assert_true(st.tensors[0].is_float);
	assert_string_equal(st.tensors[1].dtype, "BF16");
	assert_int_equal(st.n_params, 10);
	assert_string_equal(st.format, "pt");
	assert_int_equal(st.data_len, 20);
	/* No tensors at all is a valid file. */
	assert_int_equal(parse("{}", 0, &st, &err, &a), 0);
	assert_int_equal(st.n_tensors, 0);
	/* Scalars have an empty shape and one element. */
	assert_int_equal(parse("{\"s\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]}}", 8,
			       &st, &err, &a),
			 0);
	assert_int_equal(st.tensors[0].nelem, 1);
	arena_free(&a);
}

static void escaped_names(void **state)
{
	struct cd_arena a;
	struct st_file st;
	struct cd_err err = {0};

	(void)state;
	arena_init(&a);
	assert_int_equal(parse("{\"w\\u00e9\\n\\ud83d\\ude00\":{\"dtype\":\"U8\",\"shape\":[1],"
			       "\"data_offsets\":[0,1]}}",
			       1, &st, &err, &a),
			 0);
	assert_string_equal(st.tensors[0].name, "w\xc3\xa9\n\xf0\x9f\x98\x80");
	/* A lone low surrogate and a bad escape are rejected. */
	assert_int_equal(parse("{\"\\udc00\":{}}", 0, &st, &err, &a), CD_EFORMAT);
	assert_int_equal(parse("{\"\\q\":{}}", 0, &st, &err, &a), CD_EFORMAT);
	arena_free(&a);
}

static void header_length_lies(void **state)
{
	struct cd_arena a;
	struct st_file st;
	struct cd_err err = {0};
	uint8_t b[16] = {0};
	uint64_t len;

	(void)state;
	arena_init(&a);
	/* Shorter than the length prefix. */
	assert_int_equal(st_parse(b, 4, 4, &a, &st, &err), CD_ERANGE);
	/* A header length larger than the file: truncated. */
	b[0] = 200;
	assert_int_equal(st_parse(b, 16, 16, &a, &st, &err), CD_ERANGE);
	assert_non_null(strstr(err.msg, "larger than the file"));
	/* Larger than the loader accepts (100 MB + 1), whatever the file size. */
	len = ST_HEADER_MAX + 1;
	memcpy(b, &len, 8);
	assert_int_equal(st_header_len(b, 16, UINT64_MAX, &len, &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "HeaderTooLarge"));
	/* The caller read fewer bytes than the header needs. */
	b[0] = 8;
	b[1] = b[2] = b[3] = b[4] = b[5] = b[6] = b[7] = 0;
	assert_int_equal(st_parse(b, 12, 100, &a, &st, &err), CD_ERANGE);
	arena_free(&a);
}

static void bad_offsets(void **state)
{
	struct cd_arena a;
	struct st_file st;
	struct cd_err err = {0};

	(void)state;
	arena_init(&a);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
			       "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
			       12, &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "overlaps"));
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
			       "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}",
			       24, &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "belong to no tensor"));
	/* Consistent offsets past the end of the data: a truncated file. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
			       5, &st, &err, &a),
			 CD_ERANGE);
	assert_non_null(strstr(err.msg, "truncated"));
	/* Out-of-range offsets far beyond the file. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],"
			       "\"data_offsets\":[18446744073709551614,18446744073709551615]}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	/* Data left over after the last tensor. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
			       9, &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "MetadataIncompleteBuffer"));
	/* Offsets that disagree with shape x dtype. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
			       8, &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "TensorInvalidInfo"));
	/* Reversed offsets. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[4,0]}}", 4,
			       &st, &err, &a),
			 CD_EFORMAT);
	/* F4 with an odd element count does not fill whole bytes. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,1]}}", 1,
			       &st, &err, &a),
			 CD_EFORMAT);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[0,2]}}", 2,
			       &st, &err, &a),
			 0);
	arena_free(&a);
}

static void bad_schema(void **state)
{
	struct cd_arena a;
	struct st_file st;
	struct cd_err err = {0};
	const char *pre;
	char *deep;
	size_t n = 100000;

	(void)state;
	arena_init(&a);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"F7\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
			       &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "unknown dtype 'F7'"));
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296,16],"
			       "\"data_offsets\":[0,1]}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "overflows 64 bits"));
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1]}}", 1, &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "missing data_offsets"));
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1.0],\"data_offsets\":[0,1]}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[99999999999999999999],"
			       "\"data_offsets\":[0,1]}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	assert_int_equal(parse("[]", 0, &st, &err, &a), CD_EFORMAT);
	/* Unknown fields are skipped, but their JSON must be valid. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],"
			       "\"x\":[1 2]}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],"
			       "\"x\":{\"k\" 1}}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],"
			       "\"x\":01}}",
			       1, &st, &err, &a),
			 CD_EFORMAT);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],"
			       "\"x\":[{},[],-0.5e+3,\"s\",{\"k\":[null]}]}}",
			       1, &st, &err, &a),
			 0);
	/* The same name twice. */
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
			       "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
			       2, &st, &err, &a),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "appears twice"));
	assert_int_equal(parse("{\"a\":[]}", 0, &st, &err, &a), CD_EFORMAT);
	assert_int_equal(parse("{} x", 0, &st, &err, &a), CD_EFORMAT);
	assert_int_equal(parse("{\"a\":{\"dtype\":\"U8\"", 0, &st, &err, &a), CD_EFORMAT);
	assert_int_equal(parse("{\"a\xff\":{}}", 0, &st, &err, &a), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "UTF-8"));
	/* A value nested 100000 deep is a format error, not a stack overflow. */
	pre = "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1],\"x\":";
	deep = malloc(strlen(pre) + n + 1);
	memcpy(deep, pre, strlen(pre));
	memset(deep + strlen(pre), '[', n);
	deep[strlen(pre) + n] = '\0';
	assert_int_equal(parse(deep, 1, &st, &err, &a), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "nesting"));
	free(deep);
	arena_free(&a);
}

/* Every prefix of a valid header fails cleanly. */
static void every_truncation(void **state)
{
	const char *json = "{\"x\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
			   "\"__metadata__\":{\"format\":\"pt\"}}";
	struct fx f = mk(json, 8);
	struct cd_arena a;
	struct st_file st;
	struct cd_err err;
	size_t cut;

	(void)state;
	arena_init(&a);
	for (cut = 0; cut < f.n; cut++)
		assert_int_not_equal(st_parse(f.p, cut, cut, &a, &st, &err), 0);
	assert_int_equal(st_parse(f.p, f.n, f.file_size, &a, &st, &err), 0);
	free(f.p);
	arena_free(&a);
}

static void scanner(void **state)
{
	struct jscan j;
	struct cd_err err;
	uint64_t v;
	const uint8_t num[] = "007", big[] = "18446744073709551615",
		      over[] = "18446744073709551616";

	(void)state;
	jscan_init(&j, num, 3, &err);
	assert_int_equal(jscan_u64(&j, &v), CD_EFORMAT);
	jscan_init(&j, big, sizeof(big) - 1, &err);
	assert_int_equal(jscan_u64(&j, &v), 0);
	assert_true(v == UINT64_MAX);
	jscan_init(&j, over, sizeof(over) - 1, &err);
	assert_int_equal(jscan_u64(&j, &v), CD_EFORMAT);
	assert_int_equal(jscan_utf8_ok((const uint8_t *)"\xc0\x80", 2), CD_EFORMAT);
	assert_int_equal(jscan_utf8_ok((const uint8_t *)"\xed\xa0\x80", 3), CD_EFORMAT);
	assert_int_equal(jscan_utf8_ok((const uint8_t *)"\xe2\x82\xac", 3), 0);
	assert_int_equal(st_dtype_bits("F8_E4M3", NULL), 8);
	assert_int_equal(st_dtype_bits("f16", NULL), 0);
}

/* A string without escapes is returned in place, one with escapes as an
 * unescaped copy, a bad escape is an error. */
static void string_ref(void **state)
{
	static const char json[] = "\"plain\" \"es\\u0063aped\" \"bad\\x\"";
	struct cd_arena a;
	struct jscan j;
	const char *s;
	size_t len;

	(void)state;
	arena_init(&a);
	jscan_init(&j, (const uint8_t *)json, sizeof(json) - 1, NULL);
	assert_int_equal(jscan_string_ref(&j, &a, &s, &len), 0);
	assert_int_equal(len, 5);
	assert_ptr_equal(s, json + 1); /* in place */
	assert_int_equal(jscan_string_ref(&j, &a, &s, &len), 0);
	assert_string_equal(s, "escaped");
	assert_true(s < json || s > json + sizeof(json)); /* a copy */
	assert_int_equal(jscan_string_ref(&j, &a, &s, &len), CD_EFORMAT);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_header),
		cmocka_unit_test(escaped_names),
		cmocka_unit_test(header_length_lies),
		cmocka_unit_test(bad_offsets),
		cmocka_unit_test(bad_schema),
		cmocka_unit_test(every_truncation),
		cmocka_unit_test(scanner),
		cmocka_unit_test(string_ref),
	};
	return cmocka_run_group_tests_name("safetensors", tests, NULL, NULL);
}
