/* nvproc: see nvproc.h. The banner is printed by the nvidia kernel module
 * (nv-procfs: "NVRM version: %s" with the module's build string); only the
 * "NVRM version:" line is read, and in it the first token shaped like a
 * driver version (N.N[.N], numeric, at most 31 bytes) after "Kernel Module". */
#include "format/nvproc.h"

#include <string.h>

#include "core/err.h"
#include "core/span.h"

#define LINE_MAX_LEN 4096

static int is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* A token of digits and dots: 2..4 components, each 1..4 digits, the first
 * with at least two ("580.159.04", "470.42", "96.43.23"). */
static int version_token(const uint8_t *t, size_t n)
{
	size_t i, comp = 0, digits = 0, first = 0;

	if (n == 0 || n >= sizeof(((struct nvproc_version *)0)->version))
		return 0;
	for (i = 0; i < n; i++) {
		if (is_digit(t[i])) {
			if (++digits > 4)
				return 0;
			continue;
		}
		if (t[i] != '.' || digits == 0)
			return 0;
		if (comp++ == 0)
			first = digits;
		digits = 0;
	}
	return digits > 0 && comp >= 1 && comp <= 3 && first >= 2;
}

static const uint8_t *find(const uint8_t *p, size_t n, const char *s)
{
	size_t m = strlen(s), i;

	for (i = 0; m <= n && i <= n - m; i++)
		if (!memcmp(p + i, s, m))
			return p + i;
	return NULL;
}

static int scan_tokens(const uint8_t *p, size_t n, struct nvproc_version *out)
{
	size_t i = 0;

	while (i < n) {
		size_t s;
		while (i < n && (p[i] == ' ' || p[i] == '\t'))
			i++;
		s = i;
		while (i < n && p[i] != ' ' && p[i] != '\t')
			i++;
		if (i > s && version_token(p + s, i - s)) {
			memcpy(out->version, p + s, i - s);
			out->version[i - s] = '\0';
			return 0;
		}
	}
	return CD_EFORMAT;
}

int nvproc_parse(const uint8_t *p, size_t n, struct nvproc_version *out)
{
	static const char tag[] = "NVRM version:";
	size_t off = 0;
	struct cd_span l;

	memset(out, 0, sizeof(*out));
	while (span_line(p, n, &off, 0, &l)) {
		const uint8_t *line = l.p, *km;
		size_t len = l.n;
		if (len < sizeof(tag) - 1 || memcmp(line, tag, sizeof(tag) - 1))
			continue;
		if (len > LINE_MAX_LEN)
			len = LINE_MAX_LEN;
		out->open = find(line, len, "Open Kernel Module") != NULL;
		km = find(line, len, "Kernel Module");
		if (km && !scan_tokens(km, len - (size_t)(km - line), out))
			return 0;
		return scan_tokens(line + sizeof(tag) - 1, len - (sizeof(tag) - 1), out);
	}
	return CD_EFORMAT;
}
