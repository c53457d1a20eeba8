/* ldresolve_int: functions shared by the files of the resolver (ldpath.c,
 * ldresolve.c, ldsearch.c); not an interface for other modules. */
#ifndef CD_LDRESOLVE_INT_H
#define CD_LDRESOLVE_INT_H

#include <stdio.h>

#include "core/err.h"
#include "probe/loader/ldresolve.h"

void ldr_platform_init(struct ldr_session *s, uint16_t machine, int is64, int be,
		       const char *interp);
CD_WUR int ldr_split_dirs(struct ldr_session *s, const char *list, const char *seps,
			  const char *origin, const char ***out, size_t *n);
CD_WUR const char *ldr_fs_path(struct ldr_session *s, const char *path);
CD_WUR const char *ldr_origin(struct ldr_session *s, const char *path);

/* Outcome of trying one candidate file (glibc open_verify). */
enum ldr_try {
	LDR_TRY_NOENT = 0, /* no such file: keep searching */
	LDR_TRY_OK,
	LDR_TRY_SKIP_CLASS, /* other ELF class: skipped, remembered */
	LDR_TRY_SKIP,	    /* other machine, unreadable: skipped */
	LDR_TRY_FATAL	    /* not loadable: the loader stops with an error */
};

/* Create the object for a mapped, verified file; its index or -1. */
CD_WUR int ldr_add_object(struct ldr_session *s, const char *path, const char *name, int loader,
			  const struct cd_fmap *m);
/* The search for one name without a slash; fills need (rule, obj, error). */
void ldr_search(struct ldr_session *s, int loader, struct ldr_need *need);
/* Try one path; on LDR_TRY_OK *obj is the (possibly already loaded) object. */
enum ldr_try ldr_try_file(struct ldr_session *s, const char *path, const char *name, int loader,
			  int *obj, const char **why);

#endif
