/* yamltree: see yamltree.h. libyaml gives events; a stack of open
 * collections turns them into nodes. A mapping's merge keys are resolved when
 * it closes, so its own keys (before or after "<<") win. */
#include "format/yamltree.h"

#include <string.h>
#include <yaml.h>

struct anchor {
	const char *name;
	struct yml_node *node;
};

struct builder {
	struct cd_arena *a;
	struct yml_node *stack[YML_DEPTH_MAX];
	struct yml_node *pending_key[YML_DEPTH_MAX];
	int depth;
	struct yml_node *root;
	struct anchor *anchors;
	size_t n_anchors;
	size_t nodes;
	struct cd_err *err;
};

static struct yml_node *new_node(struct builder *b, enum yml_kind k, unsigned line)
{
	struct yml_node *n;

	if (++b->nodes > YML_NODES_MAX) {
		err_set(b->err, CD_ERANGE, "more than %d YAML nodes", YML_NODES_MAX);
		return NULL;
	}
	n = arena_alloc(b->a, sizeof(*n));
	if (!n) {
		err_set(b->err, CD_ENOMEM, "out of memory");
		return NULL;
	}
	n->kind = k;
	n->line = line;
	return n;
}

/* Append to a collection (a mapping's key with its value). */
static int push(struct builder *b, struct yml_node *c, struct yml_node *k, struct yml_node *v)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 8;
		struct yml_node **nv = arena_calloc(b->a, nc, sizeof(*nv));
		struct yml_node **nk =
			c->kind == YML_MAP ? arena_calloc(b->a, nc, sizeof(*nk)) : NULL;
		if (!nv || (c->kind == YML_MAP && !nk))
			return err_set(b->err, CD_ENOMEM, "out of memory");
		if (c->n) {
			memcpy(nv, c->val, c->n * sizeof(*nv));
			if (nk)
				memcpy(nk, c->key, c->n * sizeof(*nk));
		}
		c->val = nv;
		c->key = nk;
		c->cap = nc;
	}
	if (c->kind == YML_MAP)
		c->key[c->n] = k;
	c->val[c->n++] = v;
	return 0;
}

static int attach(struct builder *b, struct yml_node *n)
{
	struct yml_node *top, *key;

	if (!b->depth) {
		if (!b->root)
			b->root = n;
		return 0;
	}
	top = b->stack[b->depth - 1];
	if (top->kind == YML_SEQ)
		return push(b, top, NULL, n);
	key = b->pending_key[b->depth - 1];
	if (!key) {
		b->pending_key[b->depth - 1] = n;
		return 0;
	}
	b->pending_key[b->depth - 1] = NULL;
	return push(b, top, key, n);
}

static int has_key(const struct yml_node *m, const char *k, size_t upto)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (m->key[i] && m->key[i]->kind == YML_SCALAR && !strcmp(m->key[i]->text, k))
			return 1;
	return 0;
}

static int is_merge(const struct yml_node *k)
{
	return k && k->kind == YML_SCALAR && !k->quoted && !strcmp(k->text, "<<");
}

static int merge_one(struct builder *b, struct yml_node *m, const struct yml_node *src)
{
	size_t i;
	int rc;

	if (!src || src->kind != YML_MAP)
		return err_set(b->err, CD_EFORMAT, "line %u: a merge key needs a mapping", m->line);
	for (i = 0; i < src->n; i++) {
		const struct yml_node *k = src->key[i];
		if (!k || k->kind != YML_SCALAR || has_key(m, k->text, m->n))
			continue;
		if (++b->nodes > YML_NODES_MAX)
			return err_set(b->err, CD_ERANGE,
				       "more than %d YAML nodes and merged entries", YML_NODES_MAX);
		if ((rc = push(b, m, src->key[i], src->val[i])))
			return rc;
	}
	return 0;
}

/* "<<" entries out, their mappings' keys in (where the mapping lacks them). */
static int merges(struct builder *b, struct yml_node *m)
{
	struct yml_node **mk = m->key, **mv = m->val;
	size_t n = m->n, i, k = 0, j;
	int rc;

	for (i = 0; i < n; i++)
		if (is_merge(mk[i]))
			break;
	if (i == n)
		return 0;
	m->key = arena_calloc(b->a, n ? n : 1, sizeof(*m->key));
	m->val = arena_calloc(b->a, n ? n : 1, sizeof(*m->val));
	if (!m->key || !m->val)
		return err_set(b->err, CD_ENOMEM, "out of memory");
	m->cap = n ? n : 1;
	for (i = 0; i < n; i++)
		if (!is_merge(mk[i])) {
			m->key[k] = mk[i];
			m->val[k++] = mv[i];
		}
	m->n = k;
	for (i = 0; i < n; i++) {
		if (!is_merge(mk[i]))
			continue;
		if (mv[i] && mv[i]->kind == YML_SEQ) {
			for (j = 0; j < mv[i]->n; j++)
				if ((rc = merge_one(b, m, mv[i]->val[j])))
					return rc;
		} else if ((rc = merge_one(b, m, mv[i]))) {
			return rc;
		}
	}
	return 0;
}

static int anchor(struct builder *b, const yaml_char_t *name, struct yml_node *n)
{
	if (!name)
		return 0;
	if (!b->anchors) {
		b->anchors = arena_calloc(b->a, YML_ANCHORS_MAX, sizeof(*b->anchors));
		if (!b->anchors)
			return err_set(b->err, CD_ENOMEM, "out of memory");
	}
	if (b->n_anchors == YML_ANCHORS_MAX)
		return err_set(b->err, CD_ERANGE, "more than %d YAML anchors", YML_ANCHORS_MAX);
	b->anchors[b->n_anchors].name = arena_strdup(b->a, (const char *)name);
	b->anchors[b->n_anchors].node = n;
	b->n_anchors++;
	return 0;
}

static struct yml_node *alias(struct builder *b, const yaml_char_t *name, unsigned line)
{
	size_t i;

	for (i = b->n_anchors; name && i-- > 0;)
		if (b->anchors[i].name && !strcmp(b->anchors[i].name, (const char *)name)) {
			if (b->anchors[i].node->open)
				break;
			return b->anchors[i].node;
		}
	err_set(b->err, CD_EFORMAT, "line %u: alias *%s names no finished anchor", line,
		name ? (const char *)name : "");
	return NULL;
}

static int open_collection(struct builder *b, enum yml_kind k, const yaml_char_t *anc,
			   unsigned line)
{
	struct yml_node *n;

	if (b->depth == YML_DEPTH_MAX)
		return err_set(b->err, CD_ERANGE, "line %u: YAML nested deeper than %d", line,
			       YML_DEPTH_MAX);
	if (!(n = new_node(b, k, line)) || anchor(b, anc, n))
		return b->err && b->err->code ? b->err->code : CD_ENOMEM;
	n->open = 1;
	b->stack[b->depth] = n;
	b->pending_key[b->depth] = NULL;
	b->depth++;
	return 0;
}

static int close_collection(struct builder *b)
{
	struct yml_node *n = b->stack[--b->depth];
	int rc;

	n->open = 0;
	if (n->kind == YML_MAP && (rc = merges(b, n)))
		return rc;
	return attach(b, n);
}

static int event(struct builder *b, const yaml_event_t *e)
{
	unsigned line = (unsigned)e->start_mark.line + 1;
	struct yml_node *n;

	switch (e->type) {
	case YAML_MAPPING_START_EVENT:
		return open_collection(b, YML_MAP, e->data.mapping_start.anchor, line);
	case YAML_SEQUENCE_START_EVENT:
		return open_collection(b, YML_SEQ, e->data.sequence_start.anchor, line);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT: return b->depth ? close_collection(b) : 0;
	case YAML_SCALAR_EVENT:
		if (!(n = new_node(b, YML_SCALAR, line)))
			return b->err->code;
		n->text = arena_strndup(b->a, (const char *)e->data.scalar.value,
					e->data.scalar.length);
		n->quoted = e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		if (!n->text || anchor(b, e->data.scalar.anchor, n))
			return err_set(b->err, CD_ENOMEM, "out of memory");
		return attach(b, n);
	case YAML_ALIAS_EVENT:
		if (!(n = alias(b, e->data.alias.anchor, line)))
			return CD_EFORMAT;
		return attach(b, n);
	default: return 0;
	}
}

int yamltree_load(const uint8_t *p, size_t n, struct cd_arena *a, const struct yml_node **root,
		  struct cd_err *err)
{
	struct builder b;
	yaml_parser_t parser;
	yaml_event_t e;
	int rc = 0, done = 0;

	*root = NULL;
	if (n > YML_INPUT_MAX)
		return err_set(err, CD_ERANGE, "over %zu bytes: not a Compose file", YML_INPUT_MAX);
	memset(&b, 0, sizeof(b));
	b.a = a;
	b.err = err;
	if (!yaml_parser_initialize(&parser))
		return err_set(err, CD_ENOMEM, "libyaml: out of memory");
	yaml_parser_set_input_string(&parser, p, n);
	while (!rc && !done) {
		if (!yaml_parser_parse(&parser, &e)) {
			rc = err_set(err, CD_EFORMAT, "line %zu: %s",
				     (size_t)parser.problem_mark.line + 1,
				     parser.problem ? parser.problem : "YAML syntax error");
			break;
		}
		done = e.type == YAML_STREAM_END_EVENT || e.type == YAML_DOCUMENT_END_EVENT;
		rc = event(&b, &e);
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&parser);
	if (!rc)
		*root = b.root;
	return rc;
}

const struct yml_node *yml_get(const struct yml_node *map, const char *key)
{
	size_t i;

	if (!map || map->kind != YML_MAP)
		return NULL;
	for (i = 0; i < map->n; i++)
		if (map->key[i] && map->key[i]->kind == YML_SCALAR &&
		    !strcmp(map->key[i]->text, key))
			return map->val[i];
	return NULL;
}

int yml_is_null(const struct yml_node *n)
{
	return !n || (n->kind == YML_SCALAR && !n->quoted &&
		      (!n->text[0] || !strcmp(n->text, "~") || !strcmp(n->text, "null") ||
		       !strcmp(n->text, "Null") || !strcmp(n->text, "NULL")));
}

const char *yml_text(const struct yml_node *n)
{
	return n && n->kind == YML_SCALAR && !yml_is_null(n) ? n->text : NULL;
}
