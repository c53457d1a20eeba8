/* ldresolve: predict which file glibc's dynamic loader maps for each
 * DT_NEEDED entry, LD_PRELOAD item and dlopen() name, by reading files only
 * (never loading or running them), root-relative so --root images work.
 * The rules are those of glibc elf/dl-load.c, elf/dl-deps.c and elf/rtld.c
 * as summarised in docs/ldd.md: already-loaded SONAMEs, DT_RPATH of the
 * loader chain (when the loader has no DT_RUNPATH) and of the executable,
 * LD_LIBRARY_PATH, the loader's DT_RUNPATH, /etc/ld.so.cache (not inside the
 * default directories under DF_1_NODEFLIB), the default directories;
 * $ORIGIN (the directory of the path an object was opened by, links not
 * resolved), $LIB, $PLATFORM; a file of another ELF class or machine is skipped.
 * Everything the session records lives in its arena; ldr_free releases the
 * arrays and the mapped cache. Unreadable files become need errors, not
 * failures: only a main object that is not ELF fails ldr_load_main. */
#ifndef CD_LDRESOLVE_H
#define CD_LDRESOLVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/arena.h"
#include "core/err.h"
#include "core/file.h"
#include "format/ldcache.h"
#include "core/fmap.h"

/* How a need was satisfied (the step of the search that found it). */
enum ldr_rule {
	LDR_RULE_NONE = 0,	  /* not found */
	LDR_RULE_MAIN,		  /* the object given to ldr_load_main */
	LDR_RULE_PRELOAD,	  /* LD_PRELOAD or /etc/ld.so.preload */
	LDR_RULE_LOADED,	  /* an object already loaded answers to the name */
	LDR_RULE_PATH,		  /* the name contains '/': used as a path */
	LDR_RULE_RPATH,		  /* DT_RPATH of the loader chain or the executable */
	LDR_RULE_LD_LIBRARY_PATH, /* LD_LIBRARY_PATH */
	LDR_RULE_RUNPATH,	  /* the loader's own DT_RUNPATH */
	LDR_RULE_LD_SO_CACHE,	  /* /etc/ld.so.cache */
	LDR_RULE_DEFAULT	  /* the default (trusted) directories */
};

enum ldr_kind { LDR_KIND_NEEDED = 0, LDR_KIND_PRELOAD, LDR_KIND_DLOPEN };

struct ldr_alias;

struct ldr_obj {
	const char *name;      /* the name it was first requested under */
	const char *path;      /* in-root path as the loader names it (its l_name) */
	const char *soname;    /* DT_SONAME, NULL if none */
	const char *origin;    /* what $ORIGIN expands to in its tags */
	const char *rpath;     /* DT_RPATH in force: NULL if absent or overridden by RUNPATH */
	const char *rpath_tag; /* DT_RPATH as written, even when RUNPATH overrides it */
	const char *runpath;
	const char *const *needed;
	size_t n_needed;
	uint64_t flags_1;
	int nodeflib; /* DF_1_NODEFLIB */
	int loader;   /* the object whose need loaded it (l_loader); -1 none */
	int is_main, is_rtld, is_preload, is_dlopen;
	int listed; /* appears in ldd's list (the interpreter only once needed) */
	uint16_t machine;
	uint16_t type;
	int is64;
	dev_t dev;
	ino_t ino;
	const char *error;	   /* its dynamic section could not be read */
	struct ldr_alias *aliases; /* every name it was requested under */
	/* search lists, expanded on first use */
	int rpath_done, runpath_done;
	const char **rpath_dirs, **runpath_dirs;
	size_t n_rpath_dirs, n_runpath_dirs;
};

struct ldr_need {
	const char *name;
	enum ldr_kind kind;
	int by;	 /* requesting object; for preloads the main object */
	int obj; /* the object it resolved to, -1 when not found */
	enum ldr_rule rule;
	const char *path;  /* objs[obj].path, NULL when not found */
	int tag_from;	   /* rpath/runpath: the object that carries the tag */
	int new_object;	   /* this need loaded objs[obj] (else it was already there) */
	int listed_here;   /* this need put objs[obj] into ldd's list (new, or the interpreter) */
	const char *error; /* why not found, or a problem with the file found */
	unsigned hwcaps_candidates; /* glibc-hwcaps copies the loader may prefer */
};

struct ldr_config {
	const char *ld_library_path; /* NULL: unset */
	const char *ld_preload;	     /* NULL: unset */
	int no_etc_preload;	     /* do not read /etc/ld.so.preload */
	int inhibit_cache;	     /* ld.so --inhibit-cache */
	const char *cwd;	     /* in-root directory for relative paths; NULL: "/" */
};

/* What the target system's loader looks like, from the main object. */
struct ldr_platform {
	uint16_t machine;
	int is64;
	int be;
	const char *lib;      /* $LIB: "lib/x86_64-linux-gnu", "lib64", "lib" */
	const char *platform; /* $PLATFORM, NULL when unknown */
	const char *rtld;     /* the interpreter path */
	const char *sysdirs[4];
	size_t n_sysdirs;
	int32_t cache_flags; /* ld.so.cache flags it accepts; -1 unknown */
};

/* Caps on one session: a real process maps a few hundred objects. */
#define LDR_MAX_OBJECTS 2048
#define LDR_MAX_NEEDS	32768

struct ldr_session {
	const struct cd_root *root;
	struct cd_arena *a;
	struct ldr_config cfg;
	struct ldr_platform plat;
	struct cd_fmap cache_map;
	struct ldc_cache cache;
	int cache_ok;
	const char *cache_error; /* why the cache is not used; NULL when it is */
	struct ldr_obj *objs;
	size_t n_objs, cap_objs;
	struct ldr_need *needs;
	size_t n_needs, cap_needs;
	int *order; /* object indexes in link-map order (what ldd prints) */
	size_t n_order, cap_order;
	const char **llp; /* LD_LIBRARY_PATH, expanded */
	size_t n_llp;
	int main;
	int rtld;
	const char *main_interp; /* PT_INTERP of the main object, NULL if none */
	int truncated;		 /* a cap was hit: some needs were not followed */
};

void ldr_init(struct ldr_session *s, const struct cd_root *root, const struct ldr_config *cfg,
	      struct cd_arena *a);
/* Load path (in-root) as the program, its preloads and the whole DT_NEEDED
 * tree breadth-first, as `ld.so FILE` and glibc's ldd do: $ORIGIN of every
 * object, this one included, is the directory of the path it was opened by
 * (symbolic links not resolved). CD_EFORMAT when path is not an ELF object. */
CD_WUR int ldr_load_main(struct ldr_session *s, const char *path, struct cd_err *err);
/* The same for a program started by execve: its own $ORIGIN is the
 * directory of its canonical path (glibc reads the kernel's /proc/self/exe,
 * links resolved); every other object's is still the path it was opened by. */
CD_WUR int ldr_load_exec(struct ldr_session *s, const char *path, struct cd_err *err);
/* dlopen(name) called from objs[caller] once the program is loaded: the
 * caller's search rules find the object; its own tree then loads with its
 * own rules. *obj is the object index or -1; the need is the last added. */
CD_WUR int ldr_dlopen(struct ldr_session *s, int caller, const char *name, int *obj,
		      struct cd_err *err);
void ldr_free(struct ldr_session *s);

/* Where a requester's own tags would find name, by the search ldr_search
 * runs, loading nothing: objs[by]'s DT_RUNPATH when it has one, else the
 * DT_RPATH of objs[by], of its loaders and of the program. The in-root path
 * of the first loadable candidate (arena) and *tag_from, the object whose
 * tag named it; NULL and -1 when no tag reaches one. */
CD_WUR const char *ldr_find_by_tags(struct ldr_session *s, int by, const char *name, int *tag_from);
/* The same through objs[obj]'s own search list alone (DT_RUNPATH, else
 * DT_RPATH), as if it asked for name itself and nothing were inherited. */
CD_WUR const char *ldr_find_in_tags(struct ldr_session *s, int obj, const char *name);

const char *ldr_rule_name(enum ldr_rule r); /* "rpath", ...; NULL for NONE */
const char *ldr_kind_name(enum ldr_kind k);

/* Exposed for tests: $ORIGIN/$LIB/$PLATFORM expansion of one string, NULL
 * when a token has no value (the loader then drops the element). */
CD_WUR char *ldr_expand(struct ldr_session *s, const char *in, const char *origin);

#endif
