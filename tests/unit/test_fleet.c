/* Unit tests for report/fleet: the normalised report and its fingerprint
 * (data/fleet_keys.tsv), the fleet object's place, and the leaf names diff
 * compares. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet.h"

static json_t *load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	assert_non_null(j);
	return j;
}

static void normalised_drops_identity_and_volatile(void **state)
{
	json_t *r =
		load("{\"schema\":\"s\",\"tool\":{\"root\":\"/x\",\"version\":\"1\"},"
		     "\"fleet\":{\"hostname\":\"a\"},\"host\":{\"hostname\":\"a\",\"os_id\":\"d\"},"
		     "\"gpus\":[{\"index\":0,\"uuid\":\"GPU-1\",\"memory_free_bytes\":5,"
		     "\"memory_total_bytes\":9}]}");
	json_t *n = fleet_normalised(r);
	char *text = json_dumps(n, JSON_COMPACT | JSON_SORT_KEYS);

	(void)state;
	assert_string_equal(text, "{\"gpus\":[{\"index\":0,\"memory_total_bytes\":9}],"
				  "\"host\":{\"os_id\":\"d\"},\"schema\":\"s\","
				  "\"tool\":{\"version\":\"1\"}}");
	free(text);
	json_decref(n);
	json_decref(r);
}

static void fingerprint_ignores_identity_not_environment(void **state)
{
	json_t *a = load("{\"host\":{\"hostname\":\"a\"},\"driver\":{\"version\":\"580\"}}");
	json_t *b = load("{\"host\":{\"hostname\":\"b\"},\"driver\":{\"version\":\"580\"}}");
	json_t *c = load("{\"host\":{\"hostname\":\"a\"},\"driver\":{\"version\":\"550\"}}");
	char fa[FLEET_FP_MAX], fb[FLEET_FP_MAX], fc[FLEET_FP_MAX];

	(void)state;
	assert_int_equal(fleet_fingerprint(a, fa), 0);
	assert_int_equal(fleet_fingerprint(b, fb), 0);
	assert_int_equal(fleet_fingerprint(c, fc), 0);
	assert_string_equal(fa, fb);
	assert_string_not_equal(fa, fc);
	assert_int_equal(strncmp(fa, "sha256:", 7), 0);
	assert_int_equal(strlen(fa), 7 + 64);
	/* {"driver":{"version":"580"},"host":{}}: what sha256sum says of those bytes. */
	assert_string_equal(fa + 7,
			    "2f68062ab4fab57a4813d0a4a6b8ea306118ab29b59284849095d6dc806ce0a4");
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

static void stamp_places_fleet_after_tool(void **state)
{
	json_t *r = load("{\"schema\":\"s\",\"tool\":{},\"host\":{\"hostname\":\"n1\"},"
			 "\"gpus\":[{\"memory_free_bytes\":5,\"memory_used_bytes\":1}]}");
	json_t *s = fleet_stamp(json_incref(r), 0), *v = fleet_stamp(r, 1);
	const char *order[] = {"schema", "tool", "fleet", "host", "gpus"}, *name;
	json_t *m;
	size_t i = 0;

	(void)state;
	json_object_foreach(s, name, m) assert_string_equal(name, order[i++]);
	assert_int_equal(i, 5);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(s, "fleet"), "hostname")), "n1");
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(s, "gpus"), 0),
						 "memory_free_bytes")));
	assert_true(json_is_false(json_object_get(json_object_get(s, "fleet"), "volatile")));
	json_decref(s);
	json_decref(v);
}

struct seen {
	char keys[16][FLEET_KEY_MAX];
	char values[16][64];
	size_t n;
};

static int collect(void *ctx, const char *key, const json_t *value)
{
	struct seen *s = ctx;
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	assert_true(s->n < 16);
	snprintf(s->keys[s->n], FLEET_KEY_MAX, "%s", key);
	snprintf(s->values[s->n++], 64, "%s", text);
	free(text);
	return 0;
}

static void leaves_name_elements_by_identity(void **state)
{
	json_t *r =
		load("{\"gpus\":[{\"index\":0,\"uuid\":\"u\",\"name\":\"H\"}],\"findings\":[{"
		     "\"id\":\"x\"}],"
		     "\"libraries\":{\"items\":[{\"soname\":\"libnccl.so.2\",\"version\":\"2.21\"},"
		     "{\"soname\":\"libnccl.so.2\",\"version\":\"2.18\"},{\"soname\":null,\"name\":"
		     "\"a\"}]},"
		     "\"torch\":{\"arch_list\":[\"sm_80\",\"sm_90\"]},\"empty\":{}}");
	static const char *const want[][2] = {
		{"gpus.count", "1"},
		{"gpus[0].index", "0"},
		{"gpus[0].name", "\"H\""},
		{"libraries.items.count", "3"},
		{"libraries.items[libnccl.so.2].soname", "\"libnccl.so.2\""},
		{"libraries.items[libnccl.so.2].version", "\"2.21\""},
		{"libraries.items[libnccl.so.2#2].soname", "\"libnccl.so.2\""},
		{"libraries.items[libnccl.so.2#2].version", "\"2.18\""},
		{"libraries.items[a].soname", "null"},
		{"libraries.items[a].name", "\"a\""},
		{"torch.arch_list", "[\"sm_80\",\"sm_90\"]"}}; /* "empty": {} has no leaf */
	struct seen s = {0};
	struct fleet_walk w = {collect, &s};
	size_t i;

	(void)state;
	assert_int_equal(fleet_leaves(r, &w), 0);
	assert_int_equal(s.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < s.n; i++) {
		assert_string_equal(s.keys[i], want[i][0]);
		assert_string_equal(s.values[i], want[i][1]);
	}
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normalised_drops_identity_and_volatile),
		cmocka_unit_test(fingerprint_ignores_identity_not_environment),
		cmocka_unit_test(stamp_places_fleet_after_tool),
		cmocka_unit_test(leaves_name_elements_by_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
