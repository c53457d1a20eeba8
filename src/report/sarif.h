/* sarif: findings as a SARIF 2.1.0 log (OASIS Static Analysis Results
 * Interchange Format), one run of cuda-doctor: a rule per finding id (from
 * kb/dfrules when the id is listed there), a result per finding with its
 * file and line when it has one. Prints to out; 0 or CD_ENOMEM. */
#ifndef CD_SARIF_H
#define CD_SARIF_H

#include "core/err.h"

#include <stdio.h>

#include "facts/finding.h"

/* artifact: the file results without a location belong to (NULL: none). */
CD_WUR int sarif_print(FILE *out, const struct cd_findings *fs, const char *artifact);

#endif
