/* fatbin: see fatbin.h.
 *
 * Layout. The container header is CUDA's struct fatBinaryHeader
 * (fatbinary.h, shipped with older toolkits; the magic and section names
 * are in fatbinary_section.h of every toolkit):
 *   u32 magic 0xBA55ED50, u16 version (1), u16 headerSize, u64 fatSize
 * and headerSize + fatSize bytes make one container; a .nv_fatbin section
 * holds several, one per translation unit, 8-byte aligned.
 * Entry headers follow back to back, each `header_size + payload_size`
 * long. The entry layout is not published by NVIDIA; the fields used here
 * were read off nvcc/fatbinary 13.0 output and agree with the public
 * readers (n-eiling/cuda-fatbin-decompression fatbin-decompress.h, the
 * fatbinary Rust crate, GrigoryEvko/nvopen-tools FORMAT_SPECIFICATION.md):
 *   +0 u16 kind (1 PTX, 2 ELF cubin, 8 LTO IR)   +4 u32 header_size
 *   +8 u64 payload_size                            +24 u16 minor, +26 u16 major
 *   +28 u32 arch (90 = sm_90)                      +40 u64 flags
 * Flags: 0x1 64-bit, 0x2 debug, 0x10 Linux, 0x2000 LZ4-compressed (older
 * toolkits), 0x8000 ZSTD-compressed, 0x100000 arch-specific target (sm_90a,
 * compute_90a), 0x200000 family target (sm_100f) - the last two observed
 * with -gencode arch=compute_90a,code=sm_90a and compute_100f in CUDA 13.0
 * (tests/e2e/fatbin.bats rebuilds them). Unknown kinds and flags are
 * counted, never guessed at. */
#include "format/fatbin.h"

#include <stdio.h>
#include <string.h>

#include "core/span.h"

static void set_add(uint32_t *set, size_t *n, uint32_t key)
{
	size_t lo = 0, hi = *n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (set[mid] == key)
			return;
		if (set[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (*n >= FATBIN_MAX_ARCHS)
		return;
	memmove(set + lo + 1, set + lo, (*n - lo) * sizeof(*set));
	set[lo] = key;
	(*n)++;
}

static void account(struct fatbin_summary *s, const struct fatbin_entry *e)
{
	uint32_t key = FATBIN_KEY(e->arch, e->variant);

	s->entries++;
	s->compressed_entries += e->compressed != 0;
	switch (e->kind) {
	case FATBIN_KIND_ELF:
		s->sass_entries++;
		set_add(s->sass, &s->n_sass, key);
		break;
	case FATBIN_KIND_PTX:
		s->ptx_entries++;
		set_add(s->ptx, &s->n_ptx, key);
		break;
	case FATBIN_KIND_LTOIR:
		s->lto_entries++;
		set_add(s->lto, &s->n_lto, key);
		break;
	default: s->other_entries++; break;
	}
}

static int read_entry(const uint8_t *p, size_t n, uint64_t off, uint64_t end,
		      struct fatbin_entry *e, struct cd_err *err)
{
	if (!span_ok(end, off, FATBIN_ENTRY_MIN))
		return err_set(err, CD_ERANGE,
			       "fatbin entry header at %llu runs past its container",
			       (unsigned long long)off);
	memset(e, 0, sizeof(*e));
	e->offset = off;
	e->kind = (uint16_t)span_le0(p, n, off, 2);
	e->header_size = (uint32_t)span_le0(p, n, off + 4, 4);
	e->payload_size = span_le0(p, n, off + 8, 8);
	e->code_minor = (uint16_t)span_le0(p, n, off + 24, 2);
	e->code_major = (uint16_t)span_le0(p, n, off + 26, 2);
	e->arch = (uint32_t)span_le0(p, n, off + 28, 4);
	e->flags = span_le0(p, n, off + 40, 8);
	e->compressed = (e->flags & (FATBIN_FLAG_COMPRESS_LZ4 | FATBIN_FLAG_COMPRESS_ZSTD)) != 0;
	if (e->flags & FATBIN_FLAG_ARCH_SPECIFIC)
		e->variant = FATBIN_VAR_A;
	else if (e->flags & FATBIN_FLAG_FAMILY)
		e->variant = FATBIN_VAR_F;
	if (e->header_size < FATBIN_ENTRY_MIN || !span_ok(end, off, e->header_size))
		return err_set(err, CD_EFORMAT, "fatbin entry at %llu: header size %u",
			       (unsigned long long)off, e->header_size);
	if (!span_ok(end, off + e->header_size, e->payload_size))
		return err_set(
			err, CD_ERANGE,
			"fatbin entry at %llu: payload of %llu bytes runs past its container",
			(unsigned long long)off, (unsigned long long)e->payload_size);
	return 0;
}

/* Entries of the container [start, end); the header has been checked. */
static int walk_entries(const uint8_t *p, size_t n, uint64_t off, uint64_t end, fatbin_entry_fn fn,
			void *ctx, struct fatbin_summary *s, struct cd_err *err)
{
	struct fatbin_entry e;
	int rc;

	while (off < end) {
		rc = read_entry(p, n, off, end, &e, err);
		if (rc)
			return rc;
		if (s)
			account(s, &e);
		if (fn && (rc = fn(&e, ctx)) != 0)
			return rc;
		off += e.header_size + e.payload_size; /* >= 64: the walk always advances */
	}
	return 0;
}

uint64_t fatbin_next_container(const uint8_t *p, size_t n, uint64_t off)
{
	uint64_t limit = off + FATBIN_GAP_MAX;

	while (span_ok(n, off, FATBIN_HDR_SIZE) && span_le0(p, n, off, 4) != FATBIN_MAGIC) {
		off = (off + 8) & ~(uint64_t)7;
		if (off > limit)
			return n;
	}
	return span_ok(n, off, FATBIN_HDR_SIZE) ? off : n;
}

int fatbin_container(const uint8_t *p, size_t n, uint64_t at, uint64_t *hsize, uint64_t *fsize)
{
	*hsize = span_le0(p, n, at + 6, 2);
	*fsize = span_le0(p, n, at + 8, 8);
	return *hsize < FATBIN_HDR_SIZE || !span_ok(n, at, *hsize) ||
			       !span_ok(n - at - *hsize, 0, *fsize)
		       ? CD_ERANGE
		       : 0;
}

int fatbin_walk(const uint8_t *p, size_t n, fatbin_entry_fn fn, void *ctx, struct fatbin_summary *s,
		struct cd_err *err)
{
	uint64_t off = 0, at, hsize, fsize;
	int rc;

	if (s)
		memset(s, 0, sizeof(*s));
	for (;;) {
		at = fatbin_next_container(p, n, off);
		if (at >= n && n - off > FATBIN_GAP_MAX + FATBIN_HDR_SIZE) {
			if (s)
				s->partial = 1;
			return err_set(err, CD_EFORMAT,
				       "no fatbin container in the %llu bytes after offset %llu of "
				       "the %zu-byte section: the rest is not read",
				       (unsigned long long)FATBIN_GAP_MAX, (unsigned long long)off,
				       n);
		}
		if (s)
			s->gap_bytes += at - off;
		if (at >= n)
			return 0;
		rc = 0;
		if (fatbin_container(p, n, at, &hsize, &fsize))
			rc = err_set(err, CD_ERANGE,
				     "fatbin container at %llu: header %llu + size %llu bytes "
				     "exceed the %zu-byte section",
				     (unsigned long long)at, (unsigned long long)hsize,
				     (unsigned long long)fsize, n);
		if (!rc && s)
			s->containers++;
		if (!rc)
			rc = walk_entries(p, n, at + hsize, at + hsize + fsize, fn, ctx, s, err);
		if (rc) {
			if (s)
				s->partial = 1;
			return rc;
		}
		off = at + hsize + fsize;
	}
}

int fatbin_summarize(const uint8_t *p, size_t n, struct fatbin_summary *s, struct cd_err *err)
{
	return fatbin_walk(p, n, NULL, NULL, s, err);
}

/* Entry headers a scan may check before it gives up: junk built to look
 * like nested, almost-valid containers must not cost quadratic time. */
#define SCAN_BUDGET (1u << 24)

/* A candidate container at off, in scan mode: strict header, and entries
 * that all check out; *end gets its end. */
static int plausible(const uint8_t *p, size_t n, uint64_t off, uint64_t *end, uint64_t *budget)
{
	struct fatbin_entry e;
	uint64_t hsize = span_le0(p, n, off + 6, 2), fsize = span_le0(p, n, off + 8, 8), at;

	if (span_le0(p, n, off + 4, 2) != 1 || hsize != FATBIN_HDR_SIZE ||
	    !span_ok(n - off - hsize, 0, fsize) || fsize < FATBIN_ENTRY_MIN)
		return 0;
	*end = off + hsize + fsize;
	for (at = off + hsize; at < *end; at += e.header_size + e.payload_size) {
		if (*budget == 0)
			return 0;
		--*budget;
		if (read_entry(p, n, at, *end, &e, NULL) || e.header_size > 4096)
			return 0;
	}
	return 1;
}

void fatbin_scan_init(struct fatbin_scanner *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->budget = SCAN_BUDGET;
}

void fatbin_scan_step(struct fatbin_scanner *sc, const uint8_t *p, size_t n, uint64_t to,
		      fatbin_entry_fn fn, void *ctx, struct fatbin_summary *s)
{
	static const uint8_t magic[4] = {0x50, 0xed, 0x55, 0xba}; /* FATBIN_MAGIC, LE */
	uint64_t off = sc->off, end, last;
	const uint8_t *hit;

	if (n < FATBIN_HDR_SIZE || off > n - FATBIN_HDR_SIZE) {
		sc->off = n > off ? n : off; /* no header fits from off on */
		return;
	}
	if (to < off + 4)
		return;
	/* The last position tried: its magic inside the window, its header
	 * inside p. */
	last = to - 4 < n - FATBIN_HDR_SIZE ? to - 4 : n - FATBIN_HDR_SIZE;
	while (!sc->stopped && off <= last) {
		if (!sc->budget) {
			sc->stopped = 1;
			break;
		}
		/* Look for the magic's last byte: 0xBA is rarer in data than 0x50. */
		hit = memchr(p + off + 3, magic[3], last - off + 1);
		if (!hit) {
			off = last + 1;
			break;
		}
		hit -= 3;
		off = (uint64_t)(hit - p);
		if (memcmp(hit, magic, 4) != 0 || !plausible(p, n, off, &end, &sc->budget)) {
			off++;
			continue;
		}
		if (walk_entries(p, n, off + FATBIN_HDR_SIZE, end, fn, ctx, s, NULL)) {
			sc->stopped = 1; /* only a callback can stop a checked container */
			break;
		}
		if (s)
			s->containers++;
		sc->found++;
		off = end;
	}
	if (!sc->budget && s)
		s->partial = 1;
	if (off > n - FATBIN_HDR_SIZE)
		off = n; /* no header fits after this */
	sc->off = off > sc->off ? off : sc->off;
}

uint64_t fatbin_scan(const uint8_t *p, size_t n, fatbin_entry_fn fn, void *ctx,
		     struct fatbin_summary *s)
{
	struct fatbin_scanner sc;

	fatbin_scan_init(&sc);
	fatbin_scan_step(&sc, p, n, n, fn, ctx, s);
	return sc.found;
}

/* ---- the walk over a stream ------------------------------------------------ */

#define STREAM_CONTAINER_MAX ((uint64_t)1 << 36)
#define STREAM_ENTRY_HDR_MAX 4096u

void fatbin_stream_init(struct fatbin_stream *s)
{
	memset(s, 0, sizeof(*s));
}

/* The container ends (broken: at a header that does not check out). A
 * candidate whose first entry failed is dropped and the search goes on just
 * past its start, or from avail, the first byte still at hand. */
static void stream_close(struct fatbin_stream *s, int broken, uint64_t avail)
{
	uint64_t at = s->next;

	if (s->checked) {
		s->cur.containers = 1;
		s->cur.partial |= broken;
		fatbin_summary_merge(&s->sum, &s->cur);
	} else if (broken) {
		at = s->start + 8 > avail ? s->start + 8 : avail;
	}
	s->end = 0;
	s->next = (at + 7) & ~(uint64_t)7;
}

/* The header at s->next, in h (at least FATBIN_HDR_SIZE bytes when seeking,
 * FATBIN_ENTRY_MIN inside a container); bytes from avail on are at hand. */
static void stream_header(struct fatbin_stream *s, const uint8_t *h, uint64_t avail)
{
	struct fatbin_entry e;
	uint64_t fsize;

	if (!s->end) {
		fsize = span_le0(h, FATBIN_HDR_SIZE, 8, 8);
		if (span_le0(h, FATBIN_HDR_SIZE, 0, 4) != FATBIN_MAGIC ||
		    span_le0(h, FATBIN_HDR_SIZE, 4, 2) != 1 ||
		    span_le0(h, FATBIN_HDR_SIZE, 6, 2) != FATBIN_HDR_SIZE ||
		    fsize < FATBIN_ENTRY_MIN || fsize > STREAM_CONTAINER_MAX) {
			s->next += 8;
			return;
		}
		s->start = s->next;
		s->end = s->next + FATBIN_HDR_SIZE + fsize;
		s->next += FATBIN_HDR_SIZE;
		s->checked = 0;
		memset(&s->cur, 0, sizeof(s->cur));
		return;
	}
	if (read_entry(h, FATBIN_ENTRY_MIN, 0, s->end - s->next, &e, NULL) ||
	    e.header_size > STREAM_ENTRY_HDR_MAX) {
		stream_close(s, 1, avail);
		return;
	}
	account(&s->cur, &e);
	s->checked = 1;
	s->next += e.header_size + e.payload_size;
	if (s->next >= s->end)
		stream_close(s, 0, avail);
}

void fatbin_stream_feed(struct fatbin_stream *s, const uint8_t *p, size_t n)
{
	while (n) {
		size_t need = s->end ? FATBIN_ENTRY_MIN : FATBIN_HDR_SIZE, k;
		if (s->off < s->next) {
			uint64_t skip = s->next - s->off;
			k = skip < n ? (size_t)skip : n;
		} else if (!s->held && n >= need) {
			stream_header(s, p, s->off); /* in place; the skip above moves on */
			continue;
		} else {
			k = need - s->held < n ? need - s->held : n;
			memcpy(s->hold + s->held, p, k);
			s->held += k;
		}
		p += k;
		n -= k;
		s->off += k;
		if (s->held == need) {
			uint64_t at = s->off - need;
			uint8_t again[FATBIN_ENTRY_MIN];
			s->held = 0;
			stream_header(s, s->hold, at);
			if (s->next < s->off && s->next >= at) {
				/* the search goes on inside the held bytes: feed them
				 * again (at most 64 bytes, each time further on) */
				size_t keep = (size_t)(s->off - s->next);
				memcpy(again, s->hold + (need - keep), keep);
				s->off = s->next;
				fatbin_stream_feed(s, again, keep);
			}
		}
	}
}

void fatbin_stream_end(struct fatbin_stream *s)
{
	if (s->end)
		stream_close(s, 1, s->off);
}

static void merge_set(uint32_t *dst, size_t *nd, const uint32_t *src, size_t ns)
{
	size_t i;

	for (i = 0; i < ns; i++)
		set_add(dst, nd, src[i]);
}

void fatbin_summary_merge(struct fatbin_summary *dst, const struct fatbin_summary *src)
{
	dst->containers += src->containers;
	dst->entries += src->entries;
	dst->sass_entries += src->sass_entries;
	dst->ptx_entries += src->ptx_entries;
	dst->lto_entries += src->lto_entries;
	dst->other_entries += src->other_entries;
	dst->compressed_entries += src->compressed_entries;
	dst->gap_bytes += src->gap_bytes;
	dst->partial |= src->partial;
	merge_set(dst->sass, &dst->n_sass, src->sass, src->n_sass);
	merge_set(dst->ptx, &dst->n_ptx, src->ptx, src->n_ptx);
	merge_set(dst->lto, &dst->n_lto, src->lto, src->n_lto);
}

void fatbin_arch_name(int kind, uint32_t key, char *buf, size_t cap)
{
	static const char *const var[] = {"", "a", "f", "?"};
	const char *pre = kind == FATBIN_KIND_PTX     ? "compute"
			  : kind == FATBIN_KIND_LTOIR ? "lto"
						      : "sm";

	snprintf(buf, cap, "%s_%u%s", pre, key / 4, var[key % 4]);
}
