/* dpkgst: see dpkgst.h. */
#include "format/dpkgst.h"

#include <string.h>

#include "core/err.h"

struct para {
	char name[DPKGST_FIELD_MAX], arch[DPKGST_FIELD_MAX], version[DPKGST_FIELD_MAX];
	int installed;
};

static void take(char *dst, const uint8_t *v, size_t n)
{
	while (n && (*v == ' ' || *v == '\t'))
		v++, n--;
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
		n--;
	if (n >= DPKGST_FIELD_MAX)
		n = DPKGST_FIELD_MAX - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static int field(const uint8_t *line, size_t len, const char *tag, const uint8_t **v, size_t *vn)
{
	size_t t = strlen(tag);

	if (len <= t || memcmp(line, tag, t) || line[t] != ':')
		return 0;
	*v = line + t + 1;
	*vn = len - t - 1;
	return 1;
}

static void line_of(struct para *pa, const uint8_t *line, size_t len)
{
	const uint8_t *v;
	size_t vn;
	char st[DPKGST_FIELD_MAX];

	if (field(line, len, "Package", &v, &vn))
		take(pa->name, v, vn);
	else if (field(line, len, "Architecture", &v, &vn))
		take(pa->arch, v, vn);
	else if (field(line, len, "Version", &v, &vn))
		take(pa->version, v, vn);
	else if (field(line, len, "Status", &v, &vn)) {
		take(st, v, vn);
		pa->installed = !strcmp(st, "install ok installed");
	}
}

static int end_para(struct para *pa, dpkgst_fn cb, void *ctx)
{
	int seen = pa->installed && pa->name[0];

	if (seen)
		cb(ctx, pa->name, pa->arch, pa->version);
	memset(pa, 0, sizeof(*pa));
	return seen;
}

int dpkgst_each(const uint8_t *p, size_t n, dpkgst_fn cb, void *ctx)
{
	struct para pa;
	size_t off = 0;
	int count = 0;

	if (n > DPKGST_MAX)
		return CD_EFORMAT;
	memset(&pa, 0, sizeof(pa));
	while (off < n) {
		const uint8_t *line = p + off, *nl = memchr(line, '\n', n - off);
		size_t len = nl ? (size_t)(nl - line) : n - off;

		off += len + (nl ? 1 : 0);
		if (len == 0 || (len == 1 && line[0] == '\r'))
			count += end_para(&pa, cb, ctx);
		else if (line[0] != ' ' && line[0] != '\t')
			line_of(&pa, line, len);
	}
	count += end_para(&pa, cb, ctx);
	return count;
}
