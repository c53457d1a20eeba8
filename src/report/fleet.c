/* fleet: see fleet.h. Paths are built in fixed buffers: a key longer than
 * FLEET_KEY_MAX is cut (and so kept: no table row is that long). */
#include "report/fleet.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/sha256.h"
#include "core/str.h"
#include "kb/fleetkeys.h"

/* Members that name an element of an array of objects, in order of
 * preference: gpus by index, findings by id, libraries by soname, toolkits by
 * root, LD_LIBRARY_PATH entries and site directories by path. */
static const char *const id_members[] = {"index", "id", "soname", "name", "root", "path"};

static void path_join(char *out, size_t cap, const char *base, const char *name)
{
	snprintf(out, cap, *base ? "%s.%s" : "%s%s", base, name);
}

static json_t *copy_value(const json_t *v, const char *pattern);

static json_t *copy_object(const json_t *o, const char *pattern)
{
	json_t *out = json_object(), *v;
	const char *name;
	char sub[FLEET_KEY_MAX];

	if (!out)
		return NULL;
	json_object_foreach((json_t *)o, name, v)
	{
		json_t *c;
		path_join(sub, sizeof(sub), pattern, name);
		if (fleetkeys_kind(sub) != FLEETKEY_KEEP)
			continue;
		c = copy_value(v, sub);
		if (!c || json_object_set_new(out, name, c)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

static json_t *copy_value(const json_t *v, const char *pattern)
{
	char sub[FLEET_KEY_MAX];
	json_t *out, *e;
	size_t i;

	if (json_is_object(v))
		return copy_object(v, pattern);
	if (!json_is_array(v))
		return json_deep_copy(v);
	out = json_array();
	snprintf(sub, sizeof(sub), "%s[]", pattern);
	json_array_foreach(v, i, e)
	{
		json_t *c = copy_value(e, sub);
		if (!out || !c || json_array_append_new(out, c)) {
			json_decref(out);
			return NULL;
		}
	}
	return out;
}

json_t *fleet_normalised(const json_t *report)
{
	return copy_value(report, "");
}

int fleet_fingerprint(const json_t *report, char out[FLEET_FP_MAX])
{
	json_t *n = fleet_normalised(report);
	char *text = n ? json_dumps(n, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	char hex[SHA256_HEX];

	json_decref(n);
	if (!text)
		return CD_ENOMEM;
	sha256_hex(text, strlen(text), hex);
	free(text);
	snprintf(out, FLEET_FP_MAX, "%s%s", FLEET_FP_PREFIX, hex);
	return 0;
}

static void null_volatile(json_t *v, char *pattern)
{
	size_t plen = strlen(pattern), i;
	const char *name;
	json_t *m;

	if (json_is_array(v)) {
		snprintf(pattern + plen, FLEET_KEY_MAX - plen, "[]");
		json_array_foreach(v, i, m) null_volatile(m, pattern);
	} else if (json_is_object(v)) {
		json_object_foreach(v, name, m)
		{
			snprintf(pattern + plen, FLEET_KEY_MAX - plen, plen ? ".%s" : "%s", name);
			if (fleetkeys_kind(pattern) == FLEETKEY_VOLATILE)
				json_object_set_new(v, name, json_null());
			else
				null_volatile(m, pattern);
			pattern[plen] = '\0';
		}
	}
	pattern[plen] = '\0';
}

json_t *fleet_stamp(json_t *report, int keep_volatile)
{
	char pattern[FLEET_KEY_MAX] = "", fp[FLEET_FP_MAX];
	json_t *out = NULL, *fleet, *host, *m;
	const char *name;

	if (!report)
		return NULL;
	if (!keep_volatile)
		null_volatile(report, pattern);
	if (fleet_fingerprint(report, fp))
		goto out;
	host = json_object_get(json_object_get(report, "host"), "hostname");
	fleet = json_pack("{s:O, s:s, s:b}", "hostname", host ? host : json_null(), "fingerprint",
			  fp, "volatile", keep_volatile);
	out = json_object();
	if (!fleet || !out) {
		json_decref(fleet);
		json_decref(out);
		out = NULL;
		goto out;
	}
	json_object_foreach(report, name, m)
	{
		json_object_set(out, name, m);
		if (!strcmp(name, "tool"))
			json_object_set(out, "fleet", fleet);
	}
	if (!json_object_get(out, "fleet"))
		json_object_set(out, "fleet", fleet);
	json_decref(fleet);
out:
	json_decref(report);
	return out;
}

/* ---- leaves ---------------------------------------------------------------- */

static int walk(const json_t *v, char *key, char *pattern, const struct fleet_walk *w);

static int objects_only(const json_t *a)
{
	json_t *e;
	size_t i;

	json_array_foreach(a, i, e) if (!json_is_object(e)) return 0;
	return json_array_size(a) > 0;
}

/* The element's name: its first identifying member, "#2" appended for a name
 * an earlier element already had; its position when it has none. */
static void element_name(const json_t *a, size_t i, char *out, size_t cap)
{
	const json_t *e = json_array_get(a, i);
	size_t m, k, dup = 0;

	for (m = 0; m < sizeof(id_members) / sizeof(id_members[0]); m++) {
		const json_t *id = json_object_get(e, id_members[m]);
		if (json_is_string(id))
			str_copy(out, cap, json_string_value(id));
		else if (json_is_integer(id))
			snprintf(out, cap, "%lld", (long long)json_integer_value(id));
		else
			continue;
		for (k = 0; k < i; k++)
			if (json_equal(json_object_get(json_array_get(a, k), id_members[m]), id))
				dup++;
		if (dup) {
			size_t len = strlen(out);
			snprintf(out + len, cap - len, "#%zu", dup + 1);
		}
		return;
	}
	snprintf(out, cap, "%zu", i);
}

static int walk_array(const json_t *a, char *key, char *pattern, const struct fleet_walk *w)
{
	size_t klen = strlen(key), plen = strlen(pattern), i;
	char name[128];
	json_t *count;
	int rc = 0;

	if (!objects_only(a))
		return w->leaf(w->ctx, key, a);
	count = json_integer((json_int_t)json_array_size(a));
	snprintf(key + klen, FLEET_KEY_MAX - klen, ".count");
	rc = count ? w->leaf(w->ctx, key, count) : CD_ENOMEM;
	json_decref(count);
	snprintf(pattern + plen, FLEET_KEY_MAX - plen, "[]");
	for (i = 0; i < json_array_size(a) && !rc; i++) {
		element_name(a, i, name, sizeof(name));
		snprintf(key + klen, FLEET_KEY_MAX - klen, "[%s]", name);
		rc = walk(json_array_get(a, i), key, pattern, w);
	}
	key[klen] = '\0';
	pattern[plen] = '\0';
	return rc;
}

static int walk(const json_t *v, char *key, char *pattern, const struct fleet_walk *w)
{
	size_t klen = strlen(key), plen = strlen(pattern);
	const char *name;
	json_t *m;
	int rc = 0;

	if (json_is_array(v))
		return walk_array(v, key, pattern, w);
	if (!json_is_object(v))
		return w->leaf(w->ctx, key, v);
	if (!json_object_size(v))
		return 0; /* {}: its members, when another node has some, are absent here */
	json_object_foreach((json_t *)v, name, m)
	{
		snprintf(pattern + plen, FLEET_KEY_MAX - plen, plen ? ".%s" : "%s", name);
		snprintf(key + klen, FLEET_KEY_MAX - klen, klen ? ".%s" : "%s", name);
		if (fleetkeys_kind(pattern) != FLEETKEY_KEEP ||
		    (!plen && !strcmp(name, "findings")))
			continue;
		rc = walk(m, key, pattern, w);
		if (rc)
			break;
	}
	key[klen] = '\0';
	pattern[plen] = '\0';
	return rc;
}

int fleet_leaves(const json_t *report, const struct fleet_walk *w)
{
	char key[FLEET_KEY_MAX] = "", pattern[FLEET_KEY_MAX] = "";

	return walk(report, key, pattern, w);
}
