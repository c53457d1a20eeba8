/* Unit tests for src/format/gguf: GGUF v2/v3 headers built byte by byte here,
 * valid and corrupt (counts the file cannot hold, truncation at every byte,
 * overlapping or misaligned tensors, unknown types, bad versions). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/arena.h"
#include "core/buf.h"
#include "format/gguf.h"

static void u32(struct cd_buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	assert_int_equal(buf_append(b, x, 4), 0);
}

static void u64(struct cd_buf *b, uint64_t v)
{
	u32(b, (uint32_t)v);
	u32(b, (uint32_t)(v >> 32));
}

static void str(struct cd_buf *b, const char *s)
{
	u64(b, strlen(s));
	assert_int_equal(buf_puts(b, s), 0);
}

static void head(struct cd_buf *b, uint32_t version, uint64_t nt, uint64_t nkv)
{
	buf_init(b, 0);
	assert_int_equal(buf_puts(b, "GGUF"), 0);
	u32(b, version);
	u64(b, nt);
	u64(b, nkv);
}

static void kv_u32(struct cd_buf *b, const char *k, uint32_t v)
{
	str(b, k);
	u32(b, GGUF_T_UINT32);
	u32(b, v);
}

static void tensor(struct cd_buf *b, const char *name, uint32_t ndim, const uint64_t *dims,
		   uint32_t type, uint64_t off)
{
	uint32_t i;

	str(b, name);
	u32(b, ndim);
	for (i = 0; i < ndim; i++)
		u64(b, dims[i]);
	u32(b, type);
	u64(b, off);
}

/* A small llama-like file: 5 key/values (one a string array), 3 tensors. */
static void sample(struct cd_buf *b)
{
	const uint64_t emb[2] = {256, 4}, norm[1] = {256}, q[2] = {256, 256};

	head(b, 3, 3, 5);
	str(b, "general.architecture");
	u32(b, GGUF_T_STRING);
	str(b, "llama");
	kv_u32(b, "llama.block_count", 1);
	kv_u32(b, "llama.attention.head_count", 8);
	str(b, "tokenizer.ggml.tokens");
	u32(b, GGUF_T_ARRAY);
	u32(b, GGUF_T_STRING);
	u64(b, 3);
	str(b, "<s>");
	str(b, "</s>");
	str(b, "a");
	str(b, "general.flag");
	u32(b, GGUF_T_BOOL);
	assert_int_equal(buf_putc(b, 1), 0);
	tensor(b, "token_embd.weight", 2, emb, 1 /* F16 */, 0);
	tensor(b, "output_norm.weight", 1, norm, 0 /* F32 */, 2048);
	tensor(b, "blk.0.attn_q.weight", 2, q, 12 /* Q4_K */, 3072);
}

/* Data size of sample(): 2048 + 1024 + 256*256/256*144. */
#define SAMPLE_DATA (3072 + 36864)

static uint64_t padded(const struct cd_buf *b)
{
	return (b->len + 31) / 32 * 32;
}

static void valid_file(void **state)
{
	struct cd_buf b;
	struct cd_arena a;
	struct gguf_file g;
	struct cd_err err = {0};
	uint64_t v;

	(void)state;
	arena_init(&a);
	sample(&b);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b) + SAMPLE_DATA, &a, &g, &err),
			 0);
	assert_int_equal(g.version, 3);
	assert_int_equal(g.n_tensors, 3);
	assert_string_equal(gguf_get(&g, "general.architecture")->str, "llama");
	assert_int_equal(gguf_get_u64(&g, "llama.attention.head_count", &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(gguf_get(&g, "tokenizer.ggml.tokens")->arr_len, 3);
	assert_int_equal(gguf_get_u64(&g, "missing", &v), CD_ENOENT);
	assert_int_equal(g.tensors[2].nbytes, 36864);
	assert_string_equal(g.tensors[2].type_name, "Q4_K");
	assert_int_equal(g.n_params, 1024 + 256 + 65536);
	assert_int_equal(g.data_offset, padded(&b));
	/* Version 2 has the same layout. */
	b.p[4] = 2;
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b) + SAMPLE_DATA, &a, &g, &err),
			 0);
	/* A prefix of the header asks for more bytes; a short file is truncated. */
	assert_int_equal(gguf_parse((uint8_t *)b.p, 100, padded(&b) + SAMPLE_DATA, &a, &g, &err),
			 CD_ERANGE);
	assert_true(g.need_more);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b) + 100, &a, &g, &err),
			 CD_ERANGE);
	assert_false(g.need_more);
	assert_non_null(strstr(err.msg, "truncated"));
	buf_free(&b);
	arena_free(&a);
}

static void every_truncation(void **state)
{
	struct cd_buf b;
	struct cd_arena a;
	struct gguf_file g;
	struct cd_err err;
	size_t cut;

	(void)state;
	arena_init(&a);
	sample(&b);
	for (cut = 0; cut < b.len; cut++) {
		assert_int_not_equal(gguf_parse((uint8_t *)b.p, cut, cut, &a, &g, &err), 0);
		assert_false(g.need_more);
	}
	buf_free(&b);
	arena_free(&a);
}

static void bad_headers(void **state)
{
	struct cd_buf b;
	struct cd_arena a;
	struct gguf_file g;
	struct cd_err err = {0};
	const uint64_t d[1] = {64}, d5[5] = {1, 1, 1, 1, 1}, huge[2] = {1ULL << 40, 1ULL << 40};

	(void)state;
	arena_init(&a);
	head(&b, 1, 0, 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "version 1"));
	buf_free(&b);
	head(&b, 0x03000000, 0, 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "big-endian"));
	b.p[0] = 'X';
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	/* Counts the file cannot hold are refused before anything is allocated. */
	head(&b, 3, UINT64_MAX, 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	head(&b, 3, 0, 1);
	str(&b, "arr");
	u32(&b, GGUF_T_ARRAY);
	u32(&b, GGUF_T_UINT64);
	u64(&b, UINT64_MAX / 4);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	/* A key of 2^60 bytes. */
	head(&b, 3, 0, 1);
	u64(&b, 1ULL << 60);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	/* Bad alignment, unknown value type, bad bool. */
	head(&b, 3, 0, 1);
	kv_u32(&b, "general.alignment", 24);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	head(&b, 3, 0, 1);
	str(&b, "k");
	u32(&b, 99);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len + 8, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	head(&b, 3, 0, 1);
	str(&b, "k");
	u32(&b, GGUF_T_BOOL);
	assert_int_equal(buf_putc(&b, 7), 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	/* Five dimensions; a product overflowing 63 bits; a misaligned offset. */
	head(&b, 3, 1, 0);
	tensor(&b, "t", 5, d5, 0, 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len + 64, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	head(&b, 3, 1, 0);
	tensor(&b, "t", 2, huge, 0, 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len + 64, &a, &g, &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "overflows"));
	buf_free(&b);
	head(&b, 3, 1, 0);
	tensor(&b, "t", 1, d, 0, 4);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, b.len + 512, &a, &g, &err), CD_EFORMAT);
	buf_free(&b);
	arena_free(&a);
}

static void bad_layout(void **state)
{
	struct cd_buf b;
	struct cd_arena a;
	struct gguf_file g;
	struct cd_err err = {0};
	const uint64_t d[1] = {64}, odd[1] = {100};

	(void)state;
	arena_init(&a);
	/* Overlap: 64 F32 = 256 bytes at 0, another at 128. */
	head(&b, 3, 2, 0);
	tensor(&b, "a", 1, d, 0, 0);
	tensor(&b, "b", 1, d, 0, 128);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b) + 512, &a, &g, &err),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "overlaps"));
	buf_free(&b);
	/* Duplicate names. */
	head(&b, 3, 2, 0);
	tensor(&b, "a", 1, d, 0, 0);
	tensor(&b, "a", 1, d, 0, 256);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b) + 512, &a, &g, &err),
			 CD_EFORMAT);
	assert_non_null(strstr(err.msg, "duplicate"));
	buf_free(&b);
	/* A Q4_0 row that is not a multiple of its 32-element block. */
	head(&b, 3, 1, 0);
	tensor(&b, "a", 1, odd, 2, 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b) + 512, &a, &g, &err),
			 CD_EFORMAT);
	buf_free(&b);
	/* An unknown type is counted, not fatal; its size is unknown. */
	head(&b, 3, 1, 0);
	tensor(&b, "a", 1, d, 77, 0);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b), &a, &g, &err), 0);
	assert_int_equal(g.n_unknown_types, 1);
	assert_null(g.tensors[0].type_name);
	buf_free(&b);
	/* An offset far past the end of the file. */
	head(&b, 3, 1, 0);
	tensor(&b, "a", 1, d, 0, 1ULL << 62);
	assert_int_equal(gguf_parse((uint8_t *)b.p, b.len, padded(&b) + 256, &a, &g, &err),
			 CD_ERANGE);
	buf_free(&b);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_file),
		cmocka_unit_test(every_truncation),
		cmocka_unit_test(bad_headers),
		cmocka_unit_test(bad_layout),
	};
	return cmocka_run_group_tests_name("gguf", tests, NULL, NULL);
}
