/* Unit tests for src/format/nvproc: kernel module banners as the nvidia and
 * nvidia open kernel modules print them, and inputs that must be refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/nvproc.h"

static int parse(const char *s, struct nvproc_version *v)
{
	return nvproc_parse((const uint8_t *)s, strlen(s), v);
}

static void banners(void **state)
{
	struct nvproc_version v;

	(void)state;
	assert_int_equal(parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu "
			       "Jun  5 19:20:11 UTC 2025\nGCC version:  gcc version 12.2.0\n",
			       &v),
			 0);
	assert_string_equal(v.version, "580.159.04");
	assert_int_equal(v.open, 0);
	assert_int_equal(parse("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
			       "570.124.06  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue "
			       "Feb 25 04:13:54 UTC 2025\nGCC version:  gcc version 13.3.0\n",
			       &v),
			 0);
	assert_string_equal(v.version, "570.124.06");
	assert_int_equal(v.open, 1);
	assert_int_equal(parse("NVRM version: NVIDIA UNIX aarch64 Kernel Module  535.104.05  Sat "
			       "Aug 19 01:15:15 UTC 2023\n",
			       &v),
			 0);
	assert_string_equal(v.version, "535.104.05");
	/* Two-component versions, tabs, no trailing newline, GCC line first. */
	assert_int_equal(parse("GCC version: 4.8\nNVRM version: NVIDIA UNIX x86_64 Kernel "
			       "Module\t390.48\tThu",
			       &v),
			 0);
	assert_string_equal(v.version, "390.48");
	/* No "Kernel Module" words: any version-shaped token after the tag. */
	assert_int_equal(parse("NVRM version: something 560.35.03 (VirtualGPU)\n", &v), 0);
	assert_string_equal(v.version, "560.35.03");
}

static void refused(void **state)
{
	static const char *const bad[] = {
		"",
		"\n\n",
		"GCC version:  gcc version 12.2.0\n",		    /* no NVRM line */
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module\n", /* no version */
		"NVRM version: Kernel Module 12345678901234567890.1\n",
		"NVRM version: Kernel Module 1.2\n",		/* first component too short */
		"NVRM version: Kernel Module 580.159.04.1.2\n", /* too many components */
		"NVRM version: Kernel Module 580..04\n",
		"NVRM version: Kernel Module .580\n",
		"NVRM version: Kernel Module 580.\n",
		"nvrm version: Kernel Module 580.159.04\n", /* case matters */
		"NVRM version: Kernel Module 580.159.04x\n",
		"NVRM version: Kernel Module 01:15:15\n",
	};
	struct nvproc_version v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i], &v), CD_EFORMAT);
		assert_string_equal(v.version, "");
	}
	/* A NUL in the middle of the line ends nothing: the parser is length-based. */
	assert_int_equal(
		nvproc_parse((const uint8_t *)"NVRM version: \0 Kernel Module 580.1\n", 37, &v), 0);
	assert_string_equal(v.version, "580.1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(banners),
		cmocka_unit_test(refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
