/* Unit tests for src/format/ldcache.c: hand-built caches in the three
 * layouts and both byte orders, corrupt ones, the loader's lookup rules,
 * and - where ldconfig exists - caches written by ldconfig itself (old,
 * compat, new) and the system's /etc/ld.so.cache, each compared entry by
 * entry with `ldconfig -p`. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/file.h"
#include "format/ldcache.h"
#include "elfgen.h"

static uint8_t cb[4096];
static size_t cb_n;
static int cb_be;

static void put(size_t off, uint64_t v, unsigned size)
{
	unsigned i;

	for (i = 0; i < size; i++)
		cb[off + i] = (uint8_t)(v >> (8 * (cb_be ? size - 1 - i : i)));
}

struct ent {
	int32_t flags;
	const char *key, *value;
	uint64_t hwcap;
};

/* A new-format table at `at` whose strings follow its entries. */
static size_t new_table(size_t at, const struct ent *e, uint32_t n, uint8_t order)
{
	size_t str = at + 48 + (size_t)n * 24, i;

	memcpy(cb + at, LDC_MAGIC_NEW, 20);
	put(at + 20, n, 4);
	cb[at + 28] = order;
	for (i = 0; i < n; i++) {
		size_t k = at + 48 + i * 24, kl = strlen(e[i].key) + 1, vl = strlen(e[i].value) + 1;
		put(k, (uint32_t)e[i].flags, 4);
		memcpy(cb + str, e[i].key, kl);
		put(k + 4, str - at, 4);
		str += kl;
		memcpy(cb + str, e[i].value, vl);
		put(k + 8, str - at, 4);
		str += vl;
		put(k + 16, e[i].hwcap, 8);
	}
	put(at + 24, str - (at + 48 + (size_t)n * 24), 4);
	return str;
}

static const struct ent ents[] = {
	{0x303, "libfoo.so.1", "/hw/glibc-hwcaps/x86-64-v3/libfoo.so.1", LDC_HWCAP_EXTENSION | 1},
	{0xa03, "libfoo.so.1", "/arm/libfoo.so.1", 0},
	{0x303, "libfoo.so.1", "/usr/lib/x86_64-linux-gnu/libfoo.so.1", 0},
	{0x303, "libfoo.so.1", "/later/libfoo.so.1", 0},
	{0x303, "libbar.so", "/legacy/x86_64/libbar.so", 0x40},
	{0x001, "libold.so.2", "/i386/libold.so.2", 0},
};
#define NENTS ((uint32_t)(sizeof(ents) / sizeof(ents[0])))

static void lookups(const struct ldc_cache *c)
{
	struct ldc_entry e;
	unsigned hw = 9;

	assert_int_equal(ldc_lookup(c, "libfoo.so.1", 0x303, &e, &hw), 0);
	assert_string_equal(e.value, "/usr/lib/x86_64-linux-gnu/libfoo.so.1");
	assert_int_equal(hw, 1);
	assert_int_equal(ldc_lookup(c, "libfoo.so.1", 0xa03, &e, NULL), 0);
	assert_string_equal(e.value, "/arm/libfoo.so.1");
	assert_int_equal(ldc_lookup(c, "libbar.so", 0x303, &e, NULL), CD_ENOENT);
	assert_int_equal(ldc_lookup(c, "libfoo.so", 0x303, &e, NULL), CD_ENOENT);
	/* i386 takes plain ELF entries too; x86-64 does not. */
	assert_int_equal(ldc_lookup(c, "libold.so.2", ldc_flags_for(3, 0), &e, NULL), 0);
	assert_int_equal(ldc_lookup(c, "libold.so.2", ldc_flags_for(62, 1), &e, NULL), CD_ENOENT);
}

static void new_format(void **state)
{
	struct ldc_cache c;

	(void)state;
	for (cb_be = 0; cb_be < 2; cb_be++) {
		memset(cb, 0, sizeof(cb));
		cb_n = new_table(0, ents, NENTS, cb_be ? 3 : 2);
		assert_int_equal(ldc_parse(cb, cb_n, &c, NULL), 0);
		assert_int_equal(c.format, LDC_FMT_NEW);
		assert_int_equal(c.be, cb_be);
		assert_int_equal(c.n, NENTS);
		lookups(&c);
		/* No byte-order mark (old ldconfig): the order that fits. */
		cb[28] = 0;
		assert_int_equal(ldc_parse(cb, cb_n, &c, NULL), 0);
		assert_int_equal(c.be, cb_be);
	}
	cb_be = 0;
}

static void old_and_compat(void **state)
{
	struct ldc_cache c;
	struct ldc_entry e;
	size_t i, str, end;

	(void)state;
	cb_be = 0;
	memset(cb, 0, sizeof(cb));
	memcpy(cb, LDC_MAGIC_OLD, 11);
	put(12, 2, 4);
	/* old entries: strings right after the table (offset 40) */
	str = 40;
	memcpy(cb + str, "libq.so.1\0/q/libq.so.1\0libr.so\0/r/libr.so", 42);
	put(16, 0x303, 4), put(20, 0, 4), put(24, 10, 4);
	put(28, 0x303, 4), put(32, 23, 4), put(36, 31, 4);
	cb_n = str + 42;
	assert_int_equal(ldc_parse(cb, cb_n, &c, NULL), 0);
	assert_int_equal(c.format, LDC_FMT_OLD);
	assert_int_equal(ldc_lookup(&c, "libr.so", 0x303, &e, NULL), 0);
	assert_string_equal(e.value, "/r/libr.so");
	/* compat: the new table at the next 8-byte boundary after the old one. */
	memset(cb, 0, sizeof(cb));
	memcpy(cb, LDC_MAGIC_OLD, 11);
	put(12, 1, 4);
	end = new_table(32, ents, NENTS, 2); /* old table ends at 28 -> 32 */
	put(16, 0x303, 4), put(20, 999, 4), put(24, 999, 4);
	cb_n = end;
	assert_int_equal(ldc_parse(cb, cb_n, &c, NULL), 0);
	assert_int_equal(c.format, LDC_FMT_COMPAT);
	assert_true(c.is_new);
	lookups(&c);
	for (i = 0; i < c.n; i++)
		assert_int_equal(ldc_entry_get(&c, (uint32_t)i, &e), 0);
}

static void corrupt(void **state)
{
	struct ldc_cache c;
	struct ldc_entry e;

	(void)state;
	cb_be = 0;
	assert_int_equal(ldc_parse((const uint8_t *)"nothing", 7, &c, NULL), CD_EFORMAT);
	memset(cb, 0, sizeof(cb));
	cb_n = new_table(0, ents, NENTS, 2);
	assert_int_equal(ldc_parse(cb, 40, &c, NULL), CD_EFORMAT); /* header cut */
	put(20, 0x7fffffff, 4);					   /* nlibs far too many */
	assert_int_equal(ldc_parse(cb, cb_n, &c, NULL), CD_ERANGE);
	cb_n = new_table(0, ents, NENTS, 1); /* ldconfig's "invalid" mark */
	assert_int_equal(ldc_parse(cb, cb_n, &c, NULL), CD_EFORMAT);
	/* A key offset outside the file: that entry fails, the others work. */
	cb_n = new_table(0, ents, NENTS, 2);
	put(48 + 2 * 24 + 4, 0xfffffff0u, 4);
	assert_int_equal(ldc_parse(cb, cb_n, &c, NULL), 0);
	assert_int_equal(ldc_entry_get(&c, 2, &e), CD_ERANGE);
	assert_int_equal(ldc_entry_get(&c, NENTS, &e), CD_ERANGE);
	assert_int_equal(ldc_lookup(&c, "libfoo.so.1", 0x303, &e, NULL), 0);
	assert_string_equal(e.value, "/later/libfoo.so.1");
	/* The last string without its NUL. */
	cb_n = new_table(0, ents, NENTS, 2);
	assert_int_equal(ldc_parse(cb, cb_n - 1, &c, NULL), 0);
	assert_int_equal(ldc_entry_get(&c, NENTS - 1, &e), CD_ERANGE);
	/* Old format whose count does not fit in either byte order. */
	memset(cb, 0, sizeof(cb));
	memcpy(cb, LDC_MAGIC_OLD, 11);
	put(12, 0x01010101, 4);
	assert_int_equal(ldc_parse(cb, 64, &c, NULL), CD_ERANGE);
}

static void flag_text(void **state)
{
	char t[64];

	(void)state;
	ldc_flags_text(0x303, t, sizeof(t));
	assert_string_equal(t, "libc6,x86-64");
	ldc_flags_text(0xa03, t, sizeof(t));
	assert_string_equal(t, "libc6,AArch64");
	ldc_flags_text(0x001, t, sizeof(t));
	assert_string_equal(t, "ELF");
	ldc_flags_text(0x7f03, t, sizeof(t));
	assert_string_equal(t, "libc6,32512");
	assert_int_equal(ldc_flags_for(62, 1), 0x303);
	assert_int_equal(ldc_flags_for(183, 1), 0xa03);
	assert_int_equal(ldc_flags_for(40, 0), -1);
}

/* Compare every entry of the cache file with the lines of `ldconfig -p`
 * (from listing, a file, or by running ldconfig -p -C file). */
static int compare_with_ldconfig(const char *file, const char *listing)
{
	struct cd_root root;
	struct cd_buf b;
	struct ldc_cache c;
	struct ldc_entry e;
	char cmd[512], line[4096], mine[4096], flags[64], *cut;
	uint32_t i = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ldconfig -p -C '%s' 2>/dev/null", file);
	assert_int_equal(root_init(&root, NULL, NULL), 0);
	buf_init(&b, 0);
	p = listing ? fopen(listing, "r") : popen(cmd, "r");
	if (file_read(&root, file, 64 << 20, &b, NULL) || !p) {
		buf_free(&b);
		return -1;
	}
	assert_int_equal(ldc_parse((const uint8_t *)b.p, b.len, &c, NULL), 0);
	while (fgets(line, sizeof(line), p)) {
		if (line[0] != '\t')
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* drop ", hwcap: ..." and ", OS ABI: ..." inside the parentheses */
		if ((cut = strstr(line, ", hwcap:")) || (cut = strstr(line, ", OS ABI:")))
			memmove(cut, strstr(cut, ") =>"), strlen(strstr(cut, ") =>")) + 1);
		assert_int_equal(ldc_entry_get(&c, i, &e), 0);
		ldc_flags_text(e.flags, flags, sizeof(flags));
		snprintf(mine, sizeof(mine), "\t%s (%s) => %s", e.key, flags, e.value);
		assert_string_equal(mine, line);
		i++;
	}
	if (listing)
		fclose(p);
	else
		pclose(p);
	assert_int_equal(i, c.n);
	buf_free(&b);
	return (int)i;
}

static void system_cache(void **state)
{
	(void)state;
	if (access("/etc/ld.so.cache", R_OK) || system("ldconfig -p >/dev/null 2>&1") != 0)
		skip();
	assert_true(compare_with_ldconfig("/etc/ld.so.cache", NULL) > 0);
}

/* ldconfig writes caches for a small root in each format; we read them all. */
static void ldconfig_formats(void **state)
{
	static const char *const fmts[] = {"old", "compat", "new"};
	char dir[] = "/tmp/cd-ldc-XXXXXX", path[512], cmd[1024];
	static uint8_t so[4096];
	struct eg_spec s = {0};
	size_t n, i;
	FILE *f;

	(void)state;
	if (system("ldconfig -p >/dev/null 2>&1") != 0 || !mkdtemp(dir))
		skip();
	snprintf(path, sizeof(path), "%s/lib", dir);
	mkdir(path, 0755);
	s.is64 = 1;
	s.needed[0] = "libc.so.6";
	s.soname = "libcdldc.so.1";
	n = eg_build(&s, so, sizeof(so));
	snprintf(path, sizeof(path), "%s/lib/libcdldc.so.1", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(so, 1, n, f), n);
	fclose(f);
	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd),
			 "ldconfig -c %s -C /c.%s -r '%s' -f /dev/null /lib >/dev/null 2>&1",
			 fmts[i], fmts[i], dir);
		if (system(cmd) != 0)
			skip();
		snprintf(path, sizeof(path), "%s/c.%s", dir, fmts[i]);
		assert_int_equal(compare_with_ldconfig(path, NULL), 1);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The cache of the H200 validation machine (Ubuntu 24.04, glibc 2.39) and
 * the `ldconfig -p` listing taken there (docs/validation/h200-ground-truth). */
static void h200_cache(void **state)
{
	struct cd_root root;
	struct cd_buf b;
	struct ldc_cache c;
	struct ldc_entry e;

	(void)state;
	assert_int_equal(compare_with_ldconfig("tests/fixtures/h200/ld.so.cache",
					       "tests/fixtures/h200/ldconfig_p.txt"),
			 520);
	assert_int_equal(root_init(&root, NULL, NULL), 0);
	buf_init(&b, 0);
	assert_int_equal(file_read(&root, "tests/fixtures/h200/ld.so.cache", 1 << 20, &b, NULL), 0);
	assert_int_equal(ldc_parse((const uint8_t *)b.p, b.len, &c, NULL), 0);
	assert_int_equal(ldc_lookup(&c, "libcuda.so.1", 0x303, &e, NULL), 0);
	/* two entries for it: the first in the file wins, as in the loader */
	assert_string_equal(e.value, "/usr/local/nvidia/lib64/libcuda.so.1");
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_format),	cmocka_unit_test(old_and_compat),
		cmocka_unit_test(corrupt),	cmocka_unit_test(flag_text),
		cmocka_unit_test(system_cache), cmocka_unit_test(ldconfig_formats),
		cmocka_unit_test(h200_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
