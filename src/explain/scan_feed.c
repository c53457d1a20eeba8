/* scan_feed: the input of a scanner: bytes pushed in pieces or read from a
 * descriptor into the buffer, UTF-16 (by its byte order mark or its NULs)
 * decoded into UTF-8, and lines that end with '\r' alone read as lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain/scan_int.h"

static void count_bytes(struct xs_scanner *s, size_t n)
{
	if (s->input < s->res->n_inputs)
		s->res->inputs[s->input].bytes += n;
}

/* Append bytes that are already the scanner's text (UTF-8 or raw). */
static int append(struct xs_scanner *s, const uint8_t *b, size_t n)
{
	int rc;

	while (n) {
		size_t k = XS_BUF - s->len;
		if (!k) {
			rc = xs_process(s, 0);
			if (rc)
				return rc;
			continue;
		}
		if (k > n)
			k = n;
		memcpy(s->buf + s->len, b, k);
		s->len += k;
		b += k;
		n -= k;
	}
	return s->err;
}

static size_t put_utf8(uint8_t *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (uint8_t)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (uint8_t)(0xc0 | c >> 6);
		o[1] = (uint8_t)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (uint8_t)(0xe0 | c >> 12);
		o[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
		o[2] = (uint8_t)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (uint8_t)(0xf0 | c >> 18);
	o[1] = (uint8_t)(0x80 | (c >> 12 & 0x3f));
	o[2] = (uint8_t)(0x80 | (c >> 6 & 0x3f));
	o[3] = (uint8_t)(0x80 | (c & 0x3f));
	return 4;
}

/* UTF-16 (a PowerShell redirect) into UTF-8, in blocks; a code unit or a
 * surrogate pair split between two calls is carried over; a lone surrogate
 * becomes U+FFFD. */
static int feed_utf16(struct xs_scanner *s, const uint8_t *b, size_t n)
{
	uint8_t out[16384];
	size_t o = 0, i = 0;
	int rc;

	while (i < n) {
		uint8_t u0, u1;
		uint32_t c;
		if (s->has_odd) {
			u0 = s->odd;
			u1 = b[i++];
			s->has_odd = 0;
		} else if (i + 1 < n) {
			u0 = b[i];
			u1 = b[i + 1];
			i += 2;
		} else {
			s->odd = b[i++];
			s->has_odd = 1;
			break;
		}
		c = s->enc == XS_ENC_UTF16LE ? (uint32_t)(u0 | u1 << 8) : (uint32_t)(u1 | u0 << 8);
		if (s->hi) {
			uint32_t hi = s->hi;
			s->hi = 0;
			if (c >= 0xdc00 && c <= 0xdfff) {
				o += put_utf8(out + o,
					      0x10000 + ((hi - 0xd800) << 10) + (c - 0xdc00));
				goto flush;
			}
			o += put_utf8(out + o, 0xfffd);
		}
		if (c >= 0xd800 && c <= 0xdbff)
			s->hi = c;
		else if (c >= 0xdc00 && c <= 0xdfff)
			o += put_utf8(out + o, 0xfffd);
		else if (c != 0xfeff || s->line > 1 || s->len || o) /* a BOM is no text */
			o += put_utf8(out + o, c);
	flush:
		if (o > sizeof(out) - 8) {
			rc = append(s, out, o);
			if (rc)
				return rc;
			o = 0;
		}
	}
	return o ? append(s, out, o) : s->err;
}

/* UTF-16 by its byte order mark, or by ASCII text with every other byte
 * NUL in the first 256 bytes. */
static int detect_enc(const uint8_t *p, size_t n)
{
	size_t i, k = n < 256 ? n & ~(size_t)1 : 256, z_odd = 0, z_even = 0;

	if (n >= 2 && p[0] == 0xff && p[1] == 0xfe)
		return XS_ENC_UTF16LE;
	if (n >= 2 && p[0] == 0xfe && p[1] == 0xff)
		return XS_ENC_UTF16BE;
	if (k < 16)
		return XS_ENC_RAW;
	for (i = 0; i < k; i += 2) {
		z_even += !p[i];
		z_odd += !p[i + 1];
	}
	if (z_odd * 10 >= k / 2 * 9 && z_even * 10 < k / 2)
		return XS_ENC_UTF16LE;
	if (z_even * 10 >= k / 2 * 9 && z_odd * 10 < k / 2)
		return XS_ENC_UTF16BE;
	return XS_ENC_RAW;
}

/* On the first bytes of an input: UTF-16 is decoded from then on (what is in
 * the buffer already is taken out and fed again), and a text whose lines end
 * with '\r' alone has them read as line ends. */
int xs_decide(struct xs_scanner *s)
{
	uint8_t *raw;
	size_t n = s->len;
	int rc;

	s->enc = detect_enc(s->buf, s->len);
	if (s->enc != XS_ENC_RAW) {
		raw = malloc(n ? n : 1);
		if (!raw)
			return CD_ENOMEM;
		memcpy(raw, s->buf, n);
		s->len = 0;
		rc = feed_utf16(s, raw, n);
		free(raw);
		if (rc)
			return rc;
	}
	if (s->len && memchr(s->buf, '\r', s->len) && !memchr(s->buf, '\n', s->len))
		s->cr_only = 1;
	return 0;
}

int xs_feed(struct xs_scanner *s, const void *p, size_t n)
{
	if (s->finished)
		return CD_EINTERNAL;
	count_bytes(s, n);
	if (s->enc == XS_ENC_UTF16LE || s->enc == XS_ENC_UTF16BE)
		return feed_utf16(s, p, n);
	return append(s, p, n);
}

int xs_feed_fd(struct xs_scanner *s, int fd, struct cd_err *err)
{
	ssize_t k;
	int rc, utf16;

	if (s->finished)
		return CD_EINTERNAL;
	for (;;) {
		uint8_t raw[65536];
		if (s->len == XS_BUF && (rc = xs_process(s, 0)) != 0)
			return err_set(err, rc, "scan failed");
		/* After xs_process: the first buffer decides the encoding. UTF-16 is
		 * read aside and decoded into the buffer; other text straight in. */
		utf16 = s->enc == XS_ENC_UTF16LE || s->enc == XS_ENC_UTF16BE;
		k = utf16 ? read(fd, raw, sizeof(raw)) : read(fd, s->buf + s->len, XS_BUF - s->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return err_set(err, CD_EIO, "read: %s", strerror(errno));
		if (k == 0)
			return 0;
		count_bytes(s, (size_t)k);
		if (!utf16)
			s->len += (size_t)k;
		else if ((rc = feed_utf16(s, raw, (size_t)k)) != 0)
			return err_set(err, rc, "scan failed");
	}
}
