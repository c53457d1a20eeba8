/* Unit tests for report/diff: grouping by fingerprint, the known-head fast
 * path, keys ranked by strays with their majority, must-match patterns and
 * aliases, findings only some nodes have, duplicate host names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "report/diff.h"

static void add(struct diff *d, const char *host, const char *driver, const char *nccl_env,
		const char *finding)
{
	char text[1024];
	json_t *j;

	snprintf(text, sizeof(text),
		 "{\"schema\":\"cuda-doctor.report/1\",\"fleet\":{\"hostname\":\"%s\"},"
		 "\"host\":{\"hostname\":\"%s\"},\"driver\":{\"version\":\"%s\"},"
		 "\"env\":{\"variables\":{%s}},\"findings\":[%s]}",
		 host, host, driver, nccl_env, finding);
	j = json_loads(text, 0, NULL);
	assert_non_null(j);
	assert_int_equal(diff_add_report(d, j, host), 0);
	json_decref(j);
}

static const struct diff_key *key(const struct diff *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->n_keys; i++)
		if (!strcmp(d->keys[i].key, name))
			return &d->keys[i];
	return NULL;
}

static void ranks_and_must(void **state)
{
	static const char *const must[] = {"driver", "nccl-env"};
	const char *err = "{\"id\":\"driver-too-old\",\"severity\":\"error\"}";
	struct diff d;
	const struct diff_key *k;
	struct cd_buf b;

	(void)state;
	diff_init(&d);
	add(&d, "n1", "580.65.06", "", "");
	add(&d, "n2", "580.65.06", "", "");
	add(&d, "n3", "580.65.06", "", "");
	add(&d, "n4", "550.54.15", "", err);
	add(&d, "n5", "550.54.15", "", err);
	add(&d, "n6", "580.65.06", "\"NCCL_IB_DISABLE\":\"1\"", "");
	assert_int_equal(d.n_groups, 3);
	assert_int_equal(d.n_parsed, 6);
	assert_int_equal(diff_finish(&d, must, 2), 0);
	assert_int_equal(d.groups[d.order[0]].nodes, 3);
	assert_int_equal(d.n_keys, 2);
	assert_string_equal(d.keys[0].key, "driver.version"); /* 2 strays before 1 */
	k = key(&d, "driver.version");
	assert_int_equal(k->strays, 2);
	assert_true(k->must);
	assert_string_equal(k->values[0].value, "\"580.65.06\"");
	assert_int_equal(k->values[0].nodes, 4);
	buf_init(&b, 0);
	assert_int_equal(diff_hosts(&d, k->values[1].groups, k->values[1].n_groups, &b), 0);
	assert_string_equal(b.p, "n[4-5]");
	buf_free(&b);
	k = key(&d, "env.variables.NCCL_IB_DISABLE");
	assert_non_null(k);
	assert_true(k->must);
	assert_null(k->values[0].value); /* absent on the majority */
	assert_int_equal(d.n_must_differ, 2);
	assert_int_equal(d.n_partial, 1);
	assert_string_equal(d.partial[0].f->id, "driver-too-old");
	assert_int_equal(d.partial[0].nodes, 2);
	diff_free(&d);
}

static void known_heads_and_duplicates(void **state)
{
	struct diff d;
	struct fleetrep_head h;
	const struct diff_group *g;

	(void)state;
	diff_init(&d);
	add(&d, "n1", "580", "", "");
	memset(&h, 0, sizeof(h));
	h.complete = h.has_fingerprint = h.has_hostname = 1;
	snprintf(h.fingerprint, sizeof(h.fingerprint), "%s", d.groups[0].fp);
	snprintf(h.hostname, sizeof(h.hostname), "n1");
	g = diff_group_of(&d, h.fingerprint);
	assert_non_null(g);
	assert_int_equal(diff_add_known(&d, &h, "b.json"), 1);
	assert_int_equal(d.n_nodes, 2);
	assert_int_equal(d.n_parsed, 1);
	assert_int_equal(d.n_duplicates, 1);
	assert_string_equal(d.nodes[1].host, "n1#2");
	assert_true(d.nodes[1].dup);
	/* A fingerprint never read whole is not trusted. */
	snprintf(h.fingerprint, sizeof(h.fingerprint), "sha256:00");
	assert_int_equal(diff_add_known(&d, &h, "c.json"), 0);
	h.complete = 0;
	snprintf(h.fingerprint, sizeof(h.fingerprint), "%s", d.groups[0].fp);
	assert_int_equal(diff_add_known(&d, &h, "d.json"), 0);
	assert_int_equal(diff_finish(&d, NULL, 0), 0);
	assert_int_equal(d.n_keys, 0);
	diff_free(&d);
}

static void show(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(diff_show("\"a\\\"b\"", buf, sizeof(buf)), "a\"b");
	assert_string_equal(diff_show("null", buf, sizeof(buf)), "null");
	assert_string_equal(diff_show(NULL, buf, sizeof(buf)), "(absent)");
	assert_string_equal(diff_show("[\"sm_80\"]", buf, sizeof(buf)), "[\"sm_80\"]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranks_and_must),
		cmocka_unit_test(known_heads_and_duplicates),
		cmocka_unit_test(show),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
