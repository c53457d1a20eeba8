/* Unit tests for report/prom: label values escaped as the exposition format
 * asks (\\, \", \n), control bytes and invalid UTF-8 replaced, unknown values
 * without a sample, findings counted once per id and severity. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "check_helpers.h"
#include "report/prom.h"

static char *render(struct ctx *c)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	assert_int_equal(prom_report(out, &c->f, &c->fs), 0);
	fclose(out);
	return text;
}

static void labels_escaped(void **state)
{
	struct ctx c;
	char *text;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.driver.version = "5\"7\\0\n1";
	c.f.gpus[0].name = "H\xff\x01"
			   "100";
	c.f.gpus[0].memory_total_bytes = CD_UNK;
	text = render(&c);
	assert_non_null(
		strstr(text, "cuda_doctor_info{driver=\"5\\\"7\\\\0\\n1\",cuda_driver=\"\","));
	assert_non_null(strstr(text, "name=\"H??100\""));
	assert_null(strstr(text, "cuda_doctor_gpu_memory_total_bytes{"));
	assert_non_null(strstr(text, "cuda_doctor_gpus 1\n"));
	free(text);
	ctx_free(&c);
}

static void utf8_kept(void **state)
{
	struct ctx c;
	char *text;

	(void)state;
	ctx_init(&c);
	ctx_healthy(&c, 1);
	c.f.gpus[0].name = "Gr\xc3\xa4"
			   "fik";
	text = render(&c);
	assert_non_null(strstr(text, "name=\"Gr\xc3\xa4"
				     "fik\""));
	free(text);
	ctx_free(&c);
}

static void findings_counted(void **state)
{
	struct ctx c;
	char *text;

	(void)state;
	ctx_init(&c);
	assert_non_null(findings_add(&c.fs, "lib-duplicate", CD_SEV_INFO, "python", "a"));
	assert_non_null(findings_add(&c.fs, "driver-missing", CD_SEV_ERROR, "driver", "b"));
	assert_non_null(findings_add(&c.fs, "lib-duplicate", CD_SEV_INFO, "python", "c"));
	text = render(&c);
	assert_non_null(strstr(text, "cuda_doctor_findings{severity=\"error\"} 1\n"
				     "cuda_doctor_findings{severity=\"warning\"} 0\n"
				     "cuda_doctor_findings{severity=\"info\"} 2\n"));
	assert_non_null(
		strstr(text, "cuda_doctor_finding{id=\"lib-duplicate\",severity=\"info\"} 2\n"
			     "cuda_doctor_finding{id=\"driver-missing\",severity=\"error\"} 1\n"));
	assert_non_null(strstr(text, "cuda_doctor_driver_up 0\n"));
	assert_null(strstr(text, "\ncuda_doctor_gpus ")); /* unknown: no sample */
	free(text);
	ctx_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(labels_escaped),
		cmocka_unit_test(utf8_kept),
		cmocka_unit_test(findings_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
