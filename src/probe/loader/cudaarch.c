/* cudaarch: see cudaarch.h. Section names from CUDA's fatbinary_section.h:
 * FATBIN_DATA_SECTION_NAME ".nv_fatbin" (linked code) and
 * FATBIN_PRELINK_DATA_SECTION_NAME "__nv_relfatbin" (relocatable code).
 * When the file is mapped here, pages behind the walk are dropped from the
 * mapping as it goes (they stay in the page cache), so listing the archs of
 * a 300 MB fatbin does not show up as 300 MB of resident memory. The data
 * sections are searched the same way, in windows, skipping the holes of a
 * sparse file and stopping at CUDAARCH_SCAN_CAP bytes: a section header
 * that claims 10 GiB costs what the file really holds, within the cap. */
#include "probe/loader/cudaarch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/fmap.h"
#include "core/str.h"

#define FILE_MAX     ((size_t)1 << 36)
#define RELEASE_STEP ((uint64_t)4 << 20)
#define SCAN_WINDOW  ((uint64_t)4 << 20)

struct release {
	const struct cd_fmap *m; /* NULL when the file is not mapped here */
	const uint8_t *data;	 /* the section, inside the mapping */
	uint64_t done;		 /* section bytes already released */
};

static void release_to(struct release *r, uint64_t off)
{
	if (!r->m || off < r->done + RELEASE_STEP)
		return;
	fmap_release(r->m, r->data + r->done, r->data + off);
	r->done = off;
}

static int release_behind(const struct fatbin_entry *e, void *ctx)
{
	release_to(ctx, e->offset);
	return 0;
}

/* Data sections where libraries keep fatbins they register themselves:
 * bin2c / --embedded-fatbin arrays, and the large-model sections of
 * -mcmodel=medium builds (cuFFT 12 keeps ~24000 containers in .ldata). */
static const char *const scanned[] = {".rodata", ".data", ".data.rel.ro", ".lrodata", ".ldata"};

#define N_SCANNED (sizeof(scanned) / sizeof(scanned[0]))

static int want_scan(const struct elf_file *e, enum cudaarch_scan scan, struct cudaarch *out)
{
	struct elf_shdr sh;
	size_t i;

	for (i = 0; i < N_SCANNED; i++)
		if (elf_section_find(e, scanned[i], &sh) == 0 && sh.type != ELF_SHT_NOBITS)
			out->data_bytes += sh.size;
	if (scan != CUDAARCH_SCAN_AUTO)
		return scan == CUDAARCH_SCAN_ALWAYS;
	return out->data_bytes <= CUDAARCH_SCAN_MAX || out->bytes < CUDAARCH_SMALL_FATBIN;
}

/* Why the scan left bytes out, added to what is there already. */
static void note(struct cudaarch *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct cudaarch *out, const char *fmt, ...)
{
	size_t len = strlen(out->data_error);
	va_list ap;

	if (len && len + 2 < sizeof(out->data_error))
		len += (size_t)snprintf(out->data_error + len, sizeof(out->data_error) - len, "; ");
	if (len + 1 >= sizeof(out->data_error))
		return;
	va_start(ap, fmt);
	(void)vsnprintf(out->data_error + len, sizeof(out->data_error) - len, fmt, ap);
	va_end(ap);
}

/* One data section, searched in windows inside the runs of data: the holes
 * of a sparse file are skipped (they read as zeros, which hold no container,
 * and are never touched: on tmpfs that would make them data), the pages
 * behind are dropped, and at most *left bytes are searched (*cut set when
 * some were left). The containers found. */
static uint64_t scan_one(const struct cd_fmap *m, struct cd_span data, struct fatbin_summary *s,
			 uint64_t *left, int *cut)
{
	struct fatbin_scanner sc;
	struct release rel = {m, data.p, 0};
	uint64_t base = m ? (uint64_t)(data.p - m->p) : 0, at, end, to;

	fatbin_scan_init(&sc);
	end = 0; /* the end of the run of data the search is in; asked once a run
		    (SEEK_HOLE goes through the run on tmpfs) */
	while (sc.off < data.n && !sc.stopped) {
		if (sc.off >= end) {
			at = sc.off;
			end = data.n;
			if (m) {
				fmap_data_run(m, base + sc.off, &at, &end);
				at -= base;
				end = end - base < data.n ? end - base : data.n;
			}
			if (at >= data.n)
				break;
			sc.off = at;
		}
		if (!*left) {
			*cut = 1;
			break;
		}
		to = end - sc.off < SCAN_WINDOW ? end : sc.off + SCAN_WINDOW;
		if (to - sc.off > *left)
			to = sc.off + *left;
		*left -= to - sc.off;
		if (m) /* a run of data, read through: ahead of the random-read advice */
			fmap_willneed(m, data.p + sc.off, data.p + to);
		fatbin_scan_step(&sc, data.p, data.n, to, release_behind, &rel, s);
		if (to == end && sc.off < end)
			sc.off = end; /* a magic starting here would run into the hole */
		release_to(&rel, sc.off);
	}
	return sc.found;
}

static void scan_sections(const struct elf_file *e, const struct cd_fmap *m, struct cudaarch *out)
{
	struct fatbin_summary extra;
	struct elf_shdr sh;
	struct cd_span data;
	uint64_t found, left = CUDAARCH_SCAN_CAP;
	int cut = 0;
	size_t i;

	out->data_scanned = 1;
	for (i = 0; i < N_SCANNED; i++) {
		if (elf_section_find(e, scanned[i], &sh) || sh.type == ELF_SHT_NOBITS)
			continue;
		if (elf_section_data(e, &sh, &data)) {
			note(out,
			     "%s: %llu bytes at offset %llu run past the end of the %zu-byte file; "
			     "not searched",
			     scanned[i], (unsigned long long)sh.size, (unsigned long long)sh.offset,
			     e->s.n);
			continue;
		}
		memset(&extra, 0, sizeof(extra));
		found = scan_one(m, data, &extra, &left, &cut);
		if (!found)
			continue;
		fatbin_summary_merge(&out->sum, &extra);
		out->embedded_containers += found;
		if (out->n_embedded < CUDAARCH_MAX_EMBEDDED)
			out->embedded[out->n_embedded++] = scanned[i];
		out->has_fatbin = 1;
	}
	if (cut)
		note(out, "data sections: only the first %llu MiB were searched (the cap)",
		     (unsigned long long)(CUDAARCH_SCAN_CAP >> 20));
}

static int from_elf(const struct elf_file *e, enum cudaarch_scan scan, struct cudaarch *out,
		    const struct cd_fmap *m, struct cd_err *err)
{
	static const char *const names[] = {".nv_fatbin", "__nv_relfatbin"};
	struct release rel;
	struct elf_shdr sh;
	struct cd_span data;
	struct cd_err werr = {0};
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (elf_section_find(e, names[i], &sh) == 0)
			break;
	if (i < sizeof(names) / sizeof(names[0])) {
		if (elf_section_data(e, &sh, &data))
			return err_set(err, CD_ERANGE, "%s: section outside the file", names[i]);
		out->has_fatbin = 1;
		out->section = names[i];
		out->bytes = data.n;
		rel = (struct release){m, data.p, 0};
		out->walk_rc = fatbin_walk(data.p, data.n, release_behind, &rel, &out->sum, &werr);
		if (out->walk_rc)
			str_copy(out->walk_error, sizeof(out->walk_error), werr.msg);
	}
	if (want_scan(e, scan, out))
		scan_sections(e, m, out);
	return 0;
}

int cudaarch_from_elf(const struct elf_file *e, enum cudaarch_scan scan, struct cudaarch *out,
		      struct cd_err *err)
{
	return from_elf(e, scan, out, NULL, err);
}

int cudaarch_read(const struct cd_root *r, const char *path, enum cudaarch_scan scan,
		  struct cudaarch *out, struct cd_err *err)
{
	struct cd_fmap m;
	struct elf_file e;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = fmap_open_scan(r, path, FILE_MAX, &m, err);
	if (rc)
		return rc;
	rc = elf_parse(m.p, m.n, &e, err);
	if (!rc)
		rc = from_elf(&e, scan, out, m.base ? &m : NULL, err);
	fmap_close(&m);
	return rc;
}
