/* Unit tests for src/format/stindex (a checkpoint's shard index): the
 * answers jansson's tree gave (a repeated key keeps its
 * first place and takes its last value, escapes compared unescaped), the
 * errors, and the caps. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/buf.h"
#include "format/stindex.h"

static int parse(const char *json, struct stindex *x, struct cd_arena *a, struct cd_err *err)
{
	return stindex_parse((const uint8_t *)json, strlen(json), a, x, err);
}

static const char *shard_of(const struct stindex *x, const char *tensor)
{
	uint32_t s = stindex_shard_of(x, tensor);

	return s == STINDEX_NONE ? NULL : x->shards[s].name;
}

static void basic(void **state)
{
	static const char *json =
		"{\"metadata\": {\"total_size\": 65536, \"format\": \"pt\"},\n"
		" \"weight_map\": {\"lm_head.weight\": \"model-00002-of-00002.safetensors\",\n"
		"  \"embed.weight\": \"model-00001-of-00002.safetensors\",\n"
		"  \"layers.0.w\": \"model-00001-of-00002.safetensors\"}}\n";
	struct cd_arena a;
	struct stindex x;

	(void)state;
	arena_init(&a);
	assert_int_equal(parse(json, &x, &a, NULL), 0);
	assert_true(x.has_map);
	assert_int_equal(x.total_size, 65536);
	assert_int_equal(x.n_tensors, 3);
	assert_int_equal(x.n_shards, 2);
	assert_string_equal(x.shards[0].name, "model-00002-of-00002.safetensors");
	assert_int_equal(x.shards[0].n_tensors, 1);
	assert_int_equal(x.shards[1].n_tensors, 2);
	assert_int_equal(x.tensors[1].len, strlen("embed.weight"));
	assert_memory_equal(x.tensors[1].name, "embed.weight", x.tensors[1].len);
	assert_string_equal(shard_of(&x, "layers.0.w"), "model-00001-of-00002.safetensors");
	assert_null(shard_of(&x, "layers.0"));
	assert_null(shard_of(&x, "layers.0.wx"));
	stindex_free(&x);
	stindex_free(&x); /* twice is fine */
	arena_free(&a);
}

/* jansson's reading: a repeated tensor keeps its first place with its last
 * value (the shard it left counts one fewer), a value that is not a string
 * maps to nothing, escapes are compared unescaped, a repeated weight_map or
 * metadata replaces the one before. */
static void like_jansson(void **state)
{
	struct cd_arena a;
	struct stindex x;

	(void)state;
	arena_init(&a);
	assert_int_equal(parse("{\"weight_map\": {\"a\": \"s1\", \"b\": \"s2\", \"c\": 3, "
			       "\"a\": \"s2\", \"\\u0064\": \"s\\u0031\"}}",
			       &x, &a, NULL),
			 0);
	assert_int_equal(x.n_tensors, 4);
	assert_memory_equal(x.tensors[0].name, "a", 1);
	assert_string_equal(shard_of(&x, "a"), "s2");
	assert_null(shard_of(&x, "c"));
	assert_int_equal(x.tensors[2].shard, STINDEX_NONE);
	assert_string_equal(shard_of(&x, "d"), "s1");
	assert_int_equal(x.n_shards, 2);
	assert_int_equal(x.shards[0].n_tensors, 1); /* s1: d */
	assert_int_equal(x.shards[1].n_tensors, 2); /* s2: a, b */
	assert_int_equal(x.total_size, -1);
	stindex_free(&x);
	assert_int_equal(
		parse("{\"weight_map\": {\"a\": \"s1\"}, \"metadata\": {\"total_size\": 5},"
		      " \"weight_map\": {\"b\": \"s9\"}, \"metadata\": {}}",
		      &x, &a, NULL),
		0);
	assert_int_equal(x.n_tensors, 1);
	assert_null(shard_of(&x, "a"));
	assert_string_equal(shard_of(&x, "b"), "s9");
	assert_int_equal(x.total_size, -1);
	stindex_free(&x);
	assert_int_equal(
		parse("{\"weight_map\": {\"a\": \"s1\"}, \"weight_map\": [1]}", &x, &a, NULL), 0);
	assert_false(x.has_map);
	assert_int_equal(x.n_tensors, 0);
	stindex_free(&x);
	assert_int_equal(parse("[{\"weight_map\": {}}]", &x, &a, NULL), 0); /* valid, no map */
	assert_false(x.has_map);
	assert_int_equal(parse("{\"weight_map\": {}}", &x, &a, NULL), 0);
	assert_true(x.has_map);
	assert_int_equal(x.n_tensors, 0);
	assert_null(shard_of(&x, "a"));
	stindex_free(&x);
	arena_free(&a);
}

static void total_size(void **state)
{
	static const struct {
		const char *v;
		int rc;
		int64_t total;
	} cases[] = {
		{"1", 0, 1},
		{"0", 0, -1},
		{"-5", 0, -1},
		{"2.5e3", 0, -1},
		{"\"65536\"", 0, -1},
		{"9223372036854775807", 0, INT64_MAX},
		{"9223372036854775808", CD_EFORMAT, -1}, /* jansson: too big integer */
		{"012", CD_EFORMAT, -1},
	};
	char json[128];
	struct cd_arena a;
	struct stindex x;
	size_t i;

	(void)state;
	arena_init(&a);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(json, sizeof(json),
			 "{\"metadata\": {\"total_size\": %s}, \"weight_map\": {}}", cases[i].v);
		assert_int_equal(parse(json, &x, &a, NULL), cases[i].rc);
		assert_int_equal(x.total_size, cases[i].total);
		stindex_free(&x);
	}
	arena_free(&a);
}

static void invalid(void **state)
{
	static const char *const bad[] = {
		"",
		"\"weight_map\"",
		"{\"weight_map\": {\"a\": \"s1\",}}",
		"{\"weight_map\": {\"a\": \"s1\"}} x",
		"{\"weight_map\": {\"a\\u0000b\": \"s1\"}}",
		"{\"weight_map\": {\"a\": \"s\\u0000\"}}",
		"{\"weight_map\": {\"a\": \"s1\"}",
		"{\"weight_map\": {\"a\": \"s1\x01\"}}",
		"{\"weight_map\": {\"a\": \"\xc3\x28\"}}", /* invalid UTF-8 */
		"{\"weight_map\": {\"a\": \"\\q\"}}",
		"{\"weight_map\": {a: \"s1\"}}",
	};
	struct cd_arena a;
	struct cd_err err;
	struct stindex x;
	size_t i;

	(void)state;
	arena_init(&a);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(parse(bad[i], &x, &a, &err), CD_EFORMAT);
		assert_non_null(strstr(err.msg, "JSON"));
		assert_null(x.tensors); /* freed on failure */
	}
	arena_free(&a);
}

/* n tensors t0..t(n-1), tensor i in shard i / per. */
static char *many(size_t n, size_t per)
{
	struct cd_buf b;
	size_t i;

	buf_init(&b, (size_t)1 << 30);
	assert_int_equal(buf_printf(&b, "{\"weight_map\": {"), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(buf_printf(&b, "%s\"t%zu\": \"s%zu.safetensors\"", i ? ", " : "",
					    i, i / per),
				 0);
	assert_int_equal(buf_printf(&b, "}}"), 0);
	return b.p;
}

/* The caps: the 4097th shard and the 1,048,577th tensor stop the read, and
 * over_cap says which; up to them every name is found. */
static void caps(void **state)
{
	struct cd_arena a;
	struct cd_err err = {0};
	struct stindex x;
	char *json, name[32];
	size_t i;

	(void)state;
	arena_init(&a);
	json = many(STINDEX_SHARDS_MAX, 1);
	assert_int_equal(parse(json, &x, &a, NULL), 0);
	assert_int_equal(x.n_shards, STINDEX_SHARDS_MAX);
	for (i = 0; i < STINDEX_SHARDS_MAX; i += 97) {
		snprintf(name, sizeof(name), "t%zu", i);
		assert_int_equal(stindex_shard_of(&x, name), i);
	}
	stindex_free(&x);
	free(json);
	json = many(STINDEX_SHARDS_MAX + 1, 1);
	assert_int_equal(parse(json, &x, &a, &err), CD_ERANGE);
	assert_int_equal(x.over_cap, 1);
	assert_non_null(strstr(err.msg, "more than 4096 shard files"));
	free(json);
	json = many(STINDEX_TENSORS_MAX + 1, 1024);
	assert_int_equal(parse(json, &x, &a, &err), CD_ERANGE);
	assert_int_equal(x.over_cap, 2);
	assert_non_null(strstr(err.msg, "more than 1048576 tensors"));
	free(json);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(basic),      cmocka_unit_test(like_jansson),
		cmocka_unit_test(total_size), cmocka_unit_test(invalid),
		cmocka_unit_test(caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
