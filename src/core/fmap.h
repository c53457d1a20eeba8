/* fmap: map a file read-only, root-relative, so parsers can look at a few
 * headers of a 450 MB library without reading it. The mapping (and, from
 * fmap_open_scan, the descriptor) belongs to the struct cd_fmap and ends
 * with fmap_close (which accepts a closed or zeroed one). Only regular files
 * are mapped; an empty file is an empty span. Open errors are CD_E* codes. */
#ifndef CD_FMAP_H
#define CD_FMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/file.h"

struct cd_fmap {
	const uint8_t *p;
	size_t n;
	dev_t dev; /* identity of the file, as the loader compares objects */
	ino_t ino;
	void *base; /* NULL when nothing is mapped */
	size_t maplen;
	int fd;	    /* kept open by fmap_open_scan, for fmap_next_data */
	int has_fd; /* fd is valid (a zeroed struct has none) */
};

/* Map path (in-root). Larger than max bytes is CD_ENOMEM. */
CD_WUR int fmap_open(const struct cd_root *r, const char *path, size_t max, struct cd_fmap *m,
		     struct cd_err *err);
/* The same for a host path (a file named on the command line). */
CD_WUR int fmap_open_host(const char *host_path, size_t max, struct cd_fmap *m, struct cd_err *err);
/* fmap_open, keeping the descriptor, for a reader that goes through much of
 * the file: fmap_data_run can then skip the holes of a sparse file. */
CD_WUR int fmap_open_scan(const struct cd_root *r, const char *path, size_t max, struct cd_fmap *m,
			  struct cd_err *err);
/* The first run of data at or after off, [*start, *end) (lseek SEEK_DATA,
 * SEEK_HOLE): *start is m->n when only a hole follows; [off, m->n) without a
 * kept descriptor or where the file system cannot tell. A hole reads as
 * zeros; on tmpfs, touching one through the mapping makes it data. */
void fmap_data_run(const struct cd_fmap *m, uint64_t off, uint64_t *start, uint64_t *end);
/* Drop the whole pages of [from, to) from the mapping: they stay in the page
 * cache and come back on the next touch, so a long walk through the file does
 * not add them up as resident memory. Outside the mapping or unmapped: no-op. */
/* Ask the kernel to read [from, to) of the mapping ahead, for a reader that
 * is about to go through it byte by byte (the mapping is advised for random
 * reads otherwise). Advice only. */
void fmap_willneed(const struct cd_fmap *m, const uint8_t *from, const uint8_t *to);
void fmap_release(const struct cd_fmap *m, const uint8_t *from, const uint8_t *to);
void fmap_close(struct cd_fmap *m);

#endif
