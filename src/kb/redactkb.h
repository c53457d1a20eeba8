/* redactkb: the redaction rules of data/redact_rules.tsv (each row with its
 * samples and sources) loaded into a redact set, in the table's order. The
 * set belongs to the caller (rd_set_free). A row that does not compile fails
 * the load with CD_EFORMAT naming its line: a bundle never runs with a rule
 * missing. */
#ifndef CD_REDACTKB_H
#define CD_REDACTKB_H

#include "core/err.h"
#include "format/redact.h"

#define REDACTKB_FILE "redact_rules.tsv"

/* Every rule of the table into a new set. */
CD_WUR int redactkb_load(struct rd_set **out, struct cd_err *err);
/* Only the rule named `only` (NULL: every rule): the unit test's samples. */
CD_WUR int redactkb_load_only(struct rd_set **out, const char *only, struct cd_err *err);

#endif
