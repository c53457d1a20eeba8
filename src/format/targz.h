/* targz: a .tar.gz writer: POSIX ustar members (regular files 0644 and
 * directories 0755, owner 0, no user or group names, one mtime for all)
 * compressed by zlib's deflate into one gzip stream (no file name, mtime 0 in
 * its header), handed to the caller's sink. The writer owns its zlib state
 * until targz_close or targz_abort. Errors: CD_EFORMAT for a name ustar
 * cannot hold, CD_ENOMEM, CD_EINTERNAL from zlib, or the sink's own code. */
#ifndef CD_TARGZ_H
#define CD_TARGZ_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "core/err.h"

#define TAR_BLOCK    512
#define TARGZ_LEVEL  6 /* zlib's default: 5-10x on logs at ~50 MB/s */
#define TARGZ_OUTBUF ((size_t)64 << 10)

/* The sink: 0, or a CD_E* code that stops the archive. */
typedef int (*targz_sink)(void *ctx, const uint8_t *p, size_t n);

struct targz {
	z_stream z;
	targz_sink sink;
	void *ctx;
	int64_t mtime;
	uint64_t bytes_in, bytes_out;
	size_t members;
	int open;
	uint8_t out[TARGZ_OUTBUF];
};

/* One ustar header: type '0' (file) or '5' (directory). Names up to 100
 * bytes, or split at a '/' into a prefix of up to 155 and a name of up to
 * 100. 0 or CD_EFORMAT. */
CD_WUR int targz_header(uint8_t h[TAR_BLOCK], const char *name, uint64_t size, int64_t mtime,
			char type);

CD_WUR int targz_open(struct targz *t, targz_sink sink, void *ctx, int64_t mtime,
		      struct cd_err *err);
/* A regular file member of n bytes. */
CD_WUR int targz_add(struct targz *t, const char *name, const void *p, size_t n,
		     struct cd_err *err);
/* A directory member ("name/"). */
CD_WUR int targz_dir(struct targz *t, const char *name, struct cd_err *err);
/* The end of the archive (two zero blocks) and of the gzip stream. */
CD_WUR int targz_close(struct targz *t, struct cd_err *err);
/* Free the zlib state without finishing (after an error); accepts a closed one. */
void targz_abort(struct targz *t);

#endif
