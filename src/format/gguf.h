/* gguf: the header of a GGUF file (metadata key/values and tensor infos),
 * read without the tensor data. Layout from ggml-org/ggml docs/gguf.md,
 * versions 2 and 3 (64-bit counts and string lengths; version 1 used 32-bit
 * ones and is rejected with a message): magic "GGUF", u32 version, u64 tensor
 * count, u64 key/value count, the key/values, the tensor infos (name, u32 n_dims,
 * u64 dims, u32 ggml type, u64 offset), padding to general.alignment (default
 * 32), then the data. Everything gguf_parse returns lives in the caller's arena.
 * Failures: CD_ERANGE when the bytes end before the header does (out->need_more
 * says whether a longer prefix of the file could help), CD_EFORMAT for an
 * invalid or inconsistent header, CD_ENOMEM when a cap is hit. */
#ifndef CD_GGUF_H
#define CD_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define GGUF_DIMS_MAX	   4 /* GGML_MAX_DIMS */
#define GGUF_TENSORS_MAX   (1u << 20)
#define GGUF_KV_MAX	   (1u << 16)
#define GGUF_STRING_MAX	   (1u << 24)
#define GGUF_ARRAY_DEPTH   4
#define GGUF_DEFAULT_ALIGN 32

enum gguf_vtype {
	GGUF_T_UINT8 = 0,
	GGUF_T_INT8,
	GGUF_T_UINT16,
	GGUF_T_INT16,
	GGUF_T_UINT32,
	GGUF_T_INT32,
	GGUF_T_FLOAT32,
	GGUF_T_BOOL,
	GGUF_T_STRING,
	GGUF_T_ARRAY,
	GGUF_T_UINT64,
	GGUF_T_INT64,
	GGUF_T_FLOAT64,
	GGUF_T_COUNT
};

struct gguf_kv {
	const char *key;
	uint32_t type;	   /* enum gguf_vtype */
	const char *str;   /* GGUF_T_STRING */
	uint64_t u;	   /* unsigned and bool values, and non-negative signed ones */
	int64_t i;	   /* signed values */
	int is_int;	   /* an integer (or bool) scalar: u / i are set */
	uint32_t arr_type; /* GGUF_T_ARRAY: element type */
	uint64_t arr_len;  /* GGUF_T_ARRAY: element count */
};

struct gguf_tensor {
	const char *name;
	uint32_t ndim;
	uint64_t dims[GGUF_DIMS_MAX];
	uint32_t type;	       /* ggml_type */
	const char *type_name; /* "Q4_K", NULL when the type is unknown */
	uint64_t offset;       /* relative to the data start */
	uint64_t nelem;
	uint64_t nbytes; /* 0 when the type is unknown */
};

struct gguf_file {
	uint32_t version;
	uint64_t n_tensors, n_kv;
	struct gguf_kv *kv;
	struct gguf_tensor *tensors;
	uint32_t alignment;
	uint64_t data_offset; /* where the tensor data starts in the file */
	uint64_t n_params;
	uint64_t data_bytes; /* sum of nbytes of the known-type tensors */
	size_t n_unknown_types;
	int need_more; /* CD_ERANGE only: a longer prefix may succeed */
};

/* ggml type name and block geometry; 0 when the type id is unknown. */
CD_WUR int gguf_type_info(uint32_t type, const char **name, uint32_t *block, uint32_t *type_size);

/* p holds the first n bytes of a file of file_size bytes. */
CD_WUR int gguf_parse(const uint8_t *p, size_t n, uint64_t file_size, struct cd_arena *a,
		      struct gguf_file *out, struct cd_err *err);

/* A key/value by key, or NULL; an integer value by key (0) or CD_ENOENT. */
const struct gguf_kv *gguf_get(const struct gguf_file *g, const char *key);
CD_WUR int gguf_get_u64(const struct gguf_file *g, const char *key, uint64_t *out);

#endif
