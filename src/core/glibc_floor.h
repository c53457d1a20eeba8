/* glibc_floor: the oldest glibc the binary starts on, GLIBC_2.28 (RHEL 8, Debian 10).
 * The Makefile force-includes this header in every file: it binds the few interfaces whose
 * default symbol version is newer than the floor to the older versions glibc still exports
 * (glibc_floor.c does the same for stat, fstat, lstat and the program's start). Nothing here
 * allocates or fails; scripts/check-static.sh fails when a newer version creeps in anyway.
 * Builds against headers older than these versions, or another libc, change nothing. */
#ifndef CD_GLIBC_FLOOR_H
#define CD_GLIBC_FLOOR_H

#include <features.h>

/* The version each architecture's glibc started at; the old interfaces carry it. */
#if defined(__GLIBC__) && defined(__x86_64__)
#define CD_GLIBC_BASE	"GLIBC_2.2.5"
#define CD_GLIBC_DLINFO "GLIBC_2.3.3"
#elif defined(__GLIBC__) && defined(__aarch64__)
#define CD_GLIBC_BASE	"GLIBC_2.17"
#define CD_GLIBC_DLINFO "GLIBC_2.17"
#endif

/* glibc 2.34 moved libdl into libc under GLIBC_2.34; the old versions stay exported and,
 * on an older glibc, are found in libdl.so.2 (the Makefile links it unconditionally). */
#if defined(CD_GLIBC_BASE) && __GLIBC_PREREQ(2, 34)
__asm__(".symver dlopen, dlopen@" CD_GLIBC_BASE);
__asm__(".symver dlsym, dlsym@" CD_GLIBC_BASE);
__asm__(".symver dlerror, dlerror@" CD_GLIBC_BASE);
__asm__(".symver dlclose, dlclose@" CD_GLIBC_BASE);
__asm__(".symver dlinfo, dlinfo@" CD_GLIBC_DLINFO);
#endif

/* glibc 2.29's new exp, log and pow drop the SVID error wrapper, nothing a caller here sees. */
#if defined(CD_GLIBC_BASE) && __GLIBC_PREREQ(2, 29)
__asm__(".symver pow, pow@" CD_GLIBC_BASE);
__asm__(".symver exp, exp@" CD_GLIBC_BASE);
__asm__(".symver log, log@" CD_GLIBC_BASE);
#endif

#endif
