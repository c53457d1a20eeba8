/* Unit tests for src/format/dpkgst: installed paragraphs only, continuation
 * lines, CRLF, a last paragraph without a blank line, long values cut. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "format/dpkgst.h"

static void collect(void *ctx, const char *name, const char *arch, const char *version)
{
	char *out = ctx;
	size_t n = strlen(out);

	snprintf(out + n, 1024 - n, "%s:%s=%s;", name, arch, version);
}

static void installed_only(void **state)
{
	static const char db[] =
		"Package: cuda-nvcc-12-4\nStatus: install ok installed\n"
		"Architecture: amd64\nVersion: 12.4.131-1\nDescription: x\n"
		" Package: not-this\n\n"
		"Package: libnccl2\nStatus: deinstall ok config-files\nVersion: 2\n\n"
		"Package: zlib1g\r\nStatus: install ok installed\r\n"
		"Architecture: amd64\r\nVersion: 1:1.2.13.dfsg-1\r\n";
	char out[1024] = "";

	(void)state;
	assert_int_equal(dpkgst_each((const uint8_t *)db, sizeof(db) - 1, collect, out), 2);
	assert_string_equal(out, "cuda-nvcc-12-4:amd64=12.4.131-1;zlib1g:amd64=1:1.2.13.dfsg-1;");
}

static void limits(void **state)
{
	static const char head[] = "Status: install ok installed\nPackage: p\nVersion: ";
	char db[600], out[1024] = "";

	(void)state;
	memset(db, 'v', sizeof(db));
	memcpy(db, head, sizeof(head) - 1);
	assert_int_equal(dpkgst_each((const uint8_t *)db, sizeof(db), collect, out), 1);
	assert_int_equal(strlen(out), strlen("p:=;") + DPKGST_FIELD_MAX - 1);
	assert_int_equal(dpkgst_each((const uint8_t *)"", 0, collect, out), 0);
	assert_int_equal(dpkgst_each((const uint8_t *)db, DPKGST_MAX + 1, collect, out),
			 CD_EFORMAT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(installed_only),
		cmocka_unit_test(limits),
	};
	return cmocka_run_group_tests_name("dpkgst", tests, NULL, NULL);
}
