/* archlist: TORCH_CUDA_ARCH_LIST as torch.utils.cpp_extension reads it when
 * it builds an extension (_get_cuda_arch_flags, torch 2.11): blanks become
 * ';', named architectures ("Ampere", "Hopper+Tegra"...) are replaced by
 * substring in a fixed order, the result is split on ';' and every entry must
 * be one of a fixed set ("8.0", "9.0a", "12.0+PTX"...), else the build stops
 * with "ValueError: Unknown CUDA arch (X) or GPU not supported".
 * archlist_parse fills the caller's struct (no allocation); each bad entry
 * gets a kind and, where one is certain, the spelling torch accepts. */
#ifndef CD_ARCHLIST_H
#define CD_ARCHLIST_H

#include <stddef.h>

#define ARCHLIST_MAX_INPUT 4096 /* longer values are reported, not parsed */
#define ARCHLIST_MAX_BAD   16	/* bad entries kept (all are counted) */
#define ARCHLIST_ENTRY_MAX 48	/* bytes kept of one entry */

enum archlist_kind {
	ARCHLIST_OK = 0,
	ARCHLIST_EMPTY,	   /* ";;" or a trailing ';' or blank: torch rejects "" */
	ARCHLIST_LEGACY,   /* accepted by older torch only (10.1: sm_101 became sm_110) */
	ARCHLIST_FAMILY,   /* "12.0f": nvcc knows family targets, torch does not */
	ARCHLIST_SPELLING, /* a known arch spelled another way: "sm_90", "90", "9.0+ptx" */
	ARCHLIST_UNKNOWN   /* not an architecture torch knows */
};

struct archlist_bad {
	enum archlist_kind kind;
	char entry[ARCHLIST_ENTRY_MAX];	  /* as torch sees it, after expansion */
	char suggest[ARCHLIST_ENTRY_MAX]; /* "" when there is no certain fix */
};

struct archlist_result {
	int is_auto;	   /* unset, empty or "native": torch uses the visible GPUs */
	int too_long;	   /* longer than ARCHLIST_MAX_INPUT: not parsed */
	size_t n_entries;  /* after expansion */
	size_t n_bad;	   /* all bad entries */
	size_t n_bad_kept; /* those in bad[] */
	struct archlist_bad bad[ARCHLIST_MAX_BAD];
	/* the list with bad entries fixed or dropped, ';'-separated, "" if none */
	char fixed[ARCHLIST_MAX_INPUT];
};

/* value may be NULL (unset). Returns the number of bad entries. */
size_t archlist_parse(const char *value, size_t len, struct archlist_result *r);
/* Is one expanded entry valid for torch ("8.6", "9.0a+PTX")? */
int archlist_valid(const char *entry);
const char *archlist_kind_name(enum archlist_kind k);

#endif
