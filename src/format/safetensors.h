/* safetensors: the header of a .safetensors file, read without its tensor data.
 * Layout (huggingface/safetensors, safetensors/src/tensor.rs): an 8-byte
 * little-endian header length N, N bytes of UTF-8 JSON mapping tensor names to
 * {dtype, shape, data_offsets} (plus an optional "__metadata__" string map),
 * then the data. Offsets are relative to the data start; the loader requires
 * the tensors to tile the data exactly, in offset order, with nothing left over.
 * Everything st_parse returns lives in the caller's arena. Failures: CD_ERANGE
 * when the file is shorter than its header says (a truncated download),
 * CD_EFORMAT when the header is invalid or inconsistent, CD_ENOMEM when a cap is
 * hit; err says which tensor and why. */
#ifndef CD_SAFETENSORS_H
#define CD_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

/* The reference loader's own cap (MAX_HEADER_SIZE = 100_000_000). */
#define ST_HEADER_MAX  100000000ULL
#define ST_TENSORS_MAX (1u << 20)
#define ST_DIMS_MAX    64

struct st_tensor {
	const char *name;
	const char *dtype; /* as spelled in the header ("BF16") */
	unsigned bits;	   /* bits per element */
	int is_float;	   /* a floating-point dtype (converted by a dtype cast) */
	uint32_t ndim;
	const uint64_t *shape;
	uint64_t nelem;
	uint64_t begin, end; /* [begin, end) relative to the data start */
};

struct st_file {
	uint64_t header_len; /* N */
	uint64_t data_len;   /* file size - 8 - N */
	const char *format;  /* __metadata__["format"] ("pt"), NULL when absent */
	size_t n_tensors;
	struct st_tensor *tensors; /* sorted by begin offset */
	uint64_t n_params;	   /* sum of nelem */
};

/* Bits per element of a dtype name, 0 when unknown; *is_float set if known. */
unsigned st_dtype_bits(const char *name, int *is_float);

/* From the first bytes of a file of file_size bytes (n >= 8), the header length
 * N. CD_ERANGE when the file cannot hold 8 + N bytes, CD_EFORMAT when N exceeds
 * ST_HEADER_MAX. */
CD_WUR int st_header_len(const uint8_t *p, size_t n, uint64_t file_size, uint64_t *len,
			 struct cd_err *err);

/* Parse and validate the header. p holds at least the first 8 + N bytes of the
 * file; file_size is the size of the whole file. */
CD_WUR int st_parse(const uint8_t *p, size_t n, uint64_t file_size, struct cd_arena *a,
		    struct st_file *out, struct cd_err *err);

#endif
