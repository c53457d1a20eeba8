/* cvd: CUDA_VISIBLE_DEVICES read the way the CUDA runtime reads it.
 * cvd_parse splits the value into entries and stops where the runtime stops
 * (the first entry that is not an id); cvd_resolve matches the entries with
 * the GPUs NVML sees. Both fill caller structs, borrow the caller's bytes
 * (entries are offsets into them) and never allocate. */
#ifndef CD_CVD_H
#define CD_CVD_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define CVD_ENTRIES_MAX 64

enum cvd_kind { CVD_INDEX = 0, CVD_UUID, CVD_MIG };

enum cvd_stop {
	CVD_STOP_NONE = 0,
	CVD_STOP_EMPTY,	    /* the value is empty: no device is visible */
	CVD_STOP_INVALID,   /* an entry that is not an id ("", "abc") */
	CVD_STOP_NEGATIVE,  /* a negative index ("-1") */
	CVD_STOP_MIXED,	    /* an entry of another kind than the first */
	CVD_STOP_DUPLICATE, /* an id given twice: no device is visible */
	CVD_STOP_TOO_MANY   /* more than CVD_ENTRIES_MAX entries: the rest not read */
};

struct cvd_entry {
	enum cvd_kind kind;
	uint32_t index;	 /* CVD_INDEX: the ordinal (UINT32_MAX when it overflows) */
	size_t off, len; /* the entry's bytes, trimmed, in the parsed value */
	int lenient;	 /* an index with trailing junk ("1gpu"): read as its digits */
};

struct cvd_list {
	enum cvd_kind mode; /* the kind of the first entry */
	size_t n;	    /* entries before the stop */
	struct cvd_entry e[CVD_ENTRIES_MAX];
	enum cvd_stop stop;
	size_t stop_off, stop_len; /* the entry that stopped the list */
};

int cvd_parse(const uint8_t *p, size_t n, struct cvd_list *out);

enum cvd_problem {
	CVD_OK = 0,
	CVD_P_STOPPED,	     /* the parse stopped early (see list->stop) */
	CVD_P_OUT_OF_RANGE,  /* an index >= the number of GPUs */
	CVD_P_NO_MATCH,	     /* a GPU- prefix no GPU's UUID starts with */
	CVD_P_AMBIGUOUS,     /* a GPU- prefix several UUIDs start with */
	CVD_P_DUPLICATE,     /* two entries name the same GPU: no device is visible */
	CVD_P_MIG_UNVERIFIED /* MIG- entries: not checked against MIG devices */
};

struct cvd_result {
	enum cvd_problem problem;
	size_t at;		  /* the entry (index into list->e) the problem is about */
	size_t visible;		  /* devices a CUDA program will see */
	int gpu[CVD_ENTRIES_MAX]; /* the NVML index of each visible device, -1 unknown */
};

/* uuids[i] is GPU i's UUID as NVML prints it ("GPU-8932f937-..."), or NULL. */
void cvd_resolve(const struct cvd_list *l, const uint8_t *p, size_t n, const char *const *uuids,
		 size_t n_gpus, struct cvd_result *out);

#endif
