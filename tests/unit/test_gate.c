/* Unit tests for check/gate: requirements judged against facts built by hand:
 * versions, GPUs, findings with allow, values that are not versions, unknown
 * facts failing (never passing), and the finding that explains a failure. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "check/gate.h"
#include "check_helpers.h"

static struct policy_rule rules[16];
static struct gate_result res[16];

/* Judge text (a policy) against c; the number of results. */
static size_t judge(struct ctx *c, const char *text, const char *const *allow, size_t n_allow)
{
	struct gate_policy p = {rules, 0, NULL, allow, n_allow};
	struct cd_err err = {0};

	if (policy_parse((const uint8_t *)text, strlen(text), rules, 16, &p.n_rules, &err))
		fail_msg("%s", err.msg);
	return gate_eval(&c->f, &c->fs, &p, res);
}

static void versions_and_gpus(void **state)
{
	struct ctx c;
	size_t n;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 2);
	c.f.driver.cuda_version = "12.8";
	c.f.gpus[0].compute_capability = "9.0";
	c.f.gpus[1].compute_capability = "8.0";
	c.f.gpus[0].memory_total_bytes = c.f.gpus[1].memory_total_bytes = 81559LL << 20;
	n = judge(&c,
		  "driver >= 535\ncuda >= 12.1, < 13\ngpu.count >= 8\ngpu.cc >= 8.0\n"
		  "gpu.cc >= 9.0\ngpu.memory >= 80GiB\ngpu.memory >= 80GB\nallow x-y\n",
		  NULL, 0);
	assert_int_equal(n, 7); /* allow is not a requirement */
	assert_int_equal(res[0].status, GATE_PASS);
	assert_string_equal(res[0].found, "570.124.06");
	assert_int_equal(res[1].status, GATE_PASS);
	assert_int_equal(res[2].status, GATE_FAIL);
	assert_string_equal(res[2].found, "2 GPUs");
	assert_string_equal(res[2].why, "2 GPUs visible, not >= 8");
	assert_int_equal(res[3].status, GATE_PASS);
	assert_string_equal(res[3].found, "9.0, 8.0");
	assert_int_equal(res[4].status, GATE_FAIL);
	assert_string_equal(res[4].why, "GPU 1: 8.0 is not >= 9.0");
	/* An "80GB" H100 has 79.6 GiB: under 80GiB, over 80 GB. */
	assert_int_equal(res[5].status, GATE_FAIL);
	assert_string_equal(res[5].why, "GPU 0: 79.6 GiB is not >= 80GiB (80 GiB)");
	assert_int_equal(res[6].status, GATE_PASS);
	assert_int_equal(gate_failures(res, n), 3);
	ctx_free(&c);
}

static void not_a_version_fails_clearly(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.driver.version = "N/A";
	assert_int_equal(judge(&c, "driver >= 535\ndriver\n", NULL, 0), 2);
	assert_int_equal(res[0].status, GATE_FAIL);
	assert_string_equal(res[0].why, "'N/A' is not a version, so it cannot be compared");
	assert_int_equal(res[1].status, GATE_PASS); /* bare: a driver answered */
	ctx_free(&c);
}

static void unknown_fails_with_its_finding(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	c.f.driver.status = CD_PROBE_LIB_MISSING;
	assert_non_null(findings_add(&c.fs, "driver-missing", CD_SEV_ERROR, "driver", "no driver"));
	assert_int_equal(judge(&c, "driver >= 535\ngpu.count >= 1\nnccl\ntorch >= 2\n", NULL, 0),
			 4);
	assert_int_equal(res[0].status, GATE_FAIL);
	assert_string_equal(res[0].found, "unknown");
	assert_string_equal(res[0].why, "the driver did not answer (library-missing)");
	assert_string_equal(res[0].finding, "driver-missing");
	assert_int_equal(res[1].status, GATE_FAIL);
	assert_string_equal(res[1].finding, "driver-missing");
	assert_int_equal(res[2].status, GATE_FAIL);
	assert_string_equal(res[2].found, "not installed");
	assert_null(res[2].finding);
	assert_int_equal(res[3].status, GATE_FAIL);
	assert_string_equal(res[3].why, "no Python environment was scanned");
	ctx_free(&c);
}

static void no_errors_and_allow(void **state)
{
	static const char *const allow[] = {"gpu-ecc-errors"};
	struct ctx c;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 1);
	assert_non_null(findings_add(&c.fs, "gpu-ecc-errors", CD_SEV_ERROR, "gpus", "ecc"));
	assert_non_null(findings_add(&c.fs, "shm-too-small", CD_SEV_WARNING, "container", "shm"));
	assert_int_equal(judge(&c, "no-errors\nno-warnings\n", NULL, 0), 2);
	assert_int_equal(res[0].status, GATE_FAIL);
	assert_string_equal(res[0].found, "1 error: gpu-ecc-errors");
	assert_string_equal(res[0].finding, "gpu-ecc-errors");
	assert_int_equal(res[1].status, GATE_FAIL);
	assert_string_equal(res[1].found, "2 warnings: gpu-ecc-errors, shm-too-small");
	assert_int_equal(judge(&c, "no-errors\nno-warnings\n", allow, 1), 2);
	assert_int_equal(res[0].status, GATE_PASS);
	assert_string_equal(res[0].found, "none (1 allowed)");
	assert_int_equal(res[1].status, GATE_FAIL);
	assert_string_equal(res[1].finding, "shm-too-small");
	ctx_free(&c);
}

static void probe_without_live_facts(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	assert_int_equal(judge(&c, "probe\n", NULL, 0), 1);
	assert_int_equal(res[0].status, GATE_FAIL); /* not run is never a pass */
	assert_string_equal(res[0].why, "the live probe did not run");
	assert_int_equal(gate_failures(res, 1), 1);
	ctx_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(versions_and_gpus),
		cmocka_unit_test(not_a_version_fails_clearly),
		cmocka_unit_test(unknown_fails_with_its_finding),
		cmocka_unit_test(no_errors_and_allow),
		cmocka_unit_test(probe_without_live_facts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
