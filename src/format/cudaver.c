/* cudaver: see cudaver.h. Formats: version.json as written by the CUDA
 * installers since 11.1 (one object per component with a "version" string);
 * version.txt of CUDA <= 11.0 ("CUDA Version X.Y.Z"); the CUDA_VERSION macro
 * of include/cuda.h (major * 1000 + minor * 10); wheel metadata directory
 * names (PEP 427: name-version.dist-info, '-' in names escaped to '_'); conda
 * package records (conda-meta/name-version-build.json). */
#include "format/cudaver.h"

#include <ctype.h>
#include <jansson.h>
#include <string.h>

#include "core/err.h"
#include "core/span.h"
#include "core/str.h"

int cudaver_valid(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n >= CUDAVER_MAX || !isdigit((unsigned char)s[0]) ||
	    !isdigit((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] == '.' && s[i + 1] == '.')
			return 0;
		if (s[i] != '.' && !isdigit((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

static int put(const char *v, size_t len, char *out, size_t cap)
{
	char tmp[CUDAVER_MAX];

	if (len >= sizeof(tmp))
		return CD_EFORMAT;
	memcpy(tmp, v, len);
	tmp[len] = '\0';
	if (!cudaver_valid(tmp))
		return CD_EFORMAT;
	if (str_copy(out, cap, tmp) >= cap)
		return CD_ERANGE;
	return 0;
}

int cudaver_json(const uint8_t *p, size_t n, const char *component, char *out, size_t cap)
{
	json_error_t jerr;
	json_t *root, *comp, *ver;
	int rc = CD_ENOENT;

	if (n == 0 || n > CUDAVER_FILE_MAX)
		return CD_EFORMAT;
	root = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return CD_EFORMAT;
	comp = json_object_get(root, component);
	ver = comp ? json_object_get(comp, "version") : NULL;
	if (comp && !json_is_object(comp))
		rc = CD_EFORMAT;
	else if (ver && !json_is_string(ver))
		rc = CD_EFORMAT;
	else if (ver)
		rc = put(json_string_value(ver), json_string_length(ver), out, cap);
	json_decref(root);
	return rc;
}

int cudaver_txt(const uint8_t *p, size_t n, char *out, size_t cap)
{
	static const char tag[] = "CUDA Version ";
	size_t off = 0, k;

	while (off < n && isspace(p[off]))
		off++;
	if (!span_ok(n, off, sizeof(tag) - 1) || memcmp(p + off, tag, sizeof(tag) - 1))
		return CD_EFORMAT;
	off += sizeof(tag) - 1;
	for (k = 0; off + k < n && (isdigit(p[off + k]) || p[off + k] == '.'); k++)
		;
	if (k == 0)
		return CD_EFORMAT;
	return put((const char *)p + off, k, out, cap);
}

static int is_ident(uint8_t c)
{
	return isalnum(c) || c == '_';
}

int cudaver_header(const uint8_t *p, size_t n, int *v)
{
	static const char tag[] = "CUDA_VERSION";
	size_t off = 0;

	while (off < n) {
		const uint8_t *hit = memmem(p + off, n - off, tag, sizeof(tag) - 1);
		size_t at, e, b;
		long val = 0;

		if (!hit)
			return CD_ENOENT;
		at = (size_t)(hit - p);
		off = at + 1;
		e = at + sizeof(tag) - 1;
		if ((at > 0 && is_ident(p[at - 1])) || (e < n && is_ident(p[e])))
			continue;
		/* Must follow "#define" on the same line: walk back over blanks. */
		b = at;
		while (b > 0 && (p[b - 1] == ' ' || p[b - 1] == '\t'))
			b--;
		if (b < 6 || memcmp(p + b - 6, "define", 6))
			continue;
		b -= 6;
		while (b > 0 && (p[b - 1] == ' ' || p[b - 1] == '\t'))
			b--;
		if (b == 0 || p[b - 1] != '#')
			continue;
		while (e < n && (p[e] == ' ' || p[e] == '\t'))
			e++;
		if (e >= n || !isdigit(p[e]))
			continue;
		while (e < n && isdigit(p[e]) && val < 1000000)
			val = val * 10 + (p[e++] - '0');
		if (val < 1000 || val >= 1000000)
			return CD_EFORMAT;
		*v = (int)val;
		return 0;
	}
	return CD_ENOENT;
}

int cudaver_pkgname(const char *name, const char *prefix, char *out, size_t cap)
{
	size_t plen = strlen(prefix), k;
	const char *s;

	if (strncmp(name, prefix, plen))
		return CD_ENOENT;
	s = name + plen;
	/* wheels for CUDA 12 and older carry the major: nvidia_cuda_nvcc_cu12 */
	if (!strncmp(s, "_cu", 3)) {
		s += 3;
		if (!isdigit((unsigned char)*s))
			return CD_ENOENT;
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s != '-')
		return CD_ENOENT;
	s++;
	for (k = 0; isdigit((unsigned char)s[k]) || s[k] == '.'; k++)
		;
	if (k && s[k - 1] == '.' && !strcmp(s + k, "dist-info"))
		k--; /* the dot of ".dist-info" */
	if (s[k] != '-' && strcmp(s + k, ".dist-info"))
		return CD_ENOENT;
	return put(s, k, out, cap);
}

static int path_char(uint8_t c)
{
	return isalnum(c) || (c && strchr("/._+-", c));
}

int cudaver_wrapper(const uint8_t *p, size_t n, char *out, size_t cap)
{
	static const char tail[] = "/bin/nvcc";
	size_t off = 0;

	if (n > CUDAVER_WRAPPER_MAX || n < 2 || p[0] != '#' || p[1] != '!')
		return CD_EFORMAT;
	while (off < n) {
		const uint8_t *hit = memmem(p + off, n - off, tail, sizeof(tail) - 1);
		size_t at, b, e;

		if (!hit)
			return CD_ENOENT;
		at = (size_t)(hit - p);
		e = at + sizeof(tail) - 1;
		off = at + 1;
		if (e < n && path_char(p[e]))
			continue; /* "/bin/nvcc.profile", "/bin/nvcc_real" */
		b = at;
		while (b > 0 && path_char(p[b - 1]))
			b--;
		if (p[b] != '/' || (b > 0 && (!p[b - 1] || !strchr(" \t\n\"'=", p[b - 1]))))
			continue; /* relative, or "${CUDA_HOME}/bin/nvcc" */
		if (e - b >= cap)
			return CD_ERANGE;
		memcpy(out, p + b, e - b);
		out[e - b] = '\0';
		return 0;
	}
	return CD_ENOENT;
}

int cudaver_dpkg(const uint8_t *p, size_t n, const char *pkg, char *out, size_t cap)
{
	static const char ptag[] = "Package: ", vtag[] = "Version: ";
	size_t off = 0, plen = strlen(pkg);
	struct cd_span l;
	int in = 0;

	if (n > CUDAVER_DPKG_MAX)
		return CD_EFORMAT;
	while (span_line(p, n, &off, 0, &l)) {
		const uint8_t *line = l.p;
		size_t len = l.n, k = 0;

		if (len == 0) {
			in = 0; /* a blank line ends the paragraph */
			continue;
		}
		if (len >= sizeof(ptag) - 1 && !memcmp(line, ptag, sizeof(ptag) - 1)) {
			in = len - (sizeof(ptag) - 1) == plen &&
			     !memcmp(line + sizeof(ptag) - 1, pkg, plen);
			continue;
		}
		if (!in || len < sizeof(vtag) - 1 || memcmp(line, vtag, sizeof(vtag) - 1))
			continue;
		line += sizeof(vtag) - 1;
		len -= sizeof(vtag) - 1;
		for (k = 0; k < len && isdigit(line[k]); k++)
			; /* an epoch "1:" precedes the upstream version */
		if (k < len && line[k] == ':') {
			line += k + 1;
			len -= k + 1;
		}
		for (k = 0; k < len && (isdigit(line[k]) || line[k] == '.'); k++)
			;
		return put((const char *)line, k, out, cap);
	}
	return CD_ENOENT;
}
