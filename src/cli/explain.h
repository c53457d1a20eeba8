/* explain: what `explain` and `run` share. explain_finish ranks the
 * diagnoses, cross-checks them with the environment unless no_env (probing
 * under --root when given), and renders them to out in the chosen format.
 * Returns 0 or a CD_E* code; the caller keeps ownership of res. */
#ifndef CD_CLI_EXPLAIN_H
#define CD_CLI_EXPLAIN_H

#include <stdio.h>

#include "core/err.h"
#include "core/opts.h"
#include "explain/scan.h"

CD_WUR int explain_finish(const struct xs_db *db, struct xs_result *res, struct cd_opts *opts,
			  int no_env, FILE *out, const char *command, int exit_status);

#endif
