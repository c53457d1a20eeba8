/* stindex: a checkpoint's shard index ({"metadata": {"total_size": N},
 * "weight_map": {tensor: shard file}}) read in one pass without a JSON tree,
 * as jansson reads it (a repeated key: its first place, its last value).
 * Tensor names point into the caller's bytes (p must outlive x), shard names
 * into the arena, the tables are the heap's (stindex_free). CD_EFORMAT on
 * invalid JSON, CD_ERANGE past a cap (over_cap says which), CD_ENOMEM. */
#ifndef CD_STINDEX_H
#define CD_STINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

/* Distinct shard files and tensors an index may name: a real checkpoint has
 * at most a few thousand shards (the largest on the Hub a few hundred) and
 * about a hundred thousand tensors. Past either the read stops. */
#define STINDEX_SHARDS_MAX  4096u
#define STINDEX_TENSORS_MAX (1u << 20)

#define STINDEX_NONE UINT32_MAX /* a tensor whose value is not a string */

struct stindex_tensor {
	const char *name; /* len bytes, not NUL-terminated */
	uint32_t len;
	uint32_t shard; /* index into shards, or STINDEX_NONE */
};

struct stindex_shard {
	const char *name; /* NUL-terminated; as written, not yet judged a file name */
	uint32_t len;
	uint32_t n_tensors; /* tensors that map to it */
};

struct stindex {
	int has_map;	    /* weight_map is an object */
	int64_t total_size; /* metadata.total_size when an integer > 0, else -1 */
	int over_cap;	    /* 0, or 1 past STINDEX_SHARDS_MAX, 2 past STINDEX_TENSORS_MAX */
	struct stindex_tensor *tensors; /* in the file's order */
	size_t n_tensors;
	struct stindex_shard *shards; /* in the order first named */
	size_t n_shards;
	/* private: open-addressing tables of tensor and shard numbers + 1 */
	uint32_t *tslot, *sslot;
	size_t tcap, scap;
	size_t cap_tensors, cap_shards;
};

CD_WUR int stindex_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct stindex *x,
			 struct cd_err *err);
/* The shard tensor name (NUL-terminated) maps to; STINDEX_NONE when the
 * index does not list it or its value is not a string. */
uint32_t stindex_shard_of(const struct stindex *x, const char *name);
/* Frees the tables (x may be zeroed or already freed). */
void stindex_free(struct stindex *x);

#endif
