/* cudaarch: see cudaarch.h. Section names from CUDA's fatbinary_section.h:
 * FATBIN_DATA_SECTION_NAME ".nv_fatbin" (linked code) and
 * FATBIN_PRELINK_DATA_SECTION_NAME "__nv_relfatbin" (relocatable code).
 * When the file is mapped here, pages behind the walk are dropped from the
 * mapping as it goes (they stay in the page cache), so listing the archs of
 * a 300 MB fatbin does not show up as 300 MB of resident memory. */
#include "probe/loader/cudaarch.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/str.h"
#include "core/fmap.h"

#define FILE_MAX     ((size_t)1 << 36)
#define RELEASE_STEP ((uint64_t)4 << 20)

struct release {
	const uint8_t *data; /* the section, inside the mapping */
	uint64_t done;	     /* section bytes already released */
	uintptr_t page;
};

static int release_behind(const struct fatbin_entry *e, void *ctx)
{
	struct release *r = ctx;
	uintptr_t from, to;

	if (!r->data || e->offset < r->done + RELEASE_STEP)
		return 0;
	from = ((uintptr_t)(r->data + r->done) + r->page - 1) & ~(r->page - 1);
	to = (uintptr_t)(r->data + e->offset) & ~(r->page - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_DONTNEED);
	r->done = e->offset;
	return 0;
}

static void release_init(struct release *rel, const uint8_t *data, int mapped)
{
	long pg = sysconf(_SC_PAGESIZE);

	rel->data = NULL;
	rel->done = 0;
	rel->page = 4096;
	if (mapped && pg > 0 && !(pg & (pg - 1))) {
		rel->data = data;
		rel->page = (uintptr_t)pg;
	}
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

static void scan_sections(const struct elf_file *e, struct cudaarch *out, int mapped)
{
	struct fatbin_summary extra;
	struct release rel;
	struct elf_shdr sh;
	struct cd_span data;
	uint64_t found;
	size_t i;

	out->data_scanned = 1;
	for (i = 0; i < N_SCANNED; i++) {
		if (elf_section_find(e, scanned[i], &sh) || sh.type == ELF_SHT_NOBITS ||
		    elf_section_data(e, &sh, &data))
			continue;
		memset(&extra, 0, sizeof(extra));
		release_init(&rel, data.p, mapped);
		found = fatbin_scan(data.p, data.n, release_behind, &rel, &extra);
		if (!found)
			continue;
		fatbin_summary_merge(&out->sum, &extra);
		out->embedded_containers += found;
		if (out->n_embedded < CUDAARCH_MAX_EMBEDDED)
			out->embedded[out->n_embedded++] = scanned[i];
		out->has_fatbin = 1;
	}
}

static int from_elf(const struct elf_file *e, enum cudaarch_scan scan, struct cudaarch *out,
		    int mapped, struct cd_err *err)
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
		release_init(&rel, data.p, mapped);
		out->walk_rc = fatbin_walk(data.p, data.n, release_behind, &rel, &out->sum, &werr);
		if (out->walk_rc)
			str_copy(out->walk_error, sizeof(out->walk_error), werr.msg);
	}
	if (want_scan(e, scan, out))
		scan_sections(e, out, mapped);
	return 0;
}

int cudaarch_from_elf(const struct elf_file *e, enum cudaarch_scan scan, struct cudaarch *out,
		      struct cd_err *err)
{
	return from_elf(e, scan, out, 0, err);
}

int cudaarch_read(const struct cd_root *r, const char *path, enum cudaarch_scan scan,
		  struct cudaarch *out, struct cd_err *err)
{
	struct cd_fmap m;
	struct elf_file e;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = fmap_open(r, path, FILE_MAX, &m, err);
	if (rc)
		return rc;
	rc = elf_parse(m.p, m.n, &e, err);
	if (!rc)
		rc = from_elf(&e, scan, out, m.base != NULL, err);
	fmap_close(&m);
	return rc;
}
