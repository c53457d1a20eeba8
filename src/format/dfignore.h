/* dfignore: cuda-doctor's ignore comments in Dockerfiles and Compose files,
 * in hadolint's pragma grammar (hadolint src/Hadolint/Pragma.hs) with
 * cuda-doctor's ids: "# cuda-doctor ignore=ID[,ID]..." for what the next
 * line holds, "# cuda-doctor global ignore=ID[,ID]..." for the whole file;
 * blanks around "=" and the commas, then an optional "# comment". The ids
 * are copied into the caller's arena; CD_ENOMEM is the only failure. */
#ifndef CD_DFIGNORE_H
#define CD_DFIGNORE_H

#include <stddef.h>

#include "core/arena.h"
#include "core/err.h"

#define DFIGNORE_IDS_MAX 32 /* ids one comment lists; more are dropped */

struct dfignore {
	int global;
	size_t n;
	const char *ids[DFIGNORE_IDS_MAX];
};

/* One comment line, from its '#' to the end of the line (no line end):
 * 1 with *out filled for an ignore comment, 0 for any other, CD_ENOMEM. */
CD_WUR int dfignore_parse(const char *p, size_t n, struct cd_arena *a, struct dfignore *out);
/* Whether id is among ids[0..n), or "all" is. */
int dfignore_has(const char *const *ids, size_t n, const char *id);

#endif
