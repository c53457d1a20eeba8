/* cvd: see cvd.h. The CUDA Programming Guide ("CUDA Environment Variables")
 * says the list holds integer indices or UUID strings (abbreviated UUIDs
 * allowed while unambiguous), MIG-... for MIG devices, and that devices after
 * an invalid index are not visible. The finer rules follow PyTorch's model of
 * the runtime (torch/cuda/__init__.py, _parse_visible_devices): indices are
 * read like strtoul (leading spaces, an optional sign, the digits; trailing
 * junk ignored), the first entry decides between indices and GPU-/MIG- ids,
 * an entry of the other kind ends the list, and a repeated id hides every
 * device. */
#include "format/cvd.h"

#include <string.h>

#include "core/err.h"
#include "core/span.h"

static int space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int prefix(const uint8_t *p, size_t n, const char *s)
{
	size_t m = strlen(s);

	return n >= m && !memcmp(p, s, m);
}

static void stop(struct cvd_list *out, enum cvd_stop why, size_t off, size_t len)
{
	out->stop = why;
	out->stop_off = off;
	out->stop_len = len;
}

/* strtoul-like: 1 for an index (sign and digits), 0 for none. */
static int read_index(const uint8_t *p, size_t n, struct cvd_entry *e, int *negative)
{
	size_t i = 0, digits = 0;
	uint64_t v = 0;

	*negative = 0;
	if (i < n && (p[i] == '+' || p[i] == '-'))
		*negative = p[i++] == '-';
	while (i < n && p[i] >= '0' && p[i] <= '9') {
		if (v <= UINT32_MAX)
			v = v * 10 + (uint64_t)(p[i] - '0');
		i++;
		digits++;
	}
	if (!digits)
		return 0;
	e->index = v > UINT32_MAX - 1 ? UINT32_MAX : (uint32_t)v;
	e->lenient = i < n;
	if (*negative && v == 0)
		*negative = 0; /* "-0" is 0 to strtoul */
	return 1;
}

static int duplicate_index(const struct cvd_list *l, uint32_t index)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->e[i].index == index)
			return 1;
	return 0;
}

static int duplicate_text(const struct cvd_list *l, const uint8_t *p, size_t off, size_t len)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->e[i].len == len && !memcmp(p + l->e[i].off, p + off, len))
			return 1;
	return 0;
}

/* One entry [off, off+len), already trimmed; 0 to go on, 1 to stop. */
static int entry(struct cvd_list *out, const uint8_t *p, size_t off, size_t len)
{
	struct cvd_entry e = {.kind = out->mode, .off = off, .len = len};
	int neg;

	if (out->n == CVD_ENTRIES_MAX) {
		stop(out, CVD_STOP_TOO_MANY, off, len);
		return 1;
	}
	if (out->mode == CVD_INDEX) {
		if (!read_index(p + off, len, &e, &neg)) {
			stop(out,
			     prefix(p + off, len, "GPU-") || prefix(p + off, len, "MIG-")
				     ? CVD_STOP_MIXED
				     : CVD_STOP_INVALID,
			     off, len);
			return 1;
		}
		if (neg) {
			stop(out, CVD_STOP_NEGATIVE, off, len);
			return 1;
		}
		if (duplicate_index(out, e.index)) {
			stop(out, CVD_STOP_DUPLICATE, off, len);
			return 1;
		}
	} else {
		if (!prefix(p + off, len, out->mode == CVD_UUID ? "GPU-" : "MIG-")) {
			stop(out, len ? CVD_STOP_MIXED : CVD_STOP_INVALID, off, len);
			return 1;
		}
		if (duplicate_text(out, p, off, len)) {
			stop(out, CVD_STOP_DUPLICATE, off, len);
			return 1;
		}
	}
	out->e[out->n++] = e;
	return 0;
}

int cvd_parse(const uint8_t *p, size_t n, struct cvd_list *out)
{
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	while (off < n && space(p[off]))
		off++;
	if (off == n) {
		stop(out, CVD_STOP_EMPTY, 0, 0);
		return 0;
	}
	out->mode = prefix(p + off, n - off, "GPU-")   ? CVD_UUID
		    : prefix(p + off, n - off, "MIG-") ? CVD_MIG
						       : CVD_INDEX;
	off = 0;
	for (;;) {
		const uint8_t *comma = memchr(p + off, ',', n - off);
		size_t end = comma ? (size_t)(comma - p) : n, s = off, e = end;
		while (s < e && space(p[s]))
			s++;
		while (e > s && space(p[e - 1]))
			e--;
		if (entry(out, p, s, e - s))
			break;
		if (!comma)
			break;
		off = end + 1;
	}
	if (out->stop == CVD_STOP_DUPLICATE)
		out->n = 0;
	return 0;
}

/* The GPU whose UUID starts with the entry; -1 none, -2 several. */
static int match_uuid(const uint8_t *t, size_t len, const char *const *uuids, size_t n_gpus)
{
	int found = -1;
	size_t i;

	for (i = 0; i < n_gpus; i++) {
		if (!uuids[i] || strlen(uuids[i]) < len || memcmp(uuids[i], t, len))
			continue;
		if (found >= 0)
			return -2;
		found = (int)i;
	}
	return found;
}

static void problem(struct cvd_result *r, enum cvd_problem p, size_t at)
{
	r->problem = p;
	r->at = at;
}

void cvd_resolve(const struct cvd_list *l, const uint8_t *p, size_t n, const char *const *uuids,
		 size_t n_gpus, struct cvd_result *out)
{
	size_t i, k;

	memset(out, 0, sizeof(*out));
	if (l->stop != CVD_STOP_NONE)
		problem(out, CVD_P_STOPPED, l->n);
	for (i = 0; i < l->n; i++) {
		const struct cvd_entry *e = &l->e[i];
		int g = -1;
		if (!span_ok(n, e->off, e->len))
			break;
		if (e->kind == CVD_MIG) {
			if (out->problem == CVD_OK)
				problem(out, CVD_P_MIG_UNVERIFIED, i);
			out->gpu[out->visible++] = -1;
			continue;
		}
		if (e->kind == CVD_INDEX) {
			if (e->index >= n_gpus) {
				problem(out, CVD_P_OUT_OF_RANGE, i);
				return;
			}
			g = (int)e->index;
		} else {
			g = match_uuid(p + e->off, e->len, uuids, n_gpus);
			if (g < 0) {
				problem(out, g == -1 ? CVD_P_NO_MATCH : CVD_P_AMBIGUOUS, i);
				return;
			}
			for (k = 0; k < out->visible; k++)
				if (out->gpu[k] == g) {
					problem(out, CVD_P_DUPLICATE, i);
					out->visible = 0;
					return;
				}
		}
		out->gpu[out->visible++] = g;
	}
}
