/* Unit tests for core/glibc_floor: the program's start through the older entry point still
 * runs the constructors (what crt1.o's init did), and stat, lstat and fstat through __xstat
 * see what the kernel's statx sees. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int constructed;

__attribute__((constructor)) static void mark_constructed(void)
{
	constructed = 1;
}

static void test_constructors_ran(void **state)
{
	(void)state;
	assert_int_equal(constructed, 1);
}

static void test_stat_family(void **state)
{
	(void)state;
	char dir[] = "/tmp/cd-floor-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char file[64], link[64];
	snprintf(file, sizeof(file), "%s/f", dir);
	snprintf(link, sizeof(link), "%s/l", dir);
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0640);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "12345", 5), 5);
	assert_int_equal(symlink("f", link), 0);

	struct stat s, l, f;
	struct statx x;
	assert_int_equal(stat(link, &s), 0);
	assert_int_equal(lstat(link, &l), 0);
	assert_int_equal(fstat(fd, &f), 0);
	assert_int_equal(statx(AT_FDCWD, file, 0, STATX_BASIC_STATS, &x), 0);
	assert_true(S_ISREG(s.st_mode));
	assert_int_equal(s.st_mode & 07777, 0640);
	assert_int_equal(s.st_size, 5);
	assert_int_equal(s.st_ino, x.stx_ino);
	assert_int_equal(s.st_mtim.tv_sec, x.stx_mtime.tv_sec);
	assert_int_equal(s.st_mtim.tv_nsec, x.stx_mtime.tv_nsec);
	assert_true(S_ISLNK(l.st_mode));
	assert_int_equal(l.st_size, 1);
	assert_int_equal(f.st_ino, x.stx_ino);
	assert_int_equal(f.st_size, 5);
	errno = 0;
	assert_int_equal(stat("/nonexistent/cd-floor", &s), -1);
	assert_int_equal(errno, ENOENT);

	close(fd);
	unlink(link);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constructors_ran),
		cmocka_unit_test(test_stat_family),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
