/* Unit tests for format/policy: each subject of the gate language, comments
 * and CRLF, the "line N: reason" errors, the bounds, and version comparison on
 * the parts a requirement writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "format/policy.h"

static struct policy_rule rules[16];

static int parse(const char *text, size_t *n, struct cd_err *err)
{
	return policy_parse((const uint8_t *)text, strlen(text), rules, 16, n, err);
}

static int line(const char *text, struct policy_rule *r, struct cd_err *err)
{
	return policy_parse_line((const uint8_t *)text, strlen(text), 0, r, err);
}

static void every_subject(void **state)
{
	static const char text[] = "# the job's needs\n"
				   "driver >= 535\n"
				   "\n"
				   "cuda>=12.1   # the driver's CUDA\r\n"
				   "torch >= 2.3, < 2.6\n"
				   "gpu.count >= 8\n"
				   "gpu.cc >= 8.0\n"
				   "gpu.memory >= 80GiB\n"
				   "header cusparse.h\n"
				   "package Flash_Attn\n"
				   "package transformers >=4.40,!=4.41.0\n"
				   "nccl >= 2.18, < 2.30\n"
				   "no-errors\n"
				   "allow gpu-ecc-errors\n"
				   "probe";
	struct cd_err err = {0};
	size_t n;

	(void)state;
	if (parse(text, &n, &err))
		print_error("%s\n", err.msg);
	assert_int_equal(parse(text, &n, &err), 0);
	assert_int_equal(n, 13);
	assert_int_equal(rules[0].subject, POLICY_DRIVER);
	assert_int_equal(rules[0].line, 2);
	assert_int_equal(rules[0].n_cmp, 1);
	assert_int_equal(rules[0].cmp[0].op, POLICY_GE);
	assert_string_equal(rules[0].cmp[0].value, "535");
	assert_string_equal(rules[1].text, "cuda>=12.1");
	assert_int_equal(rules[1].line, 4);
	assert_int_equal(rules[2].subject, POLICY_TORCH);
	assert_string_equal(rules[2].spec, ">= 2.3, < 2.6");
	assert_int_equal(rules[3].cmp[0].num, 8);
	assert_string_equal(rules[4].cmp[0].value, "8.0");
	assert_int_equal(rules[5].cmp[0].num, 80ULL << 30);
	assert_string_equal(rules[6].name, "cusparse.h");
	assert_string_equal(rules[7].name, "flash-attn"); /* PEP 503 */
	assert_string_equal(rules[7].spec, "");
	assert_string_equal(rules[8].spec, ">=4.40,!=4.41.0");
	assert_int_equal(rules[9].n_cmp, 2);
	assert_int_equal(rules[9].cmp[1].op, POLICY_LT);
	assert_int_equal(rules[10].subject, POLICY_NO_ERRORS);
	assert_int_equal(rules[11].subject, POLICY_ALLOW);
	assert_string_equal(rules[11].name, "gpu-ecc-errors");
	assert_int_equal(rules[12].subject, POLICY_PROBE);
}

static void errors_name_the_line(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"driver >= 535\ndrivr >= 535\n", "line 2: unknown requirement 'drivr'"},
		{"\n\ndriver >= abc\n", "line 3: 'abc' is not a version"},
		{"cuda >= 12.x", "line 1: '12.x' is not a version"},
		{"cuda >= 12..1", "line 1: '12..1' is not a version"},
		{"driver => 535", "line 1: '=> 535': expected an operator"},
		{"driver = 535", "line 1: '= 535': expected an operator"},
		{"driver >== 535", "line 1: '>== 535': expected an operator"},
		{"driver >=", "line 1: a value must follow the operator"},
		{"gpu.count >= 8.5", "line 1: '8.5' is not a whole number"},
		{"gpu.count >= -1", "line 1: '-1' is not a whole number"},
		{"gpu.memory >= 80 apples", "line 1: '80 apples' is not a size"},
		{"header", "line 1: header needs a header file name"},
		{"header a.h b.h", "line 1: 'b.h': header takes one name"},
		{"package", "line 1: package needs a package name"},
		{"package torch >= two", "line 1: '>= two' is not a PEP 440 version specifier"},
		{"torch ~ 2", "line 1: '~ 2' is not a PEP 440 version specifier"},
		{"no-errors please", "line 1: 'please': no-errors takes nothing after it"},
		{"driver >= 535, , < 600", "line 1: '': expected an operator"},
		{"nccl > 1, > 2, > 3, > 4, > 5", "line 1: more than 4 comparisons"},
		{"driver >= 535\xc2\xa0", "line 1: a byte that is not printable ASCII"},
	};
	struct cd_err err;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		assert_int_equal(parse(bad[i].text, &n, &err), CD_EFORMAT);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg))) {
			print_error("%s -> %s\n", bad[i].text, err.msg);
			fail();
		}
	}
}

static void bounds(void **state)
{
	char big[POLICY_LINE_MAX + 8];
	char many[17 * 16];
	struct cd_err err = {0};
	size_t n, i;

	(void)state;
	memset(big, ' ', sizeof(big));
	memcpy(big, "driver", 6);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(parse(big, &n, &err), CD_EFORMAT);
	assert_string_equal(err.msg, "line 1: longer than 1023 bytes");
	for (i = 0; i < 17; i++)
		memcpy(many + 10 * i, "no-errors\n", 11);
	assert_int_equal(parse(many, &n, &err), CD_ERANGE);
	assert_string_equal(err.msg, "line 17: more than 16 requirements");
	/* A NUL in the middle of the bytes is not the end of the policy. */
	assert_int_equal(policy_parse((const uint8_t *)"driver\0 >= 1", 12, rules, 16, &n, &err),
			 CD_EFORMAT);
	/* A comment may hold anything; a blank policy holds nothing. */
	assert_int_equal(parse("# caf\xc3\xa9 \x01\n   \n\t# x\n", &n, &err), 0);
	assert_int_equal(n, 0);
}

static void one_line_without_number(void **state)
{
	struct policy_rule r;
	struct cd_err err = {0};

	(void)state;
	assert_int_equal(line("  gpu.cc >= 9.0  ", &r, &err), 1);
	assert_string_equal(r.text, "gpu.cc >= 9.0");
	assert_int_equal(r.line, 0);
	assert_int_equal(line("# nothing", &r, &err), 0);
	assert_int_equal(line("cuda >= twelve", &r, &err), CD_EFORMAT);
	assert_string_equal(err.msg,
			    "'twelve' is not a version (dotted numbers, like 535 or 12.1)");
}

static int holds(const char *found, enum policy_op op, const char *value)
{
	struct policy_cmp c = {op, "", 0};
	int res = -1;

	snprintf(c.value, sizeof(c.value), "%s", value);
	if (policy_version_holds(found, &c, &res))
		return -1;
	return res;
}

static void version_compare(void **state)
{
	(void)state;
	assert_int_equal(holds("580.159.04", POLICY_GE, "535"), 1);
	assert_int_equal(holds("470.82.01", POLICY_GE, "535"), 0);
	assert_int_equal(holds("12.4.1", POLICY_LE, "12.4"), 1); /* the parts written */
	assert_int_equal(holds("12.4.1", POLICY_GT, "12.4"), 0);
	assert_int_equal(holds("12.10", POLICY_GT, "12.9"), 1); /* numbers, not text */
	assert_int_equal(holds("535.54.03", POLICY_EQ, "535"), 1);
	assert_int_equal(holds("535.54.03", POLICY_NE, "535.54"), 0);
	assert_int_equal(holds("12", POLICY_LT, "12.1"), 1); /* a missing part is 0 */
	assert_int_equal(holds("9.1.0.70", POLICY_GE, "9"), 1);
	assert_int_equal(holds("2.21.5+cuda12.4", POLICY_GE, "2.18"), 1);
	assert_int_equal(holds("N/A", POLICY_GE, "1"), -1);
	assert_int_equal(holds("", POLICY_GE, "1"), -1);
	assert_int_equal(holds("99999999999999999999999", POLICY_GE, "1"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_subject),   cmocka_unit_test(errors_name_the_line),
		cmocka_unit_test(bounds),	   cmocka_unit_test(one_line_without_number),
		cmocka_unit_test(version_compare),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
