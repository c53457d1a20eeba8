/* file: root-relative file access, so every probe can read an image, a
 * container's filesystem or a test fixture as if it were /.
 * Paths given to these functions are absolute paths inside the root. Symbolic
 * links are resolved inside the root (an absolute link target restarts at the
 * root, never at the host's /), with a bound on link hops. Reads are capped by
 * the caller's maximum; file_read fills a struct cd_buf the caller frees. */
#ifndef CD_FILE_H
#define CD_FILE_H

#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/err.h"

struct cd_root {
	char dir[PATH_MAX]; /* host path of the root, no trailing '/'; "" for / */
	int is_host;	    /* the root is the real / */
};

/* dir NULL or "/" means the real root. Fails unless dir is a directory. */
CD_WUR int root_init(struct cd_root *r, const char *dir, struct cd_err *err);

/* Map an absolute in-root path to a host path, resolving symbolic links
 * inside the root. The result names the final object (which may not exist:
 * resolution stops at the first missing component and appends the rest).
 * CD_ERANGE if it does not fit; CD_EFORMAT on a link loop. */
CD_WUR int root_host_path(const struct cd_root *r, const char *path, char *out, size_t cap);
/* The same for the last component itself, not what a link there points to
 * (for lstat and readlink): the parent resolved, then the name appended.
 * 0, CD_ENOENT or CD_ERANGE. */
CD_WUR int root_entry_path(const struct cd_root *r, const char *path, char *out, size_t cap);
/* Map a host path produced by root_host_path back to the in-root path. */
const char *root_strip(const struct cd_root *r, const char *host_path);

CD_WUR int file_stat(const struct cd_root *r, const char *path, struct stat *st);
CD_WUR int file_lstat(const struct cd_root *r, const char *path, struct stat *st);
int file_exists(const struct cd_root *r, const char *path);
int file_is_dir(const struct cd_root *r, const char *path);
int file_is_reg(const struct cd_root *r, const char *path);
/* Read a whole regular file, at most max bytes (more is CD_ENOMEM). */
CD_WUR int file_read(const struct cd_root *r, const char *path, size_t max, struct cd_buf *out,
		     struct cd_err *err);
/* The in-root canonical path (links resolved); CD_ENOENT if missing. */
CD_WUR int file_realpath(const struct cd_root *r, const char *path, char *out, size_t cap);
CD_WUR DIR *file_opendir(const struct cd_root *r, const char *path);
/* readlink of the last component, not followed. */
CD_WUR int file_readlink(const struct cd_root *r, const char *path, char *out, size_t cap);

#endif
