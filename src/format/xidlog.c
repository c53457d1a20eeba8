/* xidlog: see xidlog.h. The driver prints "NVRM: Xid (PCI:<domain>:<bus>:<dev>
 * [GPU-I:<gi>]): <xid>, <details>" (older drivers without "PCI:"); /dev/kmsg
 * puts "<prio>,<seq>,<usec>,<flags>;" before each record and continues a
 * record's key=value dictionary on lines that start with a space. */
#include "format/xidlog.h"

#include <string.h>

#define TAG "NVRM: Xid ("

void xidlog_init(struct xidlog_reader *r, const uint8_t *p, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->n = p ? n : 0;
}

static int digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

/* Read decimal digits at *i (at most 18); -1 when there are none. */
static int64_t number(const uint8_t *p, size_t n, size_t *i, size_t *ndigits)
{
	int64_t v = 0;
	size_t k = 0;

	while (*i < n && digit(p[*i]) && k < 18) {
		v = v * 10 + (p[*i] - '0');
		++*i;
		k++;
	}
	if (ndigits)
		*ndigits = k;
	return k ? v : -1;
}

/* "<prio>,<seq>,<usec>,<flags>;": the timestamp and the message's start. */
static int kmsg_prefix(const uint8_t *p, size_t n, int64_t *ts, size_t *msg)
{
	size_t i = 0;
	int64_t v;

	if (number(p, n, &i, NULL) < 0 || i >= n || p[i++] != ',' || number(p, n, &i, NULL) < 0 ||
	    i >= n || p[i++] != ',' || (v = number(p, n, &i, NULL)) < 0 || i >= n || p[i] != ',')
		return -1;
	while (i < n && p[i] != ';')
		i++;
	if (i >= n)
		return -1;
	*ts = v;
	*msg = i + 1;
	return 0;
}

/* "[  5678.901234] ": the timestamp and the message's start. */
static int dmesg_prefix(const uint8_t *p, size_t n, int64_t *ts, size_t *msg)
{
	size_t i = 1, k;
	int64_t sec, frac;

	if (!n || p[0] != '[')
		return -1;
	while (i < n && p[i] == ' ')
		i++;
	if ((sec = number(p, n, &i, NULL)) < 0 || i >= n || p[i++] != '.' ||
	    (frac = number(p, n, &i, &k)) < 0 || k > 9 || i >= n || p[i] != ']')
		return -1;
	for (; k < 6; k++)
		frac *= 10;
	for (; k > 6; k--)
		frac /= 10;
	*ts = sec * 1000000 + frac;
	*msg = i + 1;
	return 0;
}

static void copy_text(char *dst, size_t cap, const uint8_t *p, size_t n)
{
	size_t i;

	if (n >= cap)
		n = cap - 1;
	for (i = 0; i < n; i++)
		dst[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	dst[n] = '\0';
}

/* One line: 1 when it is an Xid line. */
static int parse_line(const uint8_t *p, size_t n, struct xidlog_event *ev)
{
	const uint8_t *tag;
	size_t msg = 0, i, close;
	int64_t ts = -1, xid;

	if (kmsg_prefix(p, n, &ts, &msg) && dmesg_prefix(p, n, &ts, &msg)) {
		ts = -1;
		msg = 0;
	}
	tag = n > msg ? memmem(p + msg, n - msg, TAG, strlen(TAG)) : NULL;
	if (!tag)
		return 0;
	i = (size_t)(tag - p) + strlen(TAG);
	for (close = i; close < n && p[close] != ')' && close - i < 64; close++)
		;
	if (close >= n || p[close] != ')' || close + 2 >= n || p[close + 1] != ':')
		return 0;
	memset(ev, 0, sizeof(*ev));
	if (close - i > 4 && !memcmp(p + i, "PCI:", 4))
		i += 4;
	copy_text(ev->pci, sizeof(ev->pci), p + i, close - i);
	ev->pci[strcspn(ev->pci, " ")] = '\0'; /* drop " GPU-I:05" */
	i = close + 2;
	while (i < n && p[i] == ' ')
		i++;
	if ((xid = number(p, n, &i, NULL)) < 0 || xid > 0xffffffffLL)
		return 0;
	ev->xid = (uint32_t)xid;
	ev->ts_us = ts;
	if (i < n && p[i] == ',')
		i++;
	while (i < n && p[i] == ' ')
		i++;
	copy_text(ev->text, sizeof(ev->text), p + i, n - i);
	return 1;
}

int xidlog_next(struct xidlog_reader *r, struct xidlog_event *ev)
{
	while (r->off < r->n) {
		const uint8_t *p = r->p + r->off, *nl = memchr(p, '\n', r->n - r->off);
		size_t len = nl ? (size_t)(nl - p) : r->n - r->off;
		r->off += len + (nl != NULL);
		r->lines++;
		if (len && p[len - 1] == '\r')
			len--;
		if (len && p[0] == ' ')
			continue; /* a /dev/kmsg dictionary line */
		if (parse_line(p, len, ev)) {
			r->xids++;
			return 1;
		}
	}
	return 0;
}

/* A hex field of at most max digits ending at a separator or the end. */
static int hex(const char **s, unsigned *out, size_t max)
{
	unsigned v = 0;
	size_t k = 0;

	for (; **s && k < max; ++*s, k++) {
		char c = **s;
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			break;
		v = v * 16 + (unsigned)d;
	}
	*out = v;
	return k ? 0 : -1;
}

int xidlog_pci(const char *s, unsigned *domain, unsigned *bus, unsigned *device)
{
	unsigned a, b, c;
	const char *p = s;

	if (hex(&p, &a, 8) || *p++ != ':' || hex(&p, &b, 4))
		return -1;
	if (*p == ':') {
		p++;
		if (hex(&p, &c, 4))
			return -1;
		*domain = a;
		*bus = b;
		*device = c;
	} else {
		*domain = 0;
		*bus = a;
		*device = b;
	}
	return *p == '\0' || *p == '.' ? 0 : -1;
}
