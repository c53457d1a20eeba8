/* safetensors: see safetensors.h. The checks mirror what the reference loader
 * does in Metadata::validate (huggingface/safetensors tensor.rs), so a file we
 * accept is one that safe_open accepts, and each rejection names the reason
 * the loader would give (InvalidOffset, TensorInvalidInfo, MetadataIncomplete-
 * Buffer, ValidationOverflow, HeaderTooLarge, InvalidHeaderLength). */
#include "format/safetensors.h"

#include <stdlib.h>
#include <string.h>

#include "core/span.h"
#include "core/vec.h"
#include "format/jscan.h"

/* Element widths from safetensors' Dtype::bitsize (tensor.rs, 0.6+). */
static const struct {
	const char *name;
	unsigned bits;
	int is_float;
} dtypes[] = {
	{"BOOL", 8, 0},	   {"U8", 8, 0},	  {"I8", 8, 0},		 {"I16", 16, 0},
	{"U16", 16, 0},	   {"I32", 32, 0},	  {"U32", 32, 0},	 {"I64", 64, 0},
	{"U64", 64, 0},	   {"F16", 16, 1},	  {"BF16", 16, 1},	 {"F32", 32, 1},
	{"F64", 64, 1},	   {"C64", 64, 1},	  {"F8_E5M2", 8, 1},	 {"F8_E4M3", 8, 1},
	{"F8_E8M0", 8, 1}, {"F8_E4M3FNUZ", 8, 1}, {"F8_E5M2FNUZ", 8, 1}, {"F6_E2M3", 6, 1},
	{"F6_E3M2", 6, 1}, {"F4", 4, 1},
};

unsigned st_dtype_bits(const char *name, int *is_float)
{
	size_t i;

	for (i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); i++)
		if (!strcmp(dtypes[i].name, name)) {
			if (is_float)
				*is_float = dtypes[i].is_float;
			return dtypes[i].bits;
		}
	return 0;
}

int st_header_len(const uint8_t *p, size_t n, uint64_t file_size, uint64_t *len, struct cd_err *err)
{
	struct cd_span s = {p, n};
	uint64_t v;

	if (file_size < 8 || span_u64(s, 0, 0, &v))
		return err_set(err, CD_ERANGE, "file is %llu bytes, shorter than the 8-byte header",
			       (unsigned long long)file_size);
	if (v > ST_HEADER_MAX)
		return err_set(err, CD_EFORMAT,
			       "header length %llu exceeds the loader's limit of 100000000 bytes "
			       "(HeaderTooLarge)",
			       (unsigned long long)v);
	if (v > file_size - 8)
		return err_set(err, CD_ERANGE,
			       "header length %llu is larger than the file (%llu bytes): truncated",
			       (unsigned long long)v, (unsigned long long)file_size);
	*len = v;
	return 0;
}

/* A growable tensor list, malloc'd while parsing and copied into the arena. */
struct tlist {
	struct st_tensor *v;
	size_t n, cap;
};

static struct st_tensor *tlist_push(struct tlist *l)
{
	struct st_tensor *v = vec_grow(NULL, l->v, &l->cap, l->n, sizeof(*v), 64, ST_TENSORS_MAX);

	if (!v)
		return NULL;
	l->v = v;
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	return &l->v[l->n++];
}

/* "shape": [d0, d1, ...] into the arena, with the element count. */
static int parse_shape(struct jscan *j, struct cd_arena *a, struct st_tensor *t, struct cd_err *err)
{
	uint64_t dims[ST_DIMS_MAX], d, n = 1;
	uint32_t nd = 0;
	int overflow = 0;

	if (jscan_expect(j, '['))
		return CD_EFORMAT;
	if (!jscan_accept(j, ']')) {
		do {
			if (nd == ST_DIMS_MAX)
				return err_set(err, CD_EFORMAT,
					       "tensor '%s': more than %d dimensions", t->name,
					       ST_DIMS_MAX);
			if (jscan_u64(j, &d))
				return CD_EFORMAT;
			dims[nd++] = d;
			if (d && n > UINT64_MAX / d)
				overflow = 1;
			n *= d;
		} while (jscan_accept(j, ','));
		if (jscan_expect(j, ']'))
			return CD_EFORMAT;
	}
	if (overflow)
		return err_set(err, CD_EFORMAT,
			       "tensor '%s': the shape's element count overflows 64 bits "
			       "(ValidationOverflow)",
			       t->name);
	t->shape = arena_calloc(a, nd ? nd : 1, sizeof(uint64_t));
	if (!t->shape)
		return err_set(err, CD_ENOMEM, "out of memory for tensor shapes");
	memcpy((uint64_t *)t->shape, dims, nd * sizeof(uint64_t));
	t->ndim = nd;
	t->nelem = n;
	return 0;
}

static int parse_offsets(struct jscan *j, struct st_tensor *t)
{
	if (jscan_expect(j, '[') || jscan_u64(j, &t->begin) || jscan_expect(j, ',') ||
	    jscan_u64(j, &t->end) || jscan_expect(j, ']'))
		return CD_EFORMAT;
	return 0;
}

/* One tensor entry: {"dtype": ..., "shape": [...], "data_offsets": [b, e]}. */
static int parse_tensor(struct jscan *j, struct cd_arena *a, struct st_tensor *t,
			struct cd_err *err)
{
	const char *key;
	int have = 0, rc;

	if (jscan_peek(j) != '{')
		return err_set(err, CD_EFORMAT, "tensor '%s': expected an object", t->name);
	j->pos++;
	if (jscan_accept(j, '}'))
		goto done;
	do {
		if (jscan_string(j, a, &key, NULL) || jscan_expect(j, ':'))
			return CD_EFORMAT;
		if (!strcmp(key, "dtype")) {
			rc = jscan_string(j, a, &t->dtype, NULL);
			have |= 1;
		} else if (!strcmp(key, "shape")) {
			rc = parse_shape(j, a, t, err);
			have |= 2;
		} else if (!strcmp(key, "data_offsets")) {
			rc = parse_offsets(j, t);
			have |= 4;
		} else {
			rc = jscan_skip(j); /* serde ignores unknown fields */
		}
		if (rc)
			return rc;
	} while (jscan_accept(j, ','));
	if (jscan_expect(j, '}'))
		return CD_EFORMAT;
done:
	if (have != 7)
		return err_set(err, CD_EFORMAT, "tensor '%s': missing %s", t->name,
			       !(have & 1)   ? "dtype"
			       : !(have & 2) ? "shape"
					     : "data_offsets");
	t->bits = st_dtype_bits(t->dtype, &t->is_float);
	if (!t->bits)
		return err_set(err, CD_EFORMAT, "tensor '%s': unknown dtype '%s'", t->name,
			       t->dtype);
	return 0;
}

/* "__metadata__": a map of strings; keep "format". */
static int parse_metadata(struct jscan *j, struct cd_arena *a, struct st_file *out)
{
	const char *k, *v;

	if (jscan_expect(j, '{'))
		return CD_EFORMAT;
	if (jscan_accept(j, '}'))
		return 0;
	do {
		if (jscan_string(j, a, &k, NULL) || jscan_expect(j, ':') ||
		    jscan_string(j, a, &v, NULL))
			return CD_EFORMAT;
		if (!strcmp(k, "format"))
			out->format = v;
	} while (jscan_accept(j, ','));
	return jscan_expect(j, '}');
}

static int parse_json(struct jscan *j, struct cd_arena *a, struct st_file *out, struct tlist *l,
		      struct cd_err *err)
{
	const char *key;
	struct st_tensor *t;
	int rc;

	if (jscan_expect(j, '{'))
		return CD_EFORMAT;
	if (!jscan_accept(j, '}')) {
		do {
			if (jscan_string(j, a, &key, NULL) || jscan_expect(j, ':'))
				return CD_EFORMAT;
			if (!strcmp(key, "__metadata__")) {
				rc = parse_metadata(j, a, out);
			} else {
				t = tlist_push(l);
				if (!t)
					return err_set(err, CD_ENOMEM, "more than %u tensors",
						       ST_TENSORS_MAX);
				t->name = key;
				rc = parse_tensor(j, a, t, err);
			}
			if (rc)
				return rc;
		} while (jscan_accept(j, ','));
		if (jscan_expect(j, '}'))
			return CD_EFORMAT;
	}
	return jscan_end(j);
}

static int by_offset(const void *x, const void *y)
{
	const struct st_tensor *a = x, *b = y;

	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_name(const void *x, const void *y)
{
	return strcmp((*(const struct st_tensor *const *)x)->name,
		      (*(const struct st_tensor *const *)y)->name);
}

/* A name twice: serde keeps the last, so the loader sees a hole. */
static int duplicates(const struct st_file *f, struct cd_err *err)
{
	const struct st_tensor **v;
	size_t i;
	int rc = 0;

	if (f->n_tensors < 2)
		return 0;
	v = malloc(f->n_tensors * sizeof(*v));
	if (!v)
		return err_set(err, CD_ENOMEM, "out of memory checking tensor names");
	for (i = 0; i < f->n_tensors; i++)
		v[i] = &f->tensors[i];
	qsort(v, f->n_tensors, sizeof(*v), by_name);
	for (i = 1; i < f->n_tensors && !rc; i++)
		if (!strcmp(v[i]->name, v[i - 1]->name))
			rc = err_set(err, CD_EFORMAT, "tensor '%s' appears twice in the header",
				     v[i]->name);
	free(v);
	return rc;
}

/* The loader's Metadata::validate: tensors tile [0, data_len) in order. */
static int validate(struct st_file *f, struct cd_err *err)
{
	uint64_t expect = 0, bits, bytes;
	size_t i;

	for (i = 0; i < f->n_tensors; i++) {
		const struct st_tensor *t = &f->tensors[i];
		if (t->end < t->begin)
			return err_set(err, CD_EFORMAT,
				       "tensor '%s': data_offsets [%llu, %llu] end "
				       "before they begin (InvalidOffset)",
				       t->name, (unsigned long long)t->begin,
				       (unsigned long long)t->end);
		if (t->begin < expect)
			return err_set(
				err, CD_EFORMAT,
				"tensor '%s' at offset %llu overlaps '%s', which ends at %llu "
				"(InvalidOffset)",
				t->name, (unsigned long long)t->begin, f->tensors[i - 1].name,
				(unsigned long long)expect);
		if (t->begin > expect)
			return err_set(err, CD_EFORMAT,
				       "bytes %llu..%llu belong to no tensor; '%s' starts at %llu "
				       "(InvalidOffset)",
				       (unsigned long long)expect, (unsigned long long)t->begin,
				       t->name, (unsigned long long)t->begin);
		if (t->nelem && t->bits > UINT64_MAX / t->nelem)
			return err_set(err, CD_EFORMAT,
				       "tensor '%s': byte size overflows 64 bits "
				       "(ValidationOverflow)",
				       t->name);
		bits = t->nelem * t->bits;
		bytes = bits / 8;
		if (bits % 8 || t->end - t->begin != bytes)
			return err_set(
				err, CD_EFORMAT,
				"tensor '%s': %s shape needs %llu bits but data_offsets span "
				"%llu bytes (TensorInvalidInfo)",
				t->name, t->dtype, (unsigned long long)bits,
				(unsigned long long)(t->end - t->begin));
		expect = t->end;
		f->n_params += t->nelem;
	}
	if (expect > f->data_len)
		return err_set(err, CD_ERANGE,
			       "tensors need %llu bytes of data but the file holds %llu: truncated",
			       (unsigned long long)expect, (unsigned long long)f->data_len);
	if (expect < f->data_len)
		return err_set(err, CD_EFORMAT,
			       "%llu bytes after the last tensor (MetadataIncompleteBuffer)",
			       (unsigned long long)(f->data_len - expect));
	return 0;
}

int st_parse(const uint8_t *p, size_t n, uint64_t file_size, struct cd_arena *a,
	     struct st_file *out, struct cd_err *err)
{
	struct tlist l = {NULL, 0, 0};
	struct jscan j;
	uint64_t hlen;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = st_header_len(p, n, file_size, &hlen, err);
	if (rc)
		return rc;
	if (!span_ok(n, 8, hlen))
		return err_set(err, CD_ERANGE, "only %zu of the %llu header bytes were read", n,
			       (unsigned long long)(8 + hlen));
	out->header_len = hlen;
	out->data_len = file_size - 8 - hlen;
	if (jscan_utf8_ok(p + 8, (size_t)hlen))
		return err_set(err, CD_EFORMAT, "header is not valid UTF-8 (InvalidHeader)");
	jscan_init(&j, p + 8, (size_t)hlen, err);
	rc = parse_json(&j, a, out, &l, err);
	if (!rc && l.n) {
		out->tensors = arena_calloc(a, l.n, sizeof(*out->tensors));
		if (!out->tensors)
			rc = err_set(err, CD_ENOMEM, "out of memory for %zu tensors", l.n);
		else
			memcpy(out->tensors, l.v, l.n * sizeof(*l.v));
		out->n_tensors = l.n;
	}
	free(l.v);
	if (rc)
		return rc;
	if (out->n_tensors > 1)
		qsort(out->tensors, out->n_tensors, sizeof(*out->tensors), by_offset);
	rc = duplicates(out, err);
	return rc ? rc : validate(out, err);
}
