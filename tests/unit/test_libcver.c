/* Unit tests for format/libcver (glibc banner, ELF machine) and
 * format/ctrhint (container runtime markers). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/ctrhint.h"
#include "format/libcver.h"

static void banner(void **state)
{
	static const uint8_t lib[] = "\x7f"
				     "ELF\0\0junk\0GNU C Library (Debian GLIBC 2.36-9+deb12u4) "
				     "stable release version 2.36.\nCopyright (C) 2022\0more";
	static const uint8_t split[] = "GNU C Library (x)\0release version 9.9.";
	static const uint8_t ubuntu[] = "GNU C Library (Ubuntu GLIBC 2.39-0ubuntu8.9) stable "
					"release version 2.39.";
	char v[16];

	(void)state;
	assert_int_equal(libcver_scan(lib, sizeof(lib), v, sizeof(v)), 0);
	assert_string_equal(v, "2.36");
	assert_int_equal(libcver_scan(ubuntu, sizeof(ubuntu) - 1, v, sizeof(v)), 0);
	assert_string_equal(v, "2.39");
	/* The version must be in the banner's own string. */
	assert_int_equal(libcver_scan(split, sizeof(split), v, sizeof(v)), CD_ENOENT);
	assert_int_equal(
		libcver_scan((const uint8_t *)"GNU C Library release version x", 31, v, sizeof(v)),
		CD_ENOENT);
	assert_int_equal(libcver_scan((const uint8_t *)"GNU C Library ", 14, v, sizeof(v)),
			 CD_ENOENT);
	assert_int_equal(libcver_scan(ubuntu, sizeof(ubuntu) - 1, v, 3), CD_ENOENT);
	assert_int_equal(libcver_from_name("libc-2.31.so", v, sizeof(v)), 0);
	assert_string_equal(v, "2.31");
	assert_int_equal(libcver_from_name("libc.so.6", v, sizeof(v)), CD_ENOENT);
	assert_int_equal(libcver_from_name("libc-.so", v, sizeof(v)), CD_ENOENT);
	assert_int_equal(libcver_from_name("libc-2.31a.so", v, sizeof(v)), CD_EFORMAT);
}

static void elf_arch(void **state)
{
	uint8_t h[64];
	const char *a = NULL;

	(void)state;
	memset(h, 0, sizeof(h));
	memcpy(h, "\177ELF", 4);
	h[4] = 2; /* ELFCLASS64 */
	h[5] = 1; /* ELFDATA2LSB */
	h[18] = 62;
	assert_int_equal(libcver_elf_arch(h, sizeof(h), &a), 0);
	assert_string_equal(a, "x86_64");
	h[18] = 183;
	assert_int_equal(libcver_elf_arch(h, sizeof(h), &a), 0);
	assert_string_equal(a, "aarch64");
	h[18] = 21;
	assert_int_equal(libcver_elf_arch(h, sizeof(h), &a), 0);
	assert_string_equal(a, "ppc64le");
	h[5] = 2; /* big-endian: e_machine in the other byte */
	h[18] = 0;
	h[19] = 21;
	assert_int_equal(libcver_elf_arch(h, sizeof(h), &a), 0);
	assert_string_equal(a, "ppc64");
	h[19] = 99;
	assert_int_equal(libcver_elf_arch(h, sizeof(h), &a), CD_ENOENT);
	h[5] = 3;
	assert_int_equal(libcver_elf_arch(h, sizeof(h), &a), CD_EFORMAT);
	assert_int_equal(libcver_elf_arch(h, 19, &a), CD_EFORMAT);
	assert_int_equal(libcver_elf_arch((const uint8_t *)"#!/bin/sh\n0123456789", 20, &a),
			 CD_EFORMAT);
}

static void container_hints(void **state)
{
	static const struct {
		const char *text, *kind;
	} cases[] = {
		{"12:pids:/docker/0123abcd\n11:memory:/docker/0123abcd\n", "docker"},
		{"0::/system.slice/docker-0123abcd.scope\n", "docker"},
		{"0::/kubepods.slice/kubepods-besteffort.slice/cri-containerd-ab.scope\n",
		 "kubernetes"},
		{"0::/machine.slice/libpod-0123.scope/container\n", "podman"},
		{"1 0 0:1 / / rw - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/A\n",
		 "docker"},
		{"1 0 0:1 / / rw - overlay overlay rw,upperdir=/var/lib/containers/storage/o/d\n",
		 "podman"},
		{"5 1 0:2 /var/lib/kubelet/pods/u/volumes/x /run/secrets rw - tmpfs tmpfs rw\n",
		 "kubernetes"},
		{"0::/lxc.payload.c1\n", "lxc"},
	};
	const char *kind = NULL;
	char ev[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(ctrhint_scan((const uint8_t *)cases[i].text, strlen(cases[i].text),
					      &kind, ev, sizeof(ev)),
				 0);
		assert_string_equal(kind, cases[i].kind);
		assert_non_null(strchr(ev, '/'));
	}
	assert_int_equal(ctrhint_scan((const uint8_t *)"0::/\n", 5, &kind, ev, sizeof(ev)),
			 CD_ENOENT);
	assert_int_equal(ctrhint_scan((const uint8_t *)"0::/init.scope\n1:cpu:/user.slice\n", 33,
				      &kind, ev, sizeof(ev)),
			 CD_ENOENT);
	assert_int_equal(ctrhint_scan((const uint8_t *)"", 0, &kind, ev, sizeof(ev)), CD_ENOENT);
	/* Evidence is printable and bounded. */
	assert_int_equal(ctrhint_scan((const uint8_t *)"/docker/\x01\x02", 10, &kind, ev, 6), 0);
	assert_string_equal(ev, "/dock");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(banner),
		cmocka_unit_test(elf_arch),
		cmocka_unit_test(container_hints),
	};
	return cmocka_run_group_tests_name("libcver", tests, NULL, NULL);
}
