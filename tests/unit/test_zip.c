/* Unit tests for src/format/zip.c on archives written here byte by byte
 * (PKWARE APPNOTE layouts): members found by name and by folder suffix,
 * ZIP64 sizes, a trailing comment, and archives that lie. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/zip.h"

static uint8_t z[8192];
static size_t zn;

static void put(size_t off, uint64_t v, unsigned size)
{
	unsigned i;

	for (i = 0; i < size; i++)
		z[off + i] = (uint8_t)(v >> (8 * i));
}

struct mem {
	const char *name;
	const char *data;
	uint16_t method, flags;
	size_t local;
};

/* Local headers and data, the directory (ZIP64 extra fields when zip64), the
 * end record(s) and a comment. */
static void build(struct mem *m, size_t nm, int zip64, const char *comment)
{
	size_t i, cd, cdlen, nl, dl;

	memset(z, 0, sizeof(z));
	zn = 0;
	for (i = 0; i < nm; i++) {
		nl = strlen(m[i].name);
		dl = strlen(m[i].data);
		m[i].local = zn;
		put(zn, 0x04034b50, 4);
		put(zn + 8, m[i].method, 2);
		put(zn + 18, dl, 4);
		put(zn + 22, dl, 4);
		put(zn + 26, nl, 2);
		put(zn + 28, 4, 2); /* a 4-byte extra field the reader must skip */
		memcpy(z + zn + 30, m[i].name, nl);
		memcpy(z + zn + 34 + nl, m[i].data, dl);
		zn += 34 + nl + dl;
	}
	cd = zn;
	for (i = 0; i < nm; i++) {
		nl = strlen(m[i].name);
		dl = strlen(m[i].data);
		put(zn, 0x02014b50, 4);
		put(zn + 8, m[i].flags, 2);
		put(zn + 10, m[i].method, 2);
		put(zn + 16, 0x12345678, 4);
		put(zn + 20, zip64 ? 0xffffffff : dl, 4);
		put(zn + 24, zip64 ? 0xffffffff : dl, 4);
		put(zn + 28, nl, 2);
		put(zn + 30, zip64 ? 28 : 0, 2);
		put(zn + 42, zip64 ? 0xffffffff : m[i].local, 4);
		memcpy(z + zn + 46, m[i].name, nl);
		zn += 46 + nl;
		if (zip64) {
			put(zn, 1, 2);
			put(zn + 2, 24, 2);
			put(zn + 4, dl, 8);
			put(zn + 12, dl, 8);
			put(zn + 20, m[i].local, 8);
			zn += 28;
		}
	}
	cdlen = zn - cd;
	if (zip64) {
		size_t rec = zn;
		put(zn, 0x06064b50, 4);
		put(zn + 4, 44, 8);
		put(zn + 32, nm, 8);
		put(zn + 40, cdlen, 8);
		put(zn + 48, cd, 8);
		zn += 56;
		put(zn, 0x07064b50, 4);
		put(zn + 8, rec, 8);
		zn += 20;
	}
	put(zn, 0x06054b50, 4);
	put(zn + 8, zip64 ? 0xffff : nm, 2);
	put(zn + 10, zip64 ? 0xffff : nm, 2);
	put(zn + 12, zip64 ? 0xffffffff : cdlen, 4);
	put(zn + 16, zip64 ? 0xffffffff : cd, 4);
	put(zn + 20, comment ? strlen(comment) : 0, 2);
	zn += 22;
	if (comment) {
		memcpy(z + zn, comment, strlen(comment));
		zn += strlen(comment);
	}
}

static struct mem wheel[] = {
	{"torch/__init__.py", "import os\n", 0, 0, 0},
	{"torch/lib/libtorch_cuda.so", "\177ELF deflated bytes", 8, 0, 0},
	{"torch-2.11.0+cu130.dist-info/METADATA", "Name: torch\nVersion: 2.11.0+cu130\n", 0, 0, 0},
};

static void finds_members(void **state)
{
	struct zip_member m;
	struct cd_err e = {0};
	char name[128];
	int zip64;

	(void)state;
	for (zip64 = 0; zip64 < 2; zip64++) {
		build(wheel, 3, zip64, zip64 ? NULL : "a comment with PK\x05\x06 inside");
		assert_int_equal(zip_find(z, zn, "torch/lib/libtorch_cuda.so", &m, &e), 0);
		assert_int_equal(m.method, ZIP_METHOD_DEFLATE);
		assert_int_equal(m.size, strlen(wheel[1].data));
		assert_int_equal(m.comp_size, strlen(wheel[1].data));
		assert_int_equal(m.crc32, 0x12345678);
		assert_memory_equal(z + m.data_off, wheel[1].data, m.size);
		assert_int_equal(
			zip_find_suffix(z, zn, ".dist-info/METADATA", name, sizeof(name), &m, &e),
			0);
		assert_string_equal(name, "torch-2.11.0+cu130.dist-info/METADATA");
		assert_memory_equal(z + m.data_off, "Name: torch", 11);
		assert_int_equal(zip_find(z, zn, "torch/lib", &m, &e), CD_ENOENT);
		assert_int_equal(zip_find(z, zn, "torch/lib/libtorch_cuda.so.1", &m, &e),
				 CD_ENOENT);
		/* the name buffer must hold it */
		assert_int_equal(zip_find_suffix(z, zn, ".dist-info/METADATA", name, 8, &m, &e),
				 CD_ERANGE);
	}
}

static void suffix_only_in_a_top_folder(void **state)
{
	struct mem v[] = {
		{"vendored/x-1.0.dist-info/METADATA", "no", 0, 0, 0},
		{"METADATA", "no", 0, 0, 0},
		{".dist-info/METADATA", "no", 0, 0, 0},
	};
	struct zip_member m;
	char name[128];

	(void)state;
	build(v, 3, 0, NULL);
	/* ".dist-info/METADATA" itself has one slash but nothing before it */
	assert_int_equal(
		zip_find_suffix(z, zn, ".dist-info/METADATA", name, sizeof(name), &m, NULL),
		CD_ENOENT);
}

static void lying_archives(void **state)
{
	struct zip_member m;
	struct cd_err e = {0};
	size_t cd_off;

	(void)state;
	assert_int_equal(zip_find(z, 10, "x", &m, &e), CD_EFORMAT);
	build(wheel, 3, 0, NULL);
	/* the end record says the directory is past the end */
	put(zn - 22 + 16, zn, 4);
	assert_int_equal(zip_find(z, zn, "torch/__init__.py", &m, &e), CD_ERANGE);
	/* a directory entry with a bad signature */
	build(wheel, 3, 0, NULL);
	cd_off = wheel[2].local + 34 + strlen(wheel[2].name) + strlen(wheel[2].data);
	put(cd_off, 0x11111111, 4);
	assert_int_equal(zip_find(z, zn, "torch/__init__.py", &m, &e), CD_EFORMAT);
	/* a local header offset that points at junk */
	build(wheel, 3, 0, NULL);
	put(cd_off + 42, 5, 4);
	assert_int_equal(zip_find(z, zn, "torch/__init__.py", &m, &e), CD_EFORMAT);
	/* data running past the archive */
	build(wheel, 3, 0, NULL);
	put(cd_off + 46 + strlen(wheel[0].name) + 20, 0x7fffffff, 4);
	assert_int_equal(zip_find(z, zn, "torch/lib/libtorch_cuda.so", &m, &e), CD_ERANGE);
	/* encrypted */
	wheel[1].flags = 1;
	build(wheel, 3, 0, NULL);
	wheel[1].flags = 0;
	assert_int_equal(zip_find(z, zn, "torch/lib/libtorch_cuda.so", &m, &e), CD_EFORMAT);
	/* ZIP64 markers without a locator */
	build(wheel, 3, 1, NULL);
	memmove(z + zn - 22 - 20 - 4, z + zn - 22, 22); /* drop the locator's tail */
	assert_int_not_equal(zip_find(z, zn - 24, "torch/__init__.py", &m, &e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(finds_members),
		cmocka_unit_test(suffix_only_in_a_top_folder),
		cmocka_unit_test(lying_archives),
	};
	return cmocka_run_group_tests_name("zip", tests, NULL, NULL);
}
