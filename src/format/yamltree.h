/* yamltree: the first document of a YAML file as a tree of mappings,
 * sequences and scalars, read with libyaml's event parser (linked
 * statically): anchors and aliases are shared nodes, merge keys ("<<: *x",
 * "<<: [*a, *b]") are applied as Compose applies them (keys of the mapping win,
 * earlier merged maps before later ones). Bounded: nodes, depth, anchors and
 * merged entries have caps; an alias to a node still open is refused (no
 * cycles). Everything lives in the caller's arena; CD_EFORMAT (with the line)
 * or CD_ERANGE / CD_ENOMEM. */
#ifndef CD_YAMLTREE_H
#define CD_YAMLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define YML_INPUT_MAX	((size_t)4 << 20)
#define YML_NODES_MAX	200000 /* nodes and merged entries together */
#define YML_DEPTH_MAX	64
#define YML_ANCHORS_MAX 4096

enum yml_kind { YML_SCALAR = 1, YML_MAP, YML_SEQ };

struct yml_node {
	enum yml_kind kind;
	const char *text; /* a scalar's value */
	int quoted;	  /* a quoted (or block) scalar: never null, true or a number */
	unsigned line;	  /* 1-based */
	size_t n;
	struct yml_node **key; /* a mapping's keys (n of them) */
	struct yml_node **val; /* a mapping's values, a sequence's items */
	size_t cap;
	int open; /* being built (aliases to it are refused) */
};

CD_WUR int yamltree_load(const uint8_t *p, size_t n, struct cd_arena *a,
			 const struct yml_node **root, struct cd_err *err);
/* The value of a scalar key of a mapping, or NULL. */
const struct yml_node *yml_get(const struct yml_node *map, const char *key);
/* A plain scalar YAML reads as null ("", "~", "null"), or no node at all. */
int yml_is_null(const struct yml_node *n);
/* A scalar's text, or NULL for anything else (and for null). */
const char *yml_text(const struct yml_node *n);

#endif
