/* cudaarch: the CUDA device code inside a shared object or executable, read
 * from its .nv_fatbin section (and __nv_relfatbin of relocatable objects),
 * plus fatbin containers embedded in its data sections (.rodata, .data,
 * .ldata, ...), which some libraries register themselves. Only section
 * headers, fatbin entry headers and (for the scan) data bytes are touched;
 * payloads are never decoded. Fills a caller-owned summary; allocates nothing. */
#ifndef CD_CUDAARCH_H
#define CD_CUDAARCH_H

#include "core/err.h"
#include "core/file.h"
#include "format/elf.h"
#include "format/fatbin.h"

#define CUDAARCH_MAX_EMBEDDED 8

struct cudaarch {
	int has_fatbin;		   /* a fatbin section exists, or containers were found elsewhere */
	const char *section;	   /* the fatbin section's name (static string), NULL if none */
	uint64_t bytes;		   /* its size */
	struct fatbin_summary sum; /* everything: the section and the embedded containers */
	/* Containers embedded in data sections (cuFFT keeps its kernels in .ldata). */
	uint64_t embedded_containers;
	size_t n_embedded;
	const char *embedded[CUDAARCH_MAX_EMBEDDED]; /* names of those sections */
	int data_scanned;     /* the data sections were scanned for embedded containers */
	uint64_t data_bytes;  /* total size of those sections */
	int walk_rc;	      /* 0, or the CD_E* that stopped the walk */
	char walk_error[160]; /* its message; "" when walk_rc is 0 */
	/* Why the data scan left bytes out (a section past the end of the file,
	 * the cap); "" when it searched all of them. */
	char data_error[224];
};

/* Scanning data sections reads every byte of them (~4 GB/s): by default
 * they are scanned when they total at most this much, or when the file has
 * no real .nv_fatbin of its own (under CUDAARCH_SMALL_FATBIN bytes). */
#define CUDAARCH_SCAN_MAX     ((uint64_t)64 << 20)
#define CUDAARCH_SMALL_FATBIN ((uint64_t)64 << 10)
/* The most bytes of data sections one file's scan searches, --scan-data or
 * not (cuFFT 12's .ldata, the largest known, is 286 MB); past it the scan
 * stops and data_error says so. Holes of a sparse file do not count. */
#define CUDAARCH_SCAN_CAP ((uint64_t)1 << 30)

enum cudaarch_scan { CUDAARCH_SCAN_AUTO = 0, CUDAARCH_SCAN_ALWAYS, CUDAARCH_SCAN_NEVER };

/* From a parsed ELF image. Only a file whose sections cannot be read fails;
 * a corrupt fatbin is reported in walk_rc / walk_error with what was read. */
CD_WUR int cudaarch_from_elf(const struct elf_file *e, enum cudaarch_scan scan,
			     struct cudaarch *out, struct cd_err *err);
/* Map path (in-root), parse it, and call cudaarch_from_elf. */
CD_WUR int cudaarch_read(const struct cd_root *r, const char *path, enum cudaarch_scan scan,
			 struct cudaarch *out, struct cd_err *err);

#endif
