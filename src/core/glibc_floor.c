/* glibc_floor.c: the definitions that keep the binary at the glibc floor (glibc_floor.h says
 * why). The names are glibc's, not this file's prefix: they replace glibc's newer symbols at
 * link time, so every caller, ours or a static library's, binds to the old interface. */
#include <stddef.h>
#include <sys/stat.h>

#include "core/glibc_floor.h"

#if defined(CD_GLIBC_BASE) && __GLIBC_PREREQ(2, 33)
/* glibc 2.33 exported stat, fstat and lstat (GLIBC_2.33); before, libc_nonshared.a held them
 * as calls of __xstat with the structure's version, which every glibc still exports. The
 * structure is the kernel's on both architectures, version 1 on x86-64, 0 on the generic ABI. */
#if defined(__x86_64__)
#define GLIBC_FLOOR_STAT_VER 1
#else
#define GLIBC_FLOOR_STAT_VER 0
#endif
/* Their default version is still the first one on both architectures: no .symver (which,
 * beside the sanitizers' own __xstat, makes GNU ld write a broken PLT relocation). */
int __xstat(int ver, const char *path, struct stat *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);

/* Hidden: the program's own calls bind here; a library loaded beside keeps glibc's. */
#define GLIBC_FLOOR_LOCAL __attribute__((visibility("hidden")))

GLIBC_FLOOR_LOCAL int stat(const char *restrict path, struct stat *restrict st)
{
	return __xstat(GLIBC_FLOOR_STAT_VER, path, st);
}

GLIBC_FLOOR_LOCAL int lstat(const char *restrict path, struct stat *restrict st)
{
	return __lxstat(GLIBC_FLOOR_STAT_VER, path, st);
}

GLIBC_FLOOR_LOCAL int fstat(int fd, struct stat *st)
{
	return __fxstat(GLIBC_FLOOR_STAT_VER, fd, st);
}
#endif

#if defined(CD_GLIBC_BASE) && __GLIBC_PREREQ(2, 34)
/* glibc 2.34's crt1.o calls __libc_start_main@GLIBC_2.34 with no init function: that libc
 * runs the program's constructors itself. The older entry point (exported by every glibc)
 * expects crt1.o's init function, which 2.34 removed, so this one passes its own: _init and
 * the .init_array, what __libc_csu_init did. Destructors were always ld.so's (_dl_fini). */
int glibc_floor_start(int (*main_fn)(int, char **, char **), int argc, char **argv,
		      void (*init)(int, char **, char **), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end);
__asm__(".symver glibc_floor_start, __libc_start_main@" CD_GLIBC_BASE);
/* Hidden: crt1.o binds to it at link time, and the old version's lookup at run time must
 * not find it in the program (it would call itself). */
__attribute__((visibility("hidden"))) int
__libc_start_main(int (*main_fn)(int, char **, char **), int argc, char **argv,
		  void (*init)(int, char **, char **), void (*fini)(void), void (*rtld_fini)(void),
		  void *stack_end);

extern void (*__init_array_start[])(int, char **, char **) __attribute__((visibility("hidden")));
extern void (*__init_array_end[])(int, char **, char **) __attribute__((visibility("hidden")));
extern void _init(void);

static void glibc_floor_init(int argc, char **argv, char **envp)
{
	_init();
	size_t n = (size_t)(__init_array_end - __init_array_start);
	for (size_t i = 0; i < n; i++)
		__init_array_start[i](argc, argv, envp);
}

int __libc_start_main(int (*main_fn)(int, char **, char **), int argc, char **argv,
		      void (*init)(int, char **, char **), void (*fini)(void),
		      void (*rtld_fini)(void), void *stack_end)
{
	(void)init;
	(void)fini;
	return glibc_floor_start(main_fn, argc, argv, glibc_floor_init, NULL, rtld_fini, stack_end);
}
#endif
