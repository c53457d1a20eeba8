/* gguf: see gguf.h. Checks follow ggml's own reader (ggml/src/gguf.cpp):
 * at most 4 dimensions, non-negative dimensions whose product fits 63 bits,
 * a known type whose row length is a multiple of its block size, offsets
 * aligned to general.alignment (a power of two), no duplicate names; we add
 * that tensors must not overlap and must end inside the file. */
#include "format/gguf.h"

#include <stdlib.h>
#include <string.h>

#include "core/span.h"

/* Block geometry from ggml's type traits (gguf-py GGML_QUANT_SIZES and
 * ggml/include/ggml.h); ids 4-5, 31-33 and 36-38 were removed from the format. */
static const struct {
	uint32_t id;
	const char *name;
	uint32_t block, size;
} types[] = {
	{0, "F32", 1, 4},	  {1, "F16", 1, 2},	    {2, "Q4_0", 32, 18},
	{3, "Q4_1", 32, 20},	  {6, "Q5_0", 32, 22},	    {7, "Q5_1", 32, 24},
	{8, "Q8_0", 32, 34},	  {9, "Q8_1", 32, 40},	    {10, "Q2_K", 256, 84},
	{11, "Q3_K", 256, 110},	  {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
	{14, "Q6_K", 256, 210},	  {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66},
	{17, "IQ2_XS", 256, 74},  {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},
	{20, "IQ4_NL", 32, 18},	  {21, "IQ3_S", 256, 110},  {22, "IQ2_S", 256, 82},
	{23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},	    {25, "I16", 1, 2},
	{26, "I32", 1, 4},	  {27, "I64", 1, 8},	    {28, "F64", 1, 8},
	{29, "IQ1_M", 256, 56},	  {30, "BF16", 1, 2},	    {34, "TQ1_0", 256, 54},
	{35, "TQ2_0", 256, 66},	  {39, "MXFP4", 32, 17},    {40, "NVFP4", 64, 36},
};

/* Size in bytes of scalar value types; 0 for string and array. */
static const uint8_t scalar_size[GGUF_T_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

int gguf_type_info(uint32_t type, const char **name, uint32_t *block, uint32_t *type_size)
{
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].id == type) {
			*name = types[i].name;
			*block = types[i].block;
			*type_size = types[i].size;
			return 1;
		}
	return 0;
}

struct rd {
	struct cd_span s;
	uint64_t pos;
	uint64_t file_size;
	struct gguf_file *out;
	struct cd_arena *a;
	struct cd_err *err;
};

/* Running out of bytes: a longer prefix helps only if the file has more. */
static int short_read(struct rd *r, const char *what)
{
	r->out->need_more = r->s.n < r->file_size;
	return err_set(r->err, CD_ERANGE, "%s at byte %llu runs past the end of the %s", what,
		       (unsigned long long)r->pos,
		       r->out->need_more ? "bytes read" : "file (truncated)");
}

static int rd_u32(struct rd *r, uint32_t *v, const char *what)
{
	if (span_u32(r->s, r->pos, 0, v))
		return short_read(r, what);
	r->pos += 4;
	return 0;
}

static int rd_u64(struct rd *r, uint64_t *v, const char *what)
{
	if (span_u64(r->s, r->pos, 0, v))
		return short_read(r, what);
	r->pos += 8;
	return 0;
}

static int rd_skip(struct rd *r, uint64_t n, const char *what)
{
	if (!span_ok(r->s.n, r->pos, n))
		return short_read(r, what);
	r->pos += n;
	return 0;
}

/* A gguf_string_t (u64 length, bytes, no NUL); copied when out is non-NULL. */
static int rd_string(struct rd *r, const char **out, const char *what)
{
	uint64_t len;

	if (rd_u64(r, &len, what))
		return CD_ERANGE;
	if (len > GGUF_STRING_MAX)
		return err_set(r->err, CD_EFORMAT, "%s: string of %llu bytes (limit %u)", what,
			       (unsigned long long)len, GGUF_STRING_MAX);
	if (!span_ok(r->s.n, r->pos, len))
		return short_read(r, what);
	if (out) {
		*out = arena_strndup(r->a, (const char *)r->s.p + r->pos, (size_t)len);
		if (!*out)
			return err_set(r->err, CD_ENOMEM, "out of memory for GGUF strings");
	}
	r->pos += len;
	return 0;
}

static int rd_array(struct rd *r, struct gguf_kv *kv, int depth);

/* One value of type t; scalars and strings are kept in kv when it is given. */
static int rd_value(struct rd *r, uint32_t t, struct gguf_kv *kv, int depth)
{
	struct cd_span v;
	uint64_t u = 0;

	if (t >= GGUF_T_COUNT)
		return err_set(r->err, CD_EFORMAT, "metadata value of unknown type %u", t);
	if (t == GGUF_T_STRING)
		return rd_string(r, kv ? &kv->str : NULL, "metadata string");
	if (t == GGUF_T_ARRAY)
		return rd_array(r, kv, depth + 1);
	if (span_sub(r->s, r->pos, scalar_size[t], &v))
		return short_read(r, "metadata value");
	r->pos += scalar_size[t];
	if (!kv || t == GGUF_T_FLOAT32 || t == GGUF_T_FLOAT64)
		return 0;
	u = span_uint(v, 0, (unsigned)scalar_size[t], 0);
	if (t == GGUF_T_BOOL && u > 1)
		return err_set(r->err, CD_EFORMAT, "boolean value %llu is neither 0 nor 1",
			       (unsigned long long)u);
	kv->is_int = 1;
	kv->u = u;
	kv->i = (int64_t)u;
	if (t == GGUF_T_INT8)
		kv->i = (int8_t)u;
	else if (t == GGUF_T_INT16)
		kv->i = (int16_t)u;
	else if (t == GGUF_T_INT32)
		kv->i = (int32_t)u;
	if ((t == GGUF_T_INT8 || t == GGUF_T_INT16 || t == GGUF_T_INT32 || t == GGUF_T_INT64) &&
	    kv->i < 0) {
		kv->is_int = 0; /* negative: not usable as a count */
	}
	return 0;
}

static int rd_array(struct rd *r, struct gguf_kv *kv, int depth)
{
	uint32_t t;
	uint64_t n, i, min;

	if (depth > GGUF_ARRAY_DEPTH)
		return err_set(r->err, CD_EFORMAT, "arrays nested deeper than %d",
			       GGUF_ARRAY_DEPTH);
	if (rd_u32(r, &t, "array type") || rd_u64(r, &n, "array length"))
		return CD_ERANGE;
	if (t >= GGUF_T_COUNT)
		return err_set(r->err, CD_EFORMAT, "array of unknown type %u", t);
	if (kv && depth == 1) {
		kv->arr_type = t;
		kv->arr_len = n;
	}
	/* Every element takes at least min bytes: a count the file cannot hold is
	 * rejected before any loop runs. */
	min = scalar_size[t] ? scalar_size[t] : t == GGUF_T_STRING ? 8 : 12;
	if (n > (r->file_size - r->pos) / min)
		return err_set(r->err, CD_EFORMAT, "array of %llu elements cannot fit in the file",
			       (unsigned long long)n);
	if (scalar_size[t])
		return rd_skip(r, n * scalar_size[t], "array data");
	for (i = 0; i < n; i++) {
		int rc = rd_value(r, t, NULL, depth);
		if (rc)
			return rc;
	}
	return 0;
}

static int rd_header(struct rd *r, struct gguf_file *g)
{
	uint32_t magic;

	if (rd_u32(r, &magic, "magic") || rd_u32(r, &g->version, "version"))
		return CD_ERANGE;
	if (magic != 0x46554747u) /* "GGUF" */
		return err_set(r->err, CD_EFORMAT, "not a GGUF file (magic %08x)", magic);
	if (g->version == 1)
		return err_set(r->err, CD_EFORMAT,
			       "GGUF version 1 (32-bit counts) is not "
			       "supported; re-convert the model with a current llama.cpp");
	if (g->version == 0x02000000u || g->version == 0x03000000u)
		return err_set(r->err, CD_EFORMAT, "big-endian GGUF is not supported");
	if (g->version != 2 && g->version != 3)
		return err_set(r->err, CD_EFORMAT, "unknown GGUF version %u", g->version);
	if (rd_u64(r, &g->n_tensors, "tensor count") || rd_u64(r, &g->n_kv, "key/value count"))
		return CD_ERANGE;
	/* A tensor info takes at least 32 bytes, a key/value at least 13. */
	if (g->n_tensors > GGUF_TENSORS_MAX || g->n_tensors > (r->file_size - r->pos) / 32)
		return err_set(r->err, CD_EFORMAT, "tensor count %llu is impossible for this file",
			       (unsigned long long)g->n_tensors);
	if (g->n_kv > GGUF_KV_MAX || g->n_kv > (r->file_size - r->pos) / 13)
		return err_set(r->err, CD_EFORMAT,
			       "key/value count %llu is impossible for this file",
			       (unsigned long long)g->n_kv);
	return 0;
}

static int rd_kvs(struct rd *r, struct gguf_file *g)
{
	uint64_t i;
	int rc;

	g->kv = arena_calloc(r->a, g->n_kv ? g->n_kv : 1, sizeof(*g->kv));
	if (!g->kv)
		return err_set(r->err, CD_ENOMEM, "out of memory for %llu key/values",
			       (unsigned long long)g->n_kv);
	g->alignment = GGUF_DEFAULT_ALIGN;
	for (i = 0; i < g->n_kv; i++) {
		struct gguf_kv *kv = &g->kv[i];
		rc = rd_string(r, &kv->key, "metadata key");
		if (!rc)
			rc = rd_u32(r, &kv->type, "metadata type");
		if (!rc)
			rc = rd_value(r, kv->type, kv, 0);
		if (rc)
			return rc;
		if (!strcmp(kv->key, "general.alignment")) {
			if (kv->type != GGUF_T_UINT32 || !kv->u || (kv->u & (kv->u - 1)))
				return err_set(r->err, CD_EFORMAT,
					       "general.alignment must be a power-of-two uint32");
			g->alignment = (uint32_t)kv->u;
		}
	}
	return 0;
}

static int check_dims(struct rd *r, struct gguf_tensor *t, uint32_t block, uint32_t size)
{
	uint32_t k;

	t->nelem = 1;
	for (k = 0; k < t->ndim; k++) {
		if (t->dims[k] > (uint64_t)INT64_MAX ||
		    (t->dims[k] && t->nelem > (uint64_t)INT64_MAX / t->dims[k]))
			return err_set(r->err, CD_EFORMAT,
				       "tensor '%s': element count overflows 63 bits", t->name);
		t->nelem *= t->dims[k];
	}
	if (!t->type_name)
		return 0;
	if (t->ndim && t->dims[0] % block)
		return err_set(
			r->err, CD_EFORMAT,
			"tensor '%s': row of %llu elements is not a multiple of the %s block "
			"size %u",
			t->name, (unsigned long long)t->dims[0], t->type_name, block);
	t->nbytes = t->nelem / block * size;
	return 0;
}

static int rd_tensor(struct rd *r, struct gguf_file *g, struct gguf_tensor *t)
{
	uint32_t k, block = 1, size = 0;
	int rc = rd_string(r, &t->name, "tensor name");

	if (rc)
		return rc;
	if (rd_u32(r, &t->ndim, "tensor dimensions"))
		return CD_ERANGE;
	if (t->ndim > GGUF_DIMS_MAX)
		return err_set(r->err, CD_EFORMAT, "tensor '%s': %u dimensions (at most %d)",
			       t->name, t->ndim, GGUF_DIMS_MAX);
	for (k = 0; k < t->ndim; k++)
		if (rd_u64(r, &t->dims[k], "tensor dimension"))
			return CD_ERANGE;
	if (rd_u32(r, &t->type, "tensor type") || rd_u64(r, &t->offset, "tensor offset"))
		return CD_ERANGE;
	if (!gguf_type_info(t->type, &t->type_name, &block, &size)) {
		t->type_name = NULL;
		g->n_unknown_types++;
	}
	if (t->offset % g->alignment)
		return err_set(r->err, CD_EFORMAT,
			       "tensor '%s': offset %llu is not a multiple of "
			       "the alignment %u",
			       t->name, (unsigned long long)t->offset, g->alignment);
	return check_dims(r, t, block, size);
}

static int by_name(const void *x, const void *y)
{
	return strcmp((*(const struct gguf_tensor *const *)x)->name,
		      (*(const struct gguf_tensor *const *)y)->name);
}

static int by_offset(const void *x, const void *y)
{
	const struct gguf_tensor *a = *(const struct gguf_tensor *const *)x;
	const struct gguf_tensor *b = *(const struct gguf_tensor *const *)y;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Duplicate names, overlaps and tensors past the end of the file. */
static int check_layout(struct rd *r, struct gguf_file *g)
{
	struct gguf_tensor **v;
	uint64_t i, data = r->file_size - g->data_offset, max_end = 0;
	const char *max_name = NULL;
	int rc = 0;

	if (!g->n_tensors)
		return 0;
	v = malloc(g->n_tensors * sizeof(*v));
	if (!v)
		return err_set(r->err, CD_ENOMEM, "out of memory checking tensors");
	for (i = 0; i < g->n_tensors; i++)
		v[i] = &g->tensors[i];
	qsort(v, g->n_tensors, sizeof(*v), by_name);
	for (i = 1; i < g->n_tensors && !rc; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name))
			rc = err_set(r->err, CD_EFORMAT, "duplicate tensor name '%s'", v[i]->name);
	qsort(v, g->n_tensors, sizeof(*v), by_offset);
	for (i = 0; i < g->n_tensors && !rc; i++) {
		const struct gguf_tensor *t = v[i];
		if (t->nbytes && t->offset < max_end)
			rc = err_set(r->err, CD_EFORMAT, "tensor '%s' at offset %llu overlaps '%s'",
				     t->name, (unsigned long long)t->offset, max_name);
		else if (t->offset > data || t->nbytes > data - t->offset)
			rc = err_set(
				r->err, CD_ERANGE,
				"tensor '%s' (%llu bytes at data offset %llu) does not fit in the "
				"%llu bytes of data: truncated",
				t->name, (unsigned long long)t->nbytes,
				(unsigned long long)t->offset, (unsigned long long)data);
		if (!rc && t->offset + t->nbytes > max_end) {
			max_end = t->offset + t->nbytes;
			max_name = t->name;
		}
	}
	free(v);
	return rc;
}

int gguf_parse(const uint8_t *p, size_t n, uint64_t file_size, struct cd_arena *a,
	       struct gguf_file *out, struct cd_err *err)
{
	struct rd r = {{p, n}, 0, file_size, out, a, err};
	uint64_t i, pad;
	int rc;

	memset(out, 0, sizeof(*out));
	if (file_size < n)
		r.file_size = file_size = n;
	rc = rd_header(&r, out);
	if (!rc)
		rc = rd_kvs(&r, out);
	if (rc)
		return rc;
	out->tensors = arena_calloc(a, out->n_tensors ? out->n_tensors : 1, sizeof(*out->tensors));
	if (!out->tensors)
		return err_set(err, CD_ENOMEM, "out of memory for %llu tensors",
			       (unsigned long long)out->n_tensors);
	for (i = 0; i < out->n_tensors; i++) {
		rc = rd_tensor(&r, out, &out->tensors[i]);
		if (rc)
			return rc;
		out->n_params += out->tensors[i].nelem;
		out->data_bytes += out->tensors[i].nbytes;
	}
	pad = (out->alignment - r.pos % out->alignment) % out->alignment;
	out->data_offset = r.pos + pad;
	if (out->data_offset > file_size) {
		out->need_more = 0;
		return err_set(err, CD_ERANGE,
			       "the header ends at byte %llu, past the end of the "
			       "file (truncated)",
			       (unsigned long long)out->data_offset);
	}
	return check_layout(&r, out);
}

const struct gguf_kv *gguf_get(const struct gguf_file *g, const char *key)
{
	uint64_t i;

	for (i = 0; i < g->n_kv; i++)
		if (g->kv[i].key && !strcmp(g->kv[i].key, key))
			return &g->kv[i];
	return NULL;
}

int gguf_get_u64(const struct gguf_file *g, const char *key, uint64_t *out)
{
	const struct gguf_kv *kv = gguf_get(g, key);

	if (!kv || !kv->is_int)
		return CD_ENOENT;
	*out = kv->u;
	return 0;
}
