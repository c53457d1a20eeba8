/* libcver: see libcver.h. The banner is the string glibc's csu/version.c
 * builds ("GNU C Library " PKGVERSION RELEASE " release version " VERSION);
 * the ELF header layout is the System V gABI's (e_ident[16], e_type,
 * e_machine at offset 18, in the byte order e_ident[EI_DATA] gives). */
#include "format/libcver.h"

#include <ctype.h>
#include <string.h>

#include "core/err.h"
#include "core/span.h"
#include "core/str.h"

static int put_version(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t k = 0, dots = 0;

	while (k < n && k < 16 && (isdigit(p[k]) || p[k] == '.')) {
		dots += p[k] == '.';
		k++;
	}
	while (k > 0 && p[k - 1] == '.') /* the banner ends "2.36." */
		k--, dots--;
	if (k == 0 || dots == 0 || !isdigit(p[0]))
		return CD_EFORMAT;
	if (k >= cap)
		return CD_ERANGE;
	memcpy(out, p, k);
	out[k] = '\0';
	return 0;
}

int libcver_scan(const uint8_t *p, size_t n, char *out, size_t cap)
{
	static const char head[] = "GNU C Library ", tag[] = "release version ";
	size_t off = 0;

	while (off < n) {
		const uint8_t *hit = memmem(p + off, n - off, head, sizeof(head) - 1);
		const uint8_t *end, *ver;
		size_t at, lim;

		if (!hit)
			return CD_ENOENT;
		at = (size_t)(hit - p);
		off = at + 1;
		/* The version must be inside the same C string, within the banner. */
		lim = n - at < LIBCVER_OVERLAP ? n - at : LIBCVER_OVERLAP;
		end = memchr(hit, '\0', lim);
		if (end)
			lim = (size_t)(end - hit);
		ver = memmem(hit, lim, tag, sizeof(tag) - 1);
		if (!ver)
			continue;
		ver += sizeof(tag) - 1;
		if (put_version(ver, (size_t)(hit + lim - ver), out, cap) == 0)
			return 0;
	}
	return CD_ENOENT;
}

int libcver_elf_arch(const uint8_t *p, size_t n, const char **arch)
{
	struct cd_span s = {p, n};
	uint8_t cls, data;
	uint16_t mach;

	if (!span_ok(n, 0, 20) || memcmp(p, "\177ELF", 4))
		return CD_EFORMAT;
	if (span_u8(s, 4, &cls) || span_u8(s, 5, &data) || (data != 1 && data != 2) ||
	    (cls != 1 && cls != 2))
		return CD_EFORMAT;
	if (span_u16(s, 18, data == 2, &mach))
		return CD_EFORMAT;
	/* One row per e_machine value (elf.h); names as uname -m prints them. */
	switch (mach) {
	case 62: *arch = "x86_64"; break;			   /* EM_X86_64 */
	case 183: *arch = "aarch64"; break;			   /* EM_AARCH64 */
	case 3: *arch = "i686"; break;				   /* EM_386 */
	case 40: *arch = "armv7l"; break;			   /* EM_ARM */
	case 21: *arch = data == 1 ? "ppc64le" : "ppc64"; break;   /* EM_PPC64 */
	case 22: *arch = "s390x"; break;			   /* EM_S390 */
	case 243: *arch = cls == 2 ? "riscv64" : "riscv32"; break; /* EM_RISCV */
	default: return CD_ENOENT;
	}
	return 0;
}

int libcver_from_name(const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);

	if (n < 9 || strncmp(name, "libc-", 5) || strcmp(name + n - 3, ".so"))
		return CD_ENOENT;
	if (put_version((const uint8_t *)name + 5, n - 8, out, cap) != 0)
		return CD_EFORMAT;
	return strlen(out) == n - 8 ? 0 : CD_EFORMAT;
}
