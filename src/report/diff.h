/* diff: check reports of many nodes grouped by fingerprint (report/fleet.h):
 * each distinct environment kept once as its leaves (strings interned), each
 * node as a host name and a group, so memory follows the distinct values.
 * diff_finish ranks the keys that differ and the findings only some nodes
 * have. The struct owns everything (diff_free); failures are CD_ENOMEM. */
#ifndef CD_DIFF_H
#define CD_DIFF_H

#include <jansson.h>
#include <stddef.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "format/fleetrep.h"
#include "report/fleet.h"

struct diff_pair {
	const char *key;
	const char *value; /* compact JSON text */
};

struct diff_finding {
	const char *id;
	const char *severity;
};

struct diff_group {
	char fp[FLEET_FP_MAX];
	size_t nodes;
	struct diff_pair *pairs; /* sorted by key */
	size_t n_pairs;
	struct diff_finding *findings;
	size_t n_findings;
	size_t *members; /* node indexes, after diff_finish */
	size_t n_members;
};

struct diff_node {
	const char *host;
	const char *source;
	size_t group;
	int dup; /* an earlier report gave the same host name: host is "NAME#N" */
};

struct diff_value {
	const char *value; /* NULL: the key is absent */
	size_t nodes;
	size_t *groups; /* the groups that have it */
	size_t n_groups;
};

struct diff_key {
	const char *key;
	int must; /* named by --must-match */
	size_t strays;
	struct diff_value *values; /* most nodes first: values[0] is the majority */
	size_t n_values;
};

struct diff_common {
	const struct diff_finding *f;
	size_t nodes;
	size_t *groups;
	size_t n_groups;
};

struct diff_bad {
	const char *source, *msg;
};

struct diff_set; /* an interning table (diff.c) */

struct diff {
	struct cd_arena arena;
	struct diff_node *nodes;
	size_t n_nodes, cap_nodes;
	struct diff_group *groups;
	size_t n_groups, cap_groups;
	struct diff_bad *bad;
	size_t n_bad, cap_bad;
	struct diff_set *strings, *hosts,
		*fps;		 /* interned text; host names; fingerprint -> group */
	size_t n_parsed;	 /* reports read whole */
	size_t n_duplicates;	 /* reports whose host name an earlier one had */
	size_t n_mismatch;	 /* reports whose fingerprint does not match their content */
	const char *dup_example; /* the first duplicated host name */
	/* diff_finish */
	size_t *order; /* group indexes, most nodes first */
	struct diff_key *keys;
	size_t n_keys;
	struct diff_common *partial; /* findings only some nodes have */
	size_t n_partial;
	size_t n_must_differ;
};

void diff_init(struct diff *d);
void diff_free(struct diff *d);
/* A report known by its head alone: 1 when its fingerprint was seen and
 * checked before (the node is counted, nothing more to read), 0 when the
 * whole report is needed. */
int diff_add_known(struct diff *d, const struct fleetrep_head *h, const char *source);
/* The group of a fingerprint seen and checked before; NULL when none. */
const struct diff_group *diff_group_of(const struct diff *d, const char *fp);
/* A whole report (parsed by fleetrep_parse); the tree stays the caller's. */
CD_WUR int diff_add_report(struct diff *d, json_t *report, const char *source);
/* An input that could not be read: listed, never counted as a node. */
CD_WUR int diff_add_bad(struct diff *d, const char *source, const char *msg);
/* Rank groups, keys and findings; must are --must-match patterns (fnmatch,
 * after aliases: driver, cuda, cuda-runtime, torch, torch-cuda, cudnn, nccl,
 * nccl-env). */
CD_WUR int diff_finish(struct diff *d, const char *const *must, size_t n_must);
/* The folded host list of the nodes in groups g[0..n) into out. */
CD_WUR int diff_hosts(const struct diff *d, const size_t *g, size_t n, struct cd_buf *out);
/* 1 when group g has value v. */
int diff_value_has(const struct diff_value *v, size_t g);
/* A value for people: strings without their quotes, "(absent)" for NULL. */
const char *diff_show(const char *value, char *buf, size_t cap);

#endif
