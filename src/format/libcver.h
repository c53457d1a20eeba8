/* libcver: facts about an image's C library read from its bytes, without
 * loading or running it (for --root). libcver_scan finds the banner glibc
 * keeps in .rodata ("GNU C Library (Debian GLIBC 2.36-9) stable release
 * version 2.36.") in a window of the file; libcver_elf_arch names the machine
 * of an ELF header. Both write into the caller's buffer and allocate nothing.
 * 0, CD_ENOENT (not in these bytes) or CD_EFORMAT. */
#ifndef CD_LIBCVER_H
#define CD_LIBCVER_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* A banner is shorter than this, so windows that overlap by it see every one. */
#define LIBCVER_OVERLAP 512

CD_WUR int libcver_scan(const uint8_t *p, size_t n, char *out, size_t cap);
/* "x86_64", "aarch64", "ppc64le", ...; the uname -m spelling. */
CD_WUR int libcver_elf_arch(const uint8_t *p, size_t n, const char **arch);
/* A file name "libc-2.31.so" (the library before glibc 2.34 merged its
 * versioned name into libc.so.6) -> "2.31". */
CD_WUR int libcver_from_name(const char *name, char *out, size_t cap);

#endif
