/* outfile: where a command writes its report: stdout, or a file replaced
 * atomically (`-o FILE` writes FILE.tmp, then renames it over FILE, so a
 * reader such as node_exporter's textfile collector never sees half a file).
 * The struct is caller storage; a failed or aborted write leaves FILE as it
 * was and removes FILE.tmp. Failures are CD_EIO / CD_ERANGE with the path. */
#ifndef CD_OUTFILE_H
#define CD_OUTFILE_H

#include <limits.h>
#include <stdio.h>

#include "core/err.h"

struct cd_outfile {
	FILE *fp;
	int is_file; /* 0: fp is stdout */
	char path[PATH_MAX];
	char tmp[PATH_MAX];
};

/* path NULL or "-": stdout. A path that exists and is not a regular file (a
 * device, a FIFO, a directory) is refused, never replaced. */
CD_WUR int outfile_open(struct cd_outfile *o, const char *path, struct cd_err *err);
/* Flush; for a file, fsync, close and rename over the path. */
CD_WUR int outfile_commit(struct cd_outfile *o, struct cd_err *err);
/* Close and remove the temporary file (nothing for stdout). */
void outfile_abort(struct cd_outfile *o);

#endif
