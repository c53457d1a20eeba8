/* fleetrep: check reports for `diff`, from untrusted bytes the caller read:
 * the head (schema, fleet) without the rest, report boundaries in a stream,
 * and a whole report as a jansson tree (a new reference; the caller caps its
 * size). Head strings are copied into fixed fields, cut when longer. Errors
 * are CD_EFORMAT with what is wrong ("truncated JSON", "schema X: ..."). */
#ifndef CD_FLEETREP_H
#define CD_FLEETREP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define FLEETREP_SCHEMA	  "cuda-doctor.report/1"
#define FLEETREP_HEAD_MAX 4096 /* bytes a head is looked for in */

struct fleetrep_head {
	char schema[64];
	char hostname[256];
	char fingerprint[80];
	int has_schema, has_hostname, has_fingerprint;
	int complete; /* the fleet object was read whole */
};

/* Read the members of the report's top-level object from p (a prefix of the
 * report is enough) up to and including "fleet". 0 also when the prefix ends
 * first (fields not reached stay unset); CD_EFORMAT when p does not start
 * like a JSON object. */
CD_WUR int fleetrep_head(const uint8_t *p, size_t n, struct fleetrep_head *h);
/* 0 when schema is the one this build reads; otherwise CD_EFORMAT with why. */
CD_WUR int fleetrep_schema_ok(const char *schema, struct cd_err *err);

/* Where each top-level JSON value of a stream ends. Feed bytes in order;
 * state carries across calls. */
struct fleetrep_split {
	int depth;
	int in_string, escape;
	uint64_t offset; /* bytes fed so far */
};

enum {
	FLEETREP_MORE = 0, /* no value ended in the bytes given */
	FLEETREP_END = 1,  /* a value ended at p[*used - 1] */
	FLEETREP_BYTE = 2  /* p[*used - 1] is neither white space nor inside a value */
};

void fleetrep_split_init(struct fleetrep_split *s);
/* Scan p[0..n): FLEETREP_END or FLEETREP_BYTE with *used the bytes consumed,
 * or FLEETREP_MORE with *used = n. 1 when the scanner is inside a value. */
int fleetrep_split_feed(struct fleetrep_split *s, const uint8_t *p, size_t n, size_t *used);
int fleetrep_split_inside(const struct fleetrep_split *s);

/* Parse a whole report (duplicate keys rejected) and check its schema. */
CD_WUR int fleetrep_parse(const uint8_t *p, size_t n, json_t **out, struct cd_err *err);

#endif
