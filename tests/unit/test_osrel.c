/* Unit tests for format/osrel: os-release(5) parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "format/osrel.h"

static char v[256];

static int get(const char *text, const char *key)
{
	return osrel_get((const uint8_t *)text, strlen(text), key, v, sizeof(v));
}

static void distributions(void **state)
{
	static const char debian[] = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
				     "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
				     "VERSION=\"12 (bookworm)\"\nVERSION_CODENAME=bookworm\n"
				     "ID=debian\nHOME_URL=\"https://www.debian.org/\"\n";
	static const char rhel[] =
		"NAME=\"Rocky Linux\"\nVERSION=\"9.4 (Blue Onyx)\"\n"
		"ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n"
		"VERSION_ID=\"9.4\"\nPRETTY_NAME=\"Rocky Linux 9.4 (Blue Onyx)\"\n";
	static const char alpine[] = "NAME=\"Alpine Linux\"\nID=alpine\nVERSION_ID=3.20.0\n"
				     "PRETTY_NAME=\"Alpine Linux v3.20\"";

	(void)state;
	assert_int_equal(get(debian, "ID"), 0);
	assert_string_equal(v, "debian");
	assert_int_equal(get(debian, "VERSION_ID"), 0);
	assert_string_equal(v, "12");
	assert_int_equal(get(debian, "PRETTY_NAME"), 0);
	assert_string_equal(v, "Debian GNU/Linux 12 (bookworm)");
	assert_int_equal(get(rhel, "ID"), 0);
	assert_string_equal(v, "rocky");
	assert_int_equal(get(rhel, "VERSION_ID"), 0);
	assert_string_equal(v, "9.4");
	assert_int_equal(get(alpine, "PRETTY_NAME"), 0); /* no final newline */
	assert_string_equal(v, "Alpine Linux v3.20");
	assert_int_equal(get(alpine, "VERSION"), CD_ENOENT);
}

static void quoting(void **state)
{
	(void)state;
	assert_int_equal(get("ID='ubuntu'\n", "ID"), 0);
	assert_string_equal(v, "ubuntu");
	assert_int_equal(get("X=\"A \\\"q\\\" \\$x \\\\ \\`y\\`\"\n", "X"), 0);
	assert_string_equal(v, "A \"q\" $x \\ `y`");
	assert_int_equal(get("X=\"a\\qb\"", "X"), 0); /* other escapes stay literal */
	assert_string_equal(v, "a\\qb");
	assert_int_equal(get("X='a\\b'", "X"), 0); /* no escapes in single quotes */
	assert_string_equal(v, "a\\b");
	assert_int_equal(get("X=a\\ b", "X"), 0);
	assert_string_equal(v, "a b");
	assert_int_equal(get("X=\"a\"'b'c", "X"), 0); /* adjacent words join */
	assert_string_equal(v, "abc");
	assert_int_equal(get("ID=debian # comment", "ID"), 0);
	assert_string_equal(v, "debian");
	assert_int_equal(get("ID=", "ID"), 0);
	assert_string_equal(v, "");
}

static void lines(void **state)
{
	(void)state;
	assert_int_equal(get("# ID=x\n\n  ID=y\r\nIDX=z\n", "ID"), 0);
	assert_string_equal(v, "y");
	assert_int_equal(get("ID=a\nID=b\n", "ID"), 0); /* the later assignment wins */
	assert_string_equal(v, "b");
	assert_int_equal(get("ID=a\nID=\"b\n", "ID"), 0); /* a malformed line is skipped */
	assert_string_equal(v, "a");
	assert_int_equal(get("ID=\"unterminated\n", "ID"), CD_ENOENT);
	assert_int_equal(get("ID=\"x\\", "ID"), CD_ENOENT);
	assert_int_equal(get("VERSION_ID=1\n", "VERSION"), CD_ENOENT);
	assert_int_equal(get("", "ID"), CD_ENOENT);
	assert_int_equal(osrel_get((const uint8_t *)"ID=a\0b\n", 7, "ID", v, sizeof(v)), CD_ENOENT);
}

static void limits(void **state)
{
	char small[4];
	char *big;

	(void)state;
	assert_int_equal(osrel_get((const uint8_t *)"ID=debian", 9, "ID", small, sizeof(small)),
			 CD_ERANGE);
	assert_int_equal(
		osrel_get((const uint8_t *)"ID=a\nID=debian", 14, "ID", small, sizeof(small)),
		CD_ERANGE); /* the later, too long one wins */
	big = calloc(1, OSREL_MAX_BYTES + 1);
	memcpy(big, "ID=x\n", 5);
	memset(big + 5, '#', OSREL_MAX_BYTES - 5);
	assert_int_equal(osrel_get((const uint8_t *)big, OSREL_MAX_BYTES, "ID", v, sizeof(v)), 0);
	assert_int_equal(osrel_get((const uint8_t *)big, OSREL_MAX_BYTES + 1, "ID", v, sizeof(v)),
			 CD_ENOENT);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(distributions),
		cmocka_unit_test(quoting),
		cmocka_unit_test(lines),
		cmocka_unit_test(limits),
	};
	return cmocka_run_group_tests_name("osrel", tests, NULL, NULL);
}
