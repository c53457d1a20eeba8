/* fleetrep: see fleetrep.h. */
#include "format/fleetrep.h"

#include <string.h>

#include "core/arena.h"
#include "core/str.h"
#include "format/jscan.h"

static void copy_field(char *dst, size_t cap, const char *s, int *flag)
{
	str_copy(dst, cap, s);
	*flag = 1;
}

/* The fleet object's hostname and fingerprint; other members skipped. */
static int head_fleet(struct jscan *j, struct cd_arena *a, struct fleetrep_head *h)
{
	const char *key, *v;

	if (jscan_peek(j) == 'n') /* null: no fleet */
		return jscan_skip(j);
	if (jscan_expect(j, '{'))
		return CD_EFORMAT;
	if (jscan_accept(j, '}'))
		goto done;
	do {
		if (jscan_string(j, a, &key, NULL) || jscan_expect(j, ':'))
			return CD_EFORMAT;
		if (!strcmp(key, "hostname") && jscan_peek(j) == '"') {
			if (jscan_string(j, a, &v, NULL))
				return CD_EFORMAT;
			copy_field(h->hostname, sizeof(h->hostname), v, &h->has_hostname);
		} else if (!strcmp(key, "fingerprint") && jscan_peek(j) == '"') {
			if (jscan_string(j, a, &v, NULL))
				return CD_EFORMAT;
			copy_field(h->fingerprint, sizeof(h->fingerprint), v, &h->has_fingerprint);
		} else if (jscan_skip(j))
			return CD_EFORMAT;
	} while (jscan_accept(j, ','));
	if (jscan_expect(j, '}'))
		return CD_EFORMAT;
done:
	h->complete = 1;
	return 0;
}

int fleetrep_head(const uint8_t *p, size_t n, struct fleetrep_head *h)
{
	struct cd_arena a;
	struct jscan j;
	const char *key, *v;

	memset(h, 0, sizeof(*h));
	jscan_init(&j, p, n > FLEETREP_HEAD_MAX ? FLEETREP_HEAD_MAX : n, NULL);
	if (jscan_expect(&j, '{'))
		return CD_EFORMAT;
	arena_init(&a);
	a.max_total = (size_t)64 << 10;
	/* Errors past this point are a prefix that ended: what was read stands. */
	while (!h->complete && jscan_peek(&j) == '"') {
		if (jscan_string(&j, &a, &key, NULL) || jscan_expect(&j, ':'))
			break;
		if (!strcmp(key, "schema") && jscan_peek(&j) == '"') {
			if (jscan_string(&j, &a, &v, NULL))
				break;
			copy_field(h->schema, sizeof(h->schema), v, &h->has_schema);
		} else if (!strcmp(key, "fleet")) {
			if (head_fleet(&j, &a, h))
				break;
		} else if (!strcmp(key, "host") || !strcmp(key, "findings"))
			break; /* past where check puts fleet: no need to read on */
		else if (jscan_skip(&j))
			break;
		if (!jscan_accept(&j, ','))
			break;
	}
	arena_free(&a);
	return 0;
}

int fleetrep_schema_ok(const char *schema, struct cd_err *err)
{
	if (!schema)
		return err_set(err, CD_EFORMAT, "not a cuda-doctor report (no \"schema\" key)");
	if (!strcmp(schema, FLEETREP_SCHEMA))
		return 0;
	if (str_has_prefix(schema, "cuda-doctor.report/"))
		return err_set(err, CD_EFORMAT,
			       "schema %s: this cuda-doctor reads " FLEETREP_SCHEMA
			       " (run the same cuda-doctor on every node, or upgrade this one)",
			       schema);
	return err_set(err, CD_EFORMAT,
		       "schema '%.64s' is not a check report (" FLEETREP_SCHEMA ")", schema);
}

void fleetrep_split_init(struct fleetrep_split *s)
{
	memset(s, 0, sizeof(*s));
}

int fleetrep_split_inside(const struct fleetrep_split *s)
{
	return s->depth > 0 || s->in_string;
}

int fleetrep_split_feed(struct fleetrep_split *s, const uint8_t *p, size_t n, size_t *used)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (s->in_string) {
			if (s->escape)
				s->escape = 0;
			else if (c == '\\')
				s->escape = 1;
			else if (c == '"')
				s->in_string = 0;
			continue;
		}
		if (c == '"' && s->depth > 0)
			s->in_string = 1;
		else if (c == '{' || c == '[')
			s->depth++;
		else if ((c == '}' || c == ']') && s->depth > 0) {
			if (--s->depth == 0) {
				*used = i + 1;
				s->offset += i + 1;
				return FLEETREP_END;
			}
		} else if (s->depth == 0 && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			*used = i + 1;
			s->offset += i + 1;
			return FLEETREP_BYTE;
		}
	}
	*used = n;
	s->offset += n;
	return FLEETREP_MORE;
}

int fleetrep_parse(const uint8_t *p, size_t n, json_t **out, struct cd_err *err)
{
	json_error_t e;
	json_t *j, *schema;

	*out = NULL;
	j = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES, &e);
	if (!j) {
		/* jansson's words for input that stopped inside a value */
		if (strstr(e.text, "near end of file") || strstr(e.text, "premature end of input"))
			return err_set(err, CD_EFORMAT, "truncated JSON (line %d, column %d: %s)",
				       e.line, e.column, e.text);
		return err_set(err, CD_EFORMAT, "not JSON (line %d, column %d: %s)", e.line,
			       e.column, e.text);
	}
	if (!json_is_object(j)) {
		json_decref(j);
		return err_set(err, CD_EFORMAT, "not a cuda-doctor report (not a JSON object)");
	}
	schema = json_object_get(j, "schema");
	if (fleetrep_schema_ok(json_is_string(schema) ? json_string_value(schema) : NULL, err)) {
		json_decref(j);
		return CD_EFORMAT;
	}
	*out = j;
	return 0;
}
