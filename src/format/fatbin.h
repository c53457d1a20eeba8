/* fatbin: list the CUDA device code inside an ELF's .nv_fatbin section by
 * walking the fatbin container headers and each entry's header, never the
 * payloads (which are usually compressed), so the arch list of a 300 MB
 * fatbin costs one pass over a few thousand 64-byte headers.
 * Results are plain values in the caller's struct; nothing is allocated.
 * A truncated or lying header stops the walk with CD_ERANGE / CD_EFORMAT;
 * what was read before it stays in the summary (partial = 1). */
#ifndef CD_FATBIN_H
#define CD_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define FATBIN_MAGIC	 0xBA55ED50u /* fatbinary.h: FATBIN_MAGIC */
#define FATBIN_HDR_SIZE	 16u	     /* struct fatBinaryHeader */
#define FATBIN_ENTRY_MIN 64u	     /* the fixed part of an entry header */

/* Entry kinds (the first field of an entry header). */
enum { FATBIN_KIND_PTX = 1, FATBIN_KIND_ELF = 2, FATBIN_KIND_LTOIR = 8 };

/* Entry flags, as written by CUDA's fatbinary (see fatbin.c for sources). */
#define FATBIN_FLAG_64BIT	  0x0000001ull
#define FATBIN_FLAG_DEBUG	  0x0000002ull
#define FATBIN_FLAG_LINUX	  0x0000010ull
#define FATBIN_FLAG_COMPRESS_LZ4  0x0002000ull
#define FATBIN_FLAG_COMPRESS_ZSTD 0x0008000ull
#define FATBIN_FLAG_ARCH_SPECIFIC 0x0100000ull /* sm_XYa / compute_XYa */
#define FATBIN_FLAG_FAMILY	  0x0200000ull /* sm_XYf / compute_XYf */

/* Target variant of an arch: plain, arch-specific 'a', family 'f'. */
enum { FATBIN_VAR_NONE = 0, FATBIN_VAR_A = 1, FATBIN_VAR_F = 2 };

struct fatbin_entry {
	uint64_t offset; /* of the entry header, from the start of the section */
	uint16_t kind;
	uint32_t header_size;
	uint64_t payload_size;
	uint32_t arch;			 /* 90 for sm_90 / compute_90 */
	int variant;			 /* FATBIN_VAR_* */
	uint16_t code_major, code_minor; /* cubin ABI or PTX ISA version */
	uint64_t flags;
	int compressed;
};

/* An arch key orders sm_90 < sm_90a < sm_90f < sm_100: arch * 4 + variant. */
#define FATBIN_KEY(arch, var) ((uint32_t)(arch)*4u + (uint32_t)(var))
#define FATBIN_MAX_ARCHS      128

struct fatbin_summary {
	uint32_t containers;
	uint64_t entries;
	uint64_t sass_entries, ptx_entries, lto_entries, other_entries;
	uint64_t compressed_entries;
	uint64_t gap_bytes; /* bytes skipped between containers (alignment padding) */
	int partial;	    /* the walk stopped at a bad header */
	size_t n_sass, n_ptx, n_lto;
	uint32_t sass[FATBIN_MAX_ARCHS]; /* sorted, distinct FATBIN_KEYs */
	uint32_t ptx[FATBIN_MAX_ARCHS];
	uint32_t lto[FATBIN_MAX_ARCHS];
};

/* Called for each entry; a non-zero return stops the walk and is returned. */
typedef int (*fatbin_entry_fn)(const struct fatbin_entry *ent, void *ctx);

/* Bytes between containers a walk looks through for the next one: the
 * toolkit packs them (8-byte alignment); past this the rest of a section is
 * not fatbin (a header that claims 10 GB of a sparse file costs nothing). */
#define FATBIN_GAP_MAX ((uint64_t)1 << 20)

/* The next container header at or after off, on the 8-byte grid the
 * toolkit aligns containers to, within FATBIN_GAP_MAX bytes; n when there
 * is none. */
uint64_t fatbin_next_container(const uint8_t *p, size_t n, uint64_t off);
/* The header and payload sizes of the container at at; CD_ERANGE when the
 * header is short or the two run past p[0, n). */
CD_WUR int fatbin_container(const uint8_t *p, size_t n, uint64_t at, uint64_t *hsize,
			    uint64_t *fsize);
/* Walk every container in p[0..n). s (optional) is filled as entries pass. */
CD_WUR int fatbin_walk(const uint8_t *p, size_t n, fatbin_entry_fn fn, void *ctx,
		       struct fatbin_summary *s, struct cd_err *err);
/* fatbin_walk with only the summary. */
CD_WUR int fatbin_summarize(const uint8_t *p, size_t n, struct fatbin_summary *s,
			    struct cd_err *err);

/* Find containers embedded in other data (a library's .rodata or .ldata):
 * the magic at any offset, and a container counts only if its header and
 * every entry check out (version 1, 16-byte header, entries that fit);
 * anything else is skipped. Adds to s (which the caller initialises);
 * returns the number of containers found. */
uint64_t fatbin_scan(const uint8_t *p, size_t n, fatbin_entry_fn fn, void *ctx,
		     struct fatbin_summary *s);

/* fatbin_scan in steps, so a caller can go through a large section in
 * windows (dropping the pages behind, skipping holes): a step tries the
 * positions from off whose magic lies inside [off, to) of p[0, n), and reads
 * no byte at or past to but those of a container it finds (which may run
 * past to: off then moves to its end). Then off is the first position not
 * tried (to - 3 when nothing was found near the end; n when no header fits
 * after it), where the next window starts. Steps over consecutive windows
 * find what one fatbin_scan over the whole finds. */
struct fatbin_scanner {
	uint64_t off;	 /* where the search goes on */
	uint64_t budget; /* entry headers it may still check */
	uint64_t found;	 /* containers found */
	int stopped;	 /* a callback stopped it or the budget ran out (s->partial) */
};

void fatbin_scan_init(struct fatbin_scanner *sc);
/* Search from sc->off up to to; a window shorter than 4 bytes tries nothing
 * (a longer one moves off on by at least its length less 3).
 * The caller may move sc->off forward over positions it knows cannot start
 * a container (ones whose magic would lie in zeros). */
void fatbin_scan_step(struct fatbin_scanner *sc, const uint8_t *p, size_t n, uint64_t to,
		      fatbin_entry_fn fn, void *ctx, struct fatbin_summary *s);

/* Add the counts and arch sets of src to dst. */
void fatbin_summary_merge(struct fatbin_summary *dst, const struct fatbin_summary *src);

/* The walk over a stream (a library inflating out of a zip member): the
 * bytes are fed in order, in chunks of any size, and never stored. A
 * container is looked for at each 8-byte aligned offset of the stream (a
 * .nv_fatbin section is 8-byte aligned in its file) with the checks of
 * fatbin_scan (version 1, a 16-byte header, entry headers of 64 to 4096
 * bytes that fit); its entries are accounted as they pass and their payloads
 * skipped. A container whose first entry does not check out is dropped; one
 * that breaks later keeps what was read (sum.partial). */
struct fatbin_stream {
	uint64_t off;	     /* bytes fed */
	uint64_t next;	     /* where the next header starts */
	uint64_t start, end; /* the container being walked; end 0 while seeking */
	int checked;	     /* its first entry checked out */
	size_t held;
	uint8_t hold[FATBIN_ENTRY_MIN]; /* a header split between two chunks */
	struct fatbin_summary cur, sum;
};

void fatbin_stream_init(struct fatbin_stream *s);
void fatbin_stream_feed(struct fatbin_stream *s, const uint8_t *p, size_t n);
/* The stream ended: a container still open is partial. */
void fatbin_stream_end(struct fatbin_stream *s);

/* "sm_90a", "compute_100f", "lto_80" for a key of the given kind. */
void fatbin_arch_name(int kind, uint32_t key, char *buf, size_t cap);

#endif
