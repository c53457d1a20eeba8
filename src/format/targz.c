/* targz: see targz.h. The ustar layout is POSIX.1-2008 pax's ustar
 * interchange format: fields in NUL-padded octal, the checksum the sum of the
 * header's bytes with its own field read as spaces. */
#include "format/targz.h"

#include <stdio.h>
#include <string.h>

#include "core/str.h"

static void octal(uint8_t *field, size_t width, uint64_t v)
{
	char tmp[24];

	snprintf(tmp, sizeof(tmp), "%0*llo", (int)(width - 1), (unsigned long long)v);
	memcpy(field, tmp, width - 1);
	field[width - 1] = '\0';
}

/* Place name into the name (100) and prefix (155) fields. */
static int put_name(uint8_t h[TAR_BLOCK], const char *name)
{
	size_t n = strlen(name), i;

	if (!n)
		return CD_EFORMAT;
	if (n <= 100) {
		memcpy(h, name, n);
		return 0;
	}
	for (i = n - 1; i > 0; i--) {
		if (name[i] != '/')
			continue;
		if (i <= 155 && n - i - 1 <= 100 && n - i - 1 > 0) {
			memcpy(h + 345, name, i);
			memcpy(h, name + i + 1, n - i - 1);
			return 0;
		}
	}
	return CD_EFORMAT;
}

int targz_header(uint8_t h[TAR_BLOCK], const char *name, uint64_t size, int64_t mtime, char type)
{
	unsigned sum = 0;
	size_t i;

	memset(h, 0, TAR_BLOCK);
	if (put_name(h, name) || size > 077777777777ULL || mtime < 0)
		return CD_EFORMAT;
	octal(h + 100, 8, type == '5' ? 0755 : 0644);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, (uint64_t)mtime);
	h[156] = (uint8_t)type;
	memcpy(h + 257, "ustar", 6); /* magic, NUL-terminated */
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	octal(h + 148, 7, sum); /* six digits, a NUL, and the space left there */
	return 0;
}

static int pump(struct targz *t, const void *p, size_t n, int flush, struct cd_err *err)
{
	int zr, rc;

	t->z.next_in = (Bytef *)(uintptr_t)p;
	t->z.avail_in = (uInt)n;
	do {
		size_t have;
		t->z.next_out = t->out;
		t->z.avail_out = (uInt)sizeof(t->out);
		zr = deflate(&t->z, flush);
		if (zr == Z_STREAM_ERROR)
			return err_set(err, CD_EINTERNAL, "deflate: stream error");
		have = sizeof(t->out) - t->z.avail_out;
		if (have && (rc = t->sink(t->ctx, t->out, have)))
			return err_set(err, rc, "writing the archive failed");
		t->bytes_out += have;
	} while (t->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

/* Bytes in pieces small enough for zlib's uInt counters. */
static int put(struct targz *t, const void *p, size_t n, struct cd_err *err)
{
	const uint8_t *c = p;
	int rc = 0;

	t->bytes_in += n;
	while (n && !rc) {
		size_t k = n < ((size_t)1 << 30) ? n : (size_t)1 << 30;
		rc = pump(t, c, k, Z_NO_FLUSH, err);
		c += k;
		n -= k;
	}
	return rc;
}

int targz_open(struct targz *t, targz_sink sink, void *ctx, int64_t mtime, struct cd_err *err)
{
	memset(&t->z, 0, sizeof(t->z));
	t->sink = sink;
	t->ctx = ctx;
	t->mtime = mtime;
	t->bytes_in = t->bytes_out = 0;
	t->members = 0;
	/* windowBits 15 + 16: a gzip wrapper (RFC 1952) around the deflate stream */
	if (deflateInit2(&t->z, TARGZ_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return err_set(err, CD_ENOMEM, "zlib: deflateInit2 failed");
	t->open = 1;
	return 0;
}

static int member(struct targz *t, const char *name, const void *p, size_t n, char type,
		  struct cd_err *err)
{
	static const uint8_t zero[TAR_BLOCK];
	uint8_t h[TAR_BLOCK];
	int rc;

	if (!t->open)
		return err_set(err, CD_EINTERNAL, "archive not open");
	if (targz_header(h, name, n, t->mtime, type))
		return err_set(err, CD_EFORMAT, "%s: no ustar name for it", name);
	rc = put(t, h, sizeof(h), err);
	if (!rc && n)
		rc = put(t, p, n, err);
	if (!rc && n % TAR_BLOCK)
		rc = put(t, zero, TAR_BLOCK - n % TAR_BLOCK, err);
	if (!rc)
		t->members++;
	return rc;
}

int targz_add(struct targz *t, const char *name, const void *p, size_t n, struct cd_err *err)
{
	return member(t, name, p, n, '0', err);
}

int targz_dir(struct targz *t, const char *name, struct cd_err *err)
{
	char dir[256];

	if (str_has_suffix(name, "/"))
		return member(t, name, NULL, 0, '5', err);
	if (snprintf(dir, sizeof(dir), "%s/", name) >= (int)sizeof(dir))
		return err_set(err, CD_EFORMAT, "%s: directory name too long", name);
	return member(t, dir, NULL, 0, '5', err);
}

int targz_close(struct targz *t, struct cd_err *err)
{
	static const uint8_t zero[2 * TAR_BLOCK];
	int rc;

	if (!t->open)
		return err_set(err, CD_EINTERNAL, "archive not open");
	rc = put(t, zero, sizeof(zero), err);
	if (!rc)
		rc = pump(t, NULL, 0, Z_FINISH, err);
	targz_abort(t);
	return rc;
}

void targz_abort(struct targz *t)
{
	if (t && t->open) {
		deflateEnd(&t->z);
		t->open = 0;
	}
}
