/* archlist: TORCH_CUDA_ARCH_LIST as torch.utils.cpp_extension reads it when
 * it builds an extension (_get_cuda_arch_flags): blanks become ';', named
 * architectures are replaced by substring in table order, the result is split
 * on ';' and every entry must be one of a fixed set (optionally "+PTX"), else
 * the build stops with "ValueError: Unknown CUDA arch (X) or GPU not
 * supported". The caller passes the tables of the torch release it judges
 * for (kb/torcharch.h reads them from data/). archlist_parse fills the
 * caller's struct and allocates nothing; each rejected entry gets a kind and,
 * where one is certain, the spelling torch accepts. */
#ifndef CD_ARCHLIST_H
#define CD_ARCHLIST_H

#include <stddef.h>
#include <stdint.h>

#define ARCHLIST_MAX_INPUT   4096 /* longer values are reported, not parsed */
#define ARCHLIST_MAX_ENTRIES 64	  /* entries kept (all are counted) */
#define ARCHLIST_ENTRY_MAX   48	  /* bytes kept of one entry */

/* torch's tables: what one release of cpp_extension accepts. */
struct archlist_name {
	const char *name;  /* "Ampere+Tegra" */
	const char *value; /* what it is replaced by: "8.7", "8.0;8.6+PTX" */
};

struct archlist_rules {
	const struct archlist_name *names; /* named_arches, in torch's replacement order */
	size_t n_names;
	const char *const *arches; /* supported_arches ("9.0a"), each may carry "+PTX" */
	size_t n_arches;
	const struct archlist_name *renames; /* entries another release accepted under an
						old name ("10.1" -> "11.0"); may be NULL */
	size_t n_renames;
};

enum archlist_kind {
	ARCHLIST_OK = 0,
	ARCHLIST_EMPTY,	   /* ";;" or a trailing ';' or blank: torch rejects "" */
	ARCHLIST_RENAMED,  /* an old name of an architecture (rules->renames) */
	ARCHLIST_FAMILY,   /* "12.0f": nvcc knows family targets, torch does not */
	ARCHLIST_SPELLING, /* a known arch spelled another way: "sm_90", "90", "9.0+ptx" */
	ARCHLIST_UNKNOWN   /* not an architecture these tables know */
};

struct archlist_entry {
	char text[ARCHLIST_ENTRY_MAX]; /* as torch sees it, after expansion (truncated) */
	enum archlist_kind kind;
	int valid;	   /* kind == ARCHLIST_OK */
	int major, minor;  /* of "X.Y[a]", -1 when the entry is not one */
	int arch_specific; /* the "a" suffix: runs only on exactly this compute capability */
	int ptx;	   /* "+PTX": PTX is embedded as well */
	char suggest[ARCHLIST_ENTRY_MAX]; /* "" when there is no certain fix */
};

struct archlist_result {
	int is_auto;	  /* unset, empty or "native": torch uses the visible GPUs */
	int too_long;	  /* longer than ARCHLIST_MAX_INPUT: not parsed */
	size_t n_entries; /* after expansion, all of them */
	size_t n_kept;	  /* those in entries[] */
	size_t n_bad;	  /* rejected entries, all of them */
	struct archlist_entry entries[ARCHLIST_MAX_ENTRIES];
	char first_bad[ARCHLIST_ENTRY_MAX]; /* what torch's ValueError names */
	/* the list with bad entries fixed or dropped, ';'-separated, "" if none */
	char fixed[ARCHLIST_MAX_INPUT];
};

/* p may be NULL (unset); the value ends at n or at a NUL. Returns the number
 * of rejected entries (r->n_bad). */
size_t archlist_parse(const uint8_t *p, size_t n, const struct archlist_rules *rules,
		      struct archlist_result *r);
/* Does this release accept one expanded entry ("8.6", "9.0a+PTX")? */
int archlist_accepts(const struct archlist_rules *rules, const char *entry);
/* entry without its "+PTX" into out; 1 when it had one. */
int archlist_base(const char *entry, char *out, size_t cap);
const char *archlist_kind_name(enum archlist_kind k);

#endif
