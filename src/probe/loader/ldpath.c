/* ldpath: the loader's notion of the platform and of search directories:
 * $LIB/$PLATFORM/$ORIGIN expansion (glibc elf/dl-load.c is_dst and
 * _dl_dst_substitute), search lists split and cleaned as fillin_rpath does
 * (empty element = current directory, trailing slashes dropped, duplicates
 * dropped, an element whose token has no value dropped), and the platform
 * facts derived from the main object and the layout of the root. */
#include <ctype.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "format/elf.h"
#include "probe/loader/ldresolve_int.h"

/* Per machine: interpreter, Debian multiarch triplet, AT_PLATFORM. */
struct plat_row {
	uint16_t machine;
	int is64;
	const char *rtld;
	const char *triplet;
	const char *platform;
};

static const struct plat_row plat_rows[] = {
	/* x86-64: glibc sysdeps/unix/sysv/linux/x86_64/ldconfig.h */
	{ELF_EM_X86_64, 1, "/lib64/ld-linux-x86-64.so.2", "x86_64-linux-gnu", "x86_64"},
	/* x32 ABI */
	{ELF_EM_X86_64, 0, "/libx32/ld-linux-x32.so.2", "x86_64-linux-gnux32", "x86_64"},
	/* i386: AT_PLATFORM is "i686" on current CPUs */
	{ELF_EM_386, 0, "/lib/ld-linux.so.2", "i386-linux-gnu", "i686"},
	/* AArch64: sysdeps/unix/sysv/linux/aarch64/ldconfig.h */
	{ELF_EM_AARCH64, 1, "/lib/ld-linux-aarch64.so.1", "aarch64-linux-gnu", "aarch64"},
	/* ppc64le: AT_PLATFORM names the CPU generation, unknown from files */
	{ELF_EM_PPC64, 1, "/lib64/ld64.so.2", "powerpc64le-linux-gnu", NULL},
};

static int dir_is_real(const struct cd_root *r, const char *path)
{
	struct stat st;

	return file_lstat(r, path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Default directories: Debian/Ubuntu multiarch when the triplet directory
 * exists (ld.so --help: /lib/T, /usr/lib/T, /lib, /usr/lib; $LIB lib/T),
 * Fedora/RHEL/SUSE lib64 when /usr/lib64 is a real directory, else lib. */
static void plat_dirs(struct ldr_session *s, const struct plat_row *row)
{
	struct ldr_platform *p = &s->plat;
	char a[64], b[64];

	p->n_sysdirs = 0;
	if (row && row->triplet) {
		snprintf(a, sizeof(a), "/lib/%s", row->triplet);
		snprintf(b, sizeof(b), "/usr/lib/%s", row->triplet);
		if (file_is_dir(s->root, a) || file_is_dir(s->root, b)) {
			p->sysdirs[p->n_sysdirs++] = arena_strdup(s->a, a);
			p->sysdirs[p->n_sysdirs++] = arena_strdup(s->a, b);
			p->sysdirs[p->n_sysdirs++] = "/lib";
			p->sysdirs[p->n_sysdirs++] = "/usr/lib";
			p->lib = arena_printf(s->a, "lib/%s", row->triplet);
			return;
		}
	}
	if (p->is64 && dir_is_real(s->root, "/usr/lib64")) {
		p->sysdirs[p->n_sysdirs++] = "/lib64";
		p->sysdirs[p->n_sysdirs++] = "/usr/lib64";
		p->lib = "lib64";
		return;
	}
	p->sysdirs[p->n_sysdirs++] = "/lib";
	p->sysdirs[p->n_sysdirs++] = "/usr/lib";
	p->lib = "lib";
}

#if defined(__x86_64__)
/* XCR0 through xgetbv; only called once cpuid says OSXSAVE. */
static unsigned long long xcr0(void)
{
	unsigned int lo, hi;

	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

/* The $PLATFORM glibc's loader uses on this CPU (sysdeps/x86/cpu-features.c,
 * glibc 2.26 on): on an Intel CPU it replaces the kernel's "x86_64" by
 * "xeon_phi" (AVX512 CD, ER and PF usable) or "haswell" (AVX2, FMA, BMI1,
 * BMI2, LZCNT, MOVBE and POPCNT usable); other vendors keep "x86_64".
 * "Usable" means the OS saves the registers too (XCR0). */
static const char *x86_64_host_platform(void)
{
	unsigned int a, b, c, d, ecx1 = 0, ebx7 = 0, ecx81 = 0;
	unsigned long long x = 0;
	int avx, avx512;

	if (!__get_cpuid(0, &a, &b, &c, &d) || a < 7)
		return "x86_64";
	/* "GenuineIntel" in ebx, edx, ecx */
	if (b != 0x756e6547 || d != 0x49656e69 || c != 0x6c65746e)
		return "x86_64";
	__get_cpuid(1, &a, &b, &ecx1, &d);
	__cpuid_count(7, 0, a, ebx7, c, d);
	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		ecx81 = c;
	if (ecx1 & (1u << 27)) /* OSXSAVE */
		x = xcr0();
	avx = (x & 0x6) == 0x6 && (ecx1 & (1u << 28));
	avx512 = avx && (x & 0xe0) == 0xe0 && (ebx7 & (1u << 16));
	if (avx512 && (ebx7 & (1u << 28)) && (ebx7 & (1u << 27)) && (ebx7 & (1u << 26)))
		return "xeon_phi";
	if (avx && (ebx7 & (1u << 5)) && (ecx1 & (1u << 12)) && (ebx7 & (1u << 3)) &&
	    (ebx7 & (1u << 8)) && (ecx81 & (1u << 5)) && (ecx1 & (1u << 22)) && (ecx1 & (1u << 23)))
		return "haswell";
	return "x86_64";
}
#endif

void ldr_platform_init(struct ldr_session *s, uint16_t machine, int is64, int be,
		       const char *interp)
{
	const struct plat_row *row = NULL;
	size_t i;

	memset(&s->plat, 0, sizeof(s->plat));
	s->plat.machine = machine;
	s->plat.is64 = is64;
	s->plat.be = be;
	for (i = 0; i < sizeof(plat_rows) / sizeof(plat_rows[0]); i++)
		if (plat_rows[i].machine == machine && plat_rows[i].is64 == is64)
			row = &plat_rows[i];
	s->plat.platform = row ? row->platform : NULL;
#if defined(__x86_64__)
	/* Only the real root runs on this CPU; an image keeps AT_PLATFORM. */
	if (s->root->is_host && machine == ELF_EM_X86_64 && is64)
		s->plat.platform = x86_64_host_platform();
#endif
	s->plat.rtld = interp ? arena_strdup(s->a, interp) : row ? row->rtld : NULL;
	s->plat.cache_flags = ldc_flags_for(machine, is64);
	plat_dirs(s, row);
}

/* glibc is_dst: length of the token at in (after '$'), 0 if it is not ref. */
static size_t is_dst(const char *in, const char *ref)
{
	size_t n = strlen(ref);
	int curly = *in == '{';

	if (curly)
		in++;
	if (strncmp(in, ref, n) != 0)
		return 0;
	if (curly)
		return in[n] == '}' ? n + 2 : 0;
	if (isalnum((unsigned char)in[n]) || in[n] == '_')
		return 0;
	return n;
}

char *ldr_expand(struct ldr_session *s, const char *in, const char *origin)
{
	struct cd_buf b;
	char *out;
	size_t k;
	int rc = 0;

	if (!strchr(in, '$'))
		return arena_strdup(s->a, in);
	buf_init(&b, 1 << 16);
	while (*in && !rc) {
		const char *val = NULL;
		if (*in != '$') {
			rc = buf_putc(&b, *in++);
			continue;
		}
		if ((k = is_dst(in + 1, "ORIGIN")) != 0)
			val = origin;
		else if ((k = is_dst(in + 1, "PLATFORM")) != 0)
			val = s->plat.platform;
		else if ((k = is_dst(in + 1, "LIB")) != 0)
			val = s->plat.lib;
		if (!k) {
			rc = buf_putc(&b, *in++);
			continue;
		}
		if (!val) {
			buf_free(&b);
			return NULL;
		}
		rc = buf_puts(&b, val);
		in += 1 + k;
	}
	/* A path cut short names another file: no value, as for a token without one. */
	out = rc ? NULL : arena_strndup(s->a, b.p ? b.p : "", b.len);
	buf_free(&b);
	return out;
}

/* Split list on any of seps into expanded, cleaned, distinct directories. */
int ldr_split_dirs(struct ldr_session *s, const char *list, const char *seps, const char *origin,
		   const char ***out, size_t *n)
{
	size_t cap = 1, i;
	const char *p;
	const char **v;

	for (p = list; *p; p++)
		cap += strchr(seps, *p) != NULL;
	v = arena_calloc(s->a, cap, sizeof(*v));
	*out = v;
	*n = 0;
	if (!v)
		return CD_ENOMEM;
	for (p = list;;) {
		size_t len = strcspn(p, seps);
		char *el = arena_strndup(s->a, p, len), *x;
		size_t xl;
		x = el && *el ? ldr_expand(s, el, origin) : el;
		if (x && (*el == '\0' || *x != '\0')) {
			xl = strlen(x);
			while (xl > 1 && x[xl - 1] == '/')
				x[--xl] = '\0';
			for (i = 0; i < *n && strcmp(v[i], x) != 0; i++)
				;
			if (i == *n)
				v[(*n)++] = x;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	return 0;
}

/* The in-root path to open for a loader path (relative: from cfg.cwd). */
const char *ldr_fs_path(struct ldr_session *s, const char *path)
{
	const char *cwd = s->cfg.cwd ? s->cfg.cwd : "/";

	if (path[0] == '/')
		return path;
	return fsu_path(s->a, cwd, path);
}

/* dirname as _dl_new_object computes l_origin: no canonicalisation. */
const char *ldr_origin(struct ldr_session *s, const char *path)
{
	const char *abs = ldr_fs_path(s, path);
	const char *slash = strrchr(abs, '/');

	if (!slash || slash == abs)
		return "/";
	return arena_strndup(s->a, abs, (size_t)(slash - abs));
}
