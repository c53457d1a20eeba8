/* Unit tests for report/hostlist: dshbak -c style folding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "report/hostlist.h"

static void expect(const char *const *names, size_t n, const char *want)
{
	struct cd_buf b;

	buf_init(&b, 0);
	assert_int_equal(hostlist_fold(names, n, &b), 0);
	assert_string_equal(b.p ? b.p : "", want);
	buf_free(&b);
}

static void folds(void **state)
{
	static const char *const issue[] = {"gpu235", "gpu017", "gpu233", "gpu234"};
	static const char *const natural[] = {"n9", "n10", "n11", "n2"};
	static const char *const mixed[] = {"node03.ib", "node01.ib", "login", "node02.ib",
					    "node07.ib", "db1",	      "db3"};
	static const char *const padded[] = {"g001", "g01", "g002", "g3"};
	static const char *const dup[] = {"a1", "a1", "a2"};
	static const char *const plain[] = {"localhost"};
	static const char *const huge[] = {"x99999999999999999999", "x1"};

	(void)state;
	expect(issue, 4, "gpu[017,233-235]");
	expect(natural, 4, "n[2,9-11]");
	expect(mixed, 7, "db[1,3],login,node[01-03,07].ib");
	/* 001 and 002 are three wide; 01 is another width; 3 is unpadded */
	expect(padded, 4, "g3,g01,g[001-002]");
	expect(dup, 3, "a[1-2]");
	expect(plain, 1, "localhost");
	expect(huge, 2, "x1,x99999999999999999999");
	expect(NULL, 0, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(folds)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
