/* zip: a member of a zip archive (a wheel) found in the bytes the caller
 * mapped: the end record, the central directory (ZIP64 included), the local
 * header and where the data starts, every offset checked before use. Nothing
 * is allocated. 0, CD_ENOENT when no member matches, CD_EFORMAT for a damaged
 * or encrypted archive, CD_ERANGE for offsets outside it. */
#ifndef CD_ZIP_H
#define CD_ZIP_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define ZIP_METHOD_STORED  0
#define ZIP_METHOD_DEFLATE 8

struct zip_member {
	uint16_t method;	  /* ZIP_METHOD_* (others are returned too; the caller decides) */
	uint64_t comp_size, size; /* compressed and uncompressed bytes */
	uint32_t crc32;
	uint64_t data_off; /* the first byte of its data in the archive */
	size_t name_len;
};

/* The member named name exactly ("torch/lib/libtorch_cuda.so"). */
CD_WUR int zip_find(const uint8_t *p, size_t n, const char *name, struct zip_member *out,
		    struct cd_err *err);
/* The first member whose name ends with suffix and lies directly in a
 * top-level folder ("X.dist-info/METADATA" for suffix ".dist-info/METADATA");
 * its name into name[cap] (truncated names do not match). */
CD_WUR int zip_find_suffix(const uint8_t *p, size_t n, const char *suffix, char *name, size_t cap,
			   struct zip_member *out, struct cd_err *err);

#endif
