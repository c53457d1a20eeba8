/* sigdb_int: what sigdb.c (the stanzas) and sigdb_tsv.c (the tables)
 * share. Not an interface for other modules: sigdb.h is. */
#ifndef CD_SIGDB_INT_H
#define CD_SIGDB_INT_H

#include <stddef.h>

#include "core/err.h"
#include "explain/sigdb.h"

/* Add bytes to the hash the compiled database is checked against. */
void sigdb_hash_bytes(struct sigdb *db, const void *p, size_t n);
/* Lower-case letters, digits and '-', at most 64 bytes. */
int sigdb_valid_id(const char *s);
/* Resolve the alternatives' signatures (sigdb_finish, after every file). */
CD_WUR int sigdb_check_also(struct sigdb *db, struct cd_err *err);

#endif
