/* fmap: map a file read-only, root-relative, so parsers can look at a few
 * headers of a 450 MB library without reading it. The mapping belongs to the
 * struct cd_fmap and ends with fmap_close (which accepts a closed one).
 * Only regular files are mapped; an empty file is an empty span. */
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
};

/* Map path (in-root). Larger than max bytes is CD_ENOMEM. */
CD_WUR int fmap_open(const struct cd_root *r, const char *path, size_t max, struct cd_fmap *m,
		     struct cd_err *err);
/* The same for a host path (a file named on the command line). */
CD_WUR int fmap_open_host(const char *host_path, size_t max, struct cd_fmap *m, struct cd_err *err);
void fmap_close(struct cd_fmap *m);

#endif
