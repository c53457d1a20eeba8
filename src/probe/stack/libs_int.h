/* libs_int: what the files of the library probe share (libs.c, libs_load.c,
 * libs_owner.c, libs_copies.c, libs_arch.c, libs_ext.c, libs_abi.c,
 * frameworks.c); not an interface for other modules. */
#ifndef CD_LIBS_INT_H
#define CD_LIBS_INT_H

#include "core/err.h"
#include "probe/loader/ldresolve.h"
#include "probe/stack/libs.h"

/* One run-time load the session made on purpose, by need index. */
struct libs_cstate; /* libs_copies.c's state */
struct libs_ostate; /* libs_owner.c's state */

struct libs_note {
	int need;
	enum libs_how how;
	const char *when;
	int same_dir; /* the opened library must come from the caller's directory */
	int optional;
};

#define LIBS_NOTES_MAX 128

struct libs_run {
	struct cd_facts *f;
	struct cd_stack_facts *st;
	struct cd_libs_facts *L;
	struct ldr_session s;
	int session;			 /* s is initialised */
	int c_obj;			 /* torch/_C's object, -1 */
	int gd_obj;			 /* libtorch_global_deps.so's object, -1 */
	size_t gd_need_from, gd_need_to; /* needs made while loading the global deps */
	struct libs_note notes[LIBS_NOTES_MAX];
	size_t n_notes;
	int cuda_major;			  /* torch.version.cuda's major; 0 unknown */
	struct libs_cstate *copies_state; /* libs_copies.c's directory listings */
	struct libs_ostate *owner_state;  /* libs_owner.c's canonical paths and RECORD rows */
	struct libs_listing *lists;	  /* names starting with "lib" of directories read */
	size_t n_lists;
};

/* The names starting with "lib" in dir, sorted; each directory is read once
 * per run. NULL when it cannot be read. */
CD_WUR const char **libs_list(struct libs_run *r, const char *dir, size_t *n);

/* libs_load.c: replay the import; fills L->items / L->missing. */
void libs_load(struct libs_run *r);
/* libs_copies.c: versions, owners, other copies, shadowing. */
void libs_copies(struct libs_run *r);
/* libs_owner.c: the canonical in-root path (links resolved as realpath(3)
 * would, through a per-run cache); NULL when a component does not exist. */
CD_WUR const char *libs_canon(struct libs_run *r, const char *path);
/* The site directory path lies in (index), or -1. */
int libs_site_of(const struct cd_stack_facts *st, const char *path, size_t *rel);
/* The same, trying the canonical site paths too; *rel is where the path
 * inside the site starts. */
int libs_site_index(struct libs_run *r, const char *path, size_t *rel);
/* Version of the file opened at path, whose canonical path is real: a full
 * one from its real name, else its wheel's, else the short one of its name;
 * with its source ("file-name", "wheel") and owner (by real, else by path in
 * a tree of links). All NULL when unknown. */
void libs_version_of(struct libs_run *r, const char *path, const char *real, const char **version,
		     const char **source, const char **owner);
/* The distribution owning path (in a site directory): "name version" and its
 * version, from torch's layout or the RECORD of the wheels in that site. */
CD_WUR int libs_owner(struct libs_run *r, const char *path, const char **owner,
		      const char **version);
/* MAJOR.MINOR of the libnvrtc loaded (else torch.version.cuda's). */
CD_WUR int libs_nvrtc_mm(struct libs_run *r, char *out, size_t cap);
/* libs_arch.c: the device code of one file; deep reads every container,
 * otherwise at most LIBS_ARCH_SAMPLE spread over the section. */
#define LIBS_ARCH_SAMPLE 64
void libs_archset_read(const struct cd_root *root, struct cd_arena *a, const char *path, int deep,
		       struct cd_archset *out);
void libs_arch_torch(struct libs_run *r);
/* libs_ext.c: CUDA extensions in site-packages; libs_abi.c: their imports. */
void libs_ext(struct libs_run *r);
void libs_abi(struct libs_run *r);
/* frameworks.c: JAX and TensorFlow. */
void libs_frameworks(struct libs_run *r);

/* A torch version at least major.minor (0 when unknown or older). */
int libs_torch_at_least(const struct cd_stack_facts *st, int major, int minor);

#endif
