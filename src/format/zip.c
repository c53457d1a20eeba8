/* zip: see zip.h. Records (PKWARE APPNOTE 6.3, §4.3): the end of central
 * directory record (0x06054b50, 22 bytes and a comment of up to 64 KiB); with
 * ZIP64 its locator (0x07064b50, 20 bytes, just before it) names the ZIP64
 * end record (0x06064b50) whose entry count, directory size and offset
 * replace the 0xFFFF / 0xFFFFFFFF ones. A central directory entry
 * (0x02014b50) is 46 bytes, then the name, the extra field and the comment;
 * its ZIP64 extra field (id 1) holds, in order, the uncompressed size, the
 * compressed size and the local header offset that were 0xFFFFFFFF. A local
 * header (0x04034b50) is 30 bytes, then its own name and extra field, then
 * the data. */
#include "format/zip.h"

#include <string.h>

#include "core/span.h"

#define EOCD_SIG       0x06054b50u
#define EOCD_LEN       22u
#define EOCD64_LOC_SIG 0x07064b50u
#define EOCD64_SIG     0x06064b50u
#define CDH_SIG	       0x02014b50u
#define CDH_LEN	       46u
#define LFH_SIG	       0x04034b50u
#define LFH_LEN	       30u
#define COMMENT_MAX    65535u
#define FLAG_ENCRYPTED 0x0001u
#define ENTRIES_MAX    (1u << 22)
#define SAT32	       0xffffffffu

struct dir {
	uint64_t off, size, entries;
};

static uint64_t le(const uint8_t *p, size_t n, uint64_t off, unsigned size)
{
	return span_le0(p, n, off, size);
}

/* The end record, searched backwards through the largest comment. */
static int end_record(const uint8_t *p, size_t n, uint64_t *at, struct cd_err *err)
{
	uint64_t lo, off;

	if (n < EOCD_LEN)
		return err_set(err, CD_EFORMAT, "not a zip archive: %zu bytes", n);
	lo = n - EOCD_LEN > COMMENT_MAX ? n - EOCD_LEN - COMMENT_MAX : 0;
	for (off = n - EOCD_LEN + 1; off-- > lo;)
		if (le(p, n, off, 4) == EOCD_SIG && off + EOCD_LEN + le(p, n, off + 20, 2) == n) {
			*at = off;
			return 0;
		}
	return err_set(err, CD_EFORMAT, "not a zip archive: no end of central directory record");
}

static int zip64(const uint8_t *p, size_t n, uint64_t eocd, struct dir *d, struct cd_err *err)
{
	uint64_t rec;

	if (eocd < 20 || le(p, n, eocd - 20, 4) != EOCD64_LOC_SIG)
		return err_set(err, CD_EFORMAT, "zip: ZIP64 sizes without a ZIP64 locator");
	rec = le(p, n, eocd - 20 + 8, 8);
	if (!span_ok(n, rec, 56) || le(p, n, rec, 4) != EOCD64_SIG)
		return err_set(err, CD_EFORMAT, "zip: the ZIP64 end record is not where it says");
	d->entries = le(p, n, rec + 32, 8);
	d->size = le(p, n, rec + 40, 8);
	d->off = le(p, n, rec + 48, 8);
	return 0;
}

static int directory(const uint8_t *p, size_t n, struct dir *d, struct cd_err *err)
{
	uint64_t eocd = 0;
	int rc = end_record(p, n, &eocd, err);

	if (rc)
		return rc;
	d->entries = le(p, n, eocd + 10, 2);
	d->size = le(p, n, eocd + 12, 4);
	d->off = le(p, n, eocd + 16, 4);
	if ((d->entries == 0xffff || d->size == SAT32 || d->off == SAT32) &&
	    (rc = zip64(p, n, eocd, d, err)))
		return rc;
	if (!span_ok(n, d->off, d->size) || d->entries > ENTRIES_MAX)
		return err_set(err, CD_ERANGE,
			       "zip: central directory at %llu (%llu bytes) is "
			       "outside the archive",
			       (unsigned long long)d->off, (unsigned long long)d->size);
	return 0;
}

/* The ZIP64 extra field of a directory entry: the saturated sizes and offset. */
static int extra64(const uint8_t *p, size_t n, uint64_t x, uint64_t xlen, struct zip_member *m,
		   uint64_t *local, struct cd_err *err)
{
	uint64_t end = x + xlen, at;

	while (span_ok(end, x, 4)) {
		uint64_t id = le(p, n, x, 2), sz = le(p, n, x + 2, 2);
		if (!span_ok(end, x + 4, sz))
			break;
		if (id == 1) {
			at = x + 4;
			if (m->size == SAT32 && span_ok(x + 4 + sz, at, 8))
				m->size = le(p, n, at, 8), at += 8;
			if (m->comp_size == SAT32 && span_ok(x + 4 + sz, at, 8))
				m->comp_size = le(p, n, at, 8), at += 8;
			if (*local == SAT32 && span_ok(x + 4 + sz, at, 8))
				*local = le(p, n, at, 8);
			return 0;
		}
		x += 4 + sz;
	}
	if (m->size == SAT32 || m->comp_size == SAT32 || *local == SAT32)
		return err_set(err, CD_EFORMAT, "zip: ZIP64 sizes without their extra field");
	return 0;
}

/* Where the member's data starts, from its local header. */
static int locate(const uint8_t *p, size_t n, uint64_t local, struct zip_member *m,
		  struct cd_err *err)
{
	uint64_t data;

	if (!span_ok(n, local, LFH_LEN) || le(p, n, local, 4) != LFH_SIG)
		return err_set(err, CD_EFORMAT, "zip: no local header at %llu",
			       (unsigned long long)local);
	data = local + LFH_LEN + le(p, n, local + 26, 2) + le(p, n, local + 28, 2);
	if (!span_ok(n, data, m->comp_size))
		return err_set(err, CD_ERANGE,
			       "zip: member data (%llu bytes at %llu) runs past "
			       "the archive",
			       (unsigned long long)m->comp_size, (unsigned long long)data);
	m->data_off = data;
	return 0;
}

typedef int (*match_fn)(const uint8_t *name, size_t len, const char *want);

static int exact(const uint8_t *name, size_t len, const char *want)
{
	return len == strlen(want) && !memcmp(name, want, len);
}

/* name ends with suffix (which holds one '/') and has no other folder. */
static int in_top_folder(const uint8_t *name, size_t len, const char *suffix)
{
	size_t sl = strlen(suffix), i, slashes = 0;

	if (len <= sl || memcmp(name + len - sl, suffix, sl))
		return 0;
	for (i = 0; i < len; i++)
		slashes += name[i] == '/';
	return slashes == 1;
}

static int find(const uint8_t *p, size_t n, match_fn match, const char *want, char *name,
		size_t cap, struct zip_member *out, struct cd_err *err)
{
	struct dir d;
	uint64_t off, end, i, local;
	int rc = directory(p, n, &d, err);

	if (rc)
		return rc;
	end = d.off + d.size;
	for (i = 0, off = d.off; i < d.entries && span_ok(end, off, CDH_LEN); i++) {
		uint64_t nl = le(p, n, off + 28, 2), xl = le(p, n, off + 30, 2),
			 cl = le(p, n, off + 32, 2);
		if (le(p, n, off, 4) != CDH_SIG || !span_ok(end, off + CDH_LEN, nl + xl + cl))
			return err_set(err, CD_EFORMAT, "zip: bad central directory entry %llu",
				       (unsigned long long)i);
		if (match(p + off + CDH_LEN, (size_t)nl, want)) {
			memset(out, 0, sizeof(*out));
			if (le(p, n, off + 8, 2) & FLAG_ENCRYPTED)
				return err_set(err, CD_EFORMAT, "zip: member is encrypted");
			out->method = (uint16_t)le(p, n, off + 10, 2);
			out->crc32 = (uint32_t)le(p, n, off + 16, 4);
			out->comp_size = le(p, n, off + 20, 4);
			out->size = le(p, n, off + 24, 4);
			out->name_len = (size_t)nl;
			local = le(p, n, off + 42, 4);
			if ((rc = extra64(p, n, off + CDH_LEN + nl, xl, out, &local, err)) ||
			    (rc = locate(p, n, local, out, err)))
				return rc;
			if (name && cap) {
				if (nl >= cap)
					return err_set(err, CD_ERANGE, "zip: member name too long");
				memcpy(name, p + off + CDH_LEN, (size_t)nl);
				name[nl] = '\0';
			}
			return 0;
		}
		off += CDH_LEN + nl + xl + cl;
	}
	return err_set(err, CD_ENOENT, "zip: no member %s%s", name ? "*" : "", want);
}

int zip_find(const uint8_t *p, size_t n, const char *name, struct zip_member *out,
	     struct cd_err *err)
{
	return find(p, n, exact, name, NULL, 0, out, err);
}

int zip_find_suffix(const uint8_t *p, size_t n, const char *suffix, char *name, size_t cap,
		    struct zip_member *out, struct cd_err *err)
{
	return find(p, n, in_top_folder, suffix, name, cap, out, err);
}
