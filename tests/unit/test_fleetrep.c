/* Unit tests for format/fleetrep: the head of a report from a prefix, the
 * schema check, the stream splitter across pieces, and the parse errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "format/fleetrep.h"

#define REPORT                                                                                     \
	"{\n  \"schema\": \"cuda-doctor.report/1\",\n  \"tool\": {\"name\": \"cuda-doctor\", "     \
	"\"root\": \"/\"},\n  \"fleet\": {\"hostname\": \"gpu\\u0030017\", \"fingerprint\": "      \
	"\"sha256:ab\", \"volatile\": false},\n  \"host\": {\"hostname\": \"gpu0017\"}\n}\n"

static void head_of_a_prefix(void **state)
{
	struct fleetrep_head h;
	const uint8_t *p = (const uint8_t *)REPORT;
	size_t fleet_end = strstr(REPORT, "\"host\"") - REPORT;

	(void)state;
	assert_int_equal(fleetrep_head(p, strlen(REPORT), &h), 0);
	assert_true(h.has_schema && h.has_hostname && h.has_fingerprint && h.complete);
	assert_string_equal(h.schema, "cuda-doctor.report/1");
	assert_string_equal(h.hostname, "gpu0017"); /* escapes decoded */
	assert_string_equal(h.fingerprint, "sha256:ab");
	/* Enough to reach the end of fleet: complete. */
	assert_int_equal(fleetrep_head(p, fleet_end, &h), 0);
	assert_true(h.complete);
	/* Cut inside fleet: what was read stands, not complete. */
	assert_int_equal(fleetrep_head(p, strstr(REPORT, "\"fingerprint\"") - REPORT + 5, &h), 0);
	assert_true(h.has_hostname);
	assert_false(h.has_fingerprint);
	assert_false(h.complete);
	assert_int_equal(fleetrep_head((const uint8_t *)"[1]", 3, &h), CD_EFORMAT);
	assert_int_equal(fleetrep_head((const uint8_t *)"", 0, &h), CD_EFORMAT);
	/* A report without fleet (an older cuda-doctor): stops at host. */
	assert_int_equal(fleetrep_head((const uint8_t *)"{\"schema\":\"s\",\"host\":{}}", 24, &h),
			 0);
	assert_true(h.has_schema);
	assert_false(h.complete);
}

static void schema(void **state)
{
	struct cd_err err = {0};

	(void)state;
	assert_int_equal(fleetrep_schema_ok("cuda-doctor.report/1", &err), 0);
	assert_int_equal(fleetrep_schema_ok("cuda-doctor.report/2", &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "schema cuda-doctor.report/2: this cuda-doctor reads"));
	assert_int_equal(fleetrep_schema_ok("cuda-doctor.gate/1", &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "is not a check report"));
	assert_int_equal(fleetrep_schema_ok(NULL, &err), CD_EFORMAT);
	assert_string_equal(err.msg, "not a cuda-doctor report (no \"schema\" key)");
}

static void split_across_pieces(void **state)
{
	static const char text[] = " {\"a\":\"}{\\\"\"}\n{\"b\":[1,{}]}x{}";
	struct fleetrep_split s;
	size_t ends[8], n_ends = 0, pos = 0, used, step;
	int ev, byte = 0;

	(void)state;
	for (step = 1; step <= sizeof(text); step++) {
		fleetrep_split_init(&s);
		n_ends = 0;
		byte = 0;
		pos = 0;
		while (pos < sizeof(text) - 1) {
			size_t len = sizeof(text) - 1 - pos < step ? sizeof(text) - 1 - pos : step;
			ev = fleetrep_split_feed(&s, (const uint8_t *)text + pos, len, &used);
			pos += used;
			if (ev == FLEETREP_END)
				ends[n_ends++] = (size_t)s.offset;
			if (ev == FLEETREP_BYTE)
				byte = (int)s.offset;
		}
		assert_int_equal(n_ends, 3);
		assert_int_equal(ends[0], 13); /* the braces inside the string did not count */
		assert_int_equal(ends[1], 26);
		assert_int_equal(byte, 27); /* the 'x' */
		assert_int_equal(ends[2], 29);
		assert_false(fleetrep_split_inside(&s));
	}
}

static void parse_errors(void **state)
{
	struct cd_err err = {0};
	json_t *j;

	(void)state;
	assert_int_equal(fleetrep_parse((const uint8_t *)REPORT, strlen(REPORT), &j, &err), 0);
	json_decref(j);
	assert_int_equal(fleetrep_parse((const uint8_t *)REPORT, 60, &j, &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "truncated JSON (line 3"));
	assert_null(j);
	assert_int_equal(
		fleetrep_parse((const uint8_t *)"{\"schema\":1,\"schema\":2}", 23, &j, &err),
		CD_EFORMAT);
	assert_non_null(strstr(err.msg, "duplicate"));
	assert_int_equal(fleetrep_parse((const uint8_t *)"{\"x\":1}", 7, &j, &err), CD_EFORMAT);
	assert_string_equal(err.msg, "not a cuda-doctor report (no \"schema\" key)");
	assert_int_equal(fleetrep_parse((const uint8_t *)"nope", 4, &j, &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "not JSON (line 1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(head_of_a_prefix),
		cmocka_unit_test(schema),
		cmocka_unit_test(split_across_pieces),
		cmocka_unit_test(parse_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
