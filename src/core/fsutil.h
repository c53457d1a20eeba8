/* fsutil: small root-relative file helpers the system probes share: a
 * bounded read of a file's first bytes, an executable test, and a sorted,
 * capped directory listing. Paths are in-root (see core/file.h). Listings
 * are allocated from the caller's arena; nothing else allocates. Failures
 * are CD_E* codes; an unreadable directory is "unknown", never "empty". */
#ifndef CD_FSUTIL_H
#define CD_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

#include "core/arena.h"
#include "core/err.h"
#include "core/file.h"

/* Entries read from one directory before a listing stops (a bound on time,
 * not on what is kept). */
#define FSU_SCAN_MAX 65536

/* Open a regular file read-only (never a FIFO or device: no blocking). */
CD_WUR int fsu_open(const struct cd_root *r, const char *path);
/* Read up to cap bytes from offset 0 of a regular file; *n gets the count. */
CD_WUR int fsu_read_head(const struct cd_root *r, const char *path, void *buf, size_t cap,
			 size_t *n);
/* A regular file with an execute bit (what shutil.which accepts, less the
 * access(2) check that --root cannot make). */
int fsu_is_exec(const struct cd_root *r, const char *path);
/* Names in dir starting with prefix and ending with suffix (either may be
 * NULL), sorted, at most max. NULL when dir cannot be read; *truncated set
 * when more matched or the scan cap was hit. */
CD_WUR const char **fsu_list(struct cd_arena *a, const struct cd_root *r, const char *dir,
			     const char *prefix, const char *suffix, size_t max, size_t *n,
			     int *truncated);
/* The one path join, dir + "/" + name: trailing slashes of dir are dropped
 * (a dir of slashes alone is the root: "/name"), and an empty dir is the
 * current directory: name alone. fsu_join writes into out (0, or CD_ERANGE
 * when it does not fit); fsu_path allocates from a (NULL when dir or name is
 * NULL or memory runs out). */
CD_WUR int fsu_join(char *out, size_t cap, const char *dir, const char *name);
CD_WUR const char *fsu_path(struct cd_arena *a, const char *dir, const char *name);

#endif
