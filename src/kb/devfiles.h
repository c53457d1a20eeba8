/* devfiles: the files a CUDA extension build needs from a toolkit (headers,
 * and link libraries: -l<name> needs the unversioned lib<name>.so) and the
 * packages that install them, from data/cuda_dev_files.tsv (each row with its
 * source). The table is parsed from the embedded file on first use into
 * static storage (no allocation; not thread-safe, like the rest of a run);
 * rows stay valid for the whole run. Lookups return NULL, or CD_ENOENT when
 * the row names no package of that kind. */
#ifndef CD_DEVFILES_H
#define CD_DEVFILES_H

#include <stddef.h>

#include "core/err.h"

#define DEVFILES_ROWS_MAX 64
#define DEVFILES_NAME_MAX 48
#define DEVFILES_PKG_MAX  64
#define DEVFILES_SRC_MAX  1024

/* What `cuda-doctor check` makes of a file (the check column). */
enum devfiles_check {
	DEVFILES_CHECK_NONE = 0, /* "-": not reported; only jit's ops ask for it */
	DEVFILES_CHECK_REQUIRED, /* reported, and a build that includes it fails without it */
	DEVFILES_CHECK_INFO	 /* reported for information only */
};

/* The package managers of the table's columns. */
enum devfiles_pm {
	DEVFILES_APT,
	DEVFILES_DNF,
	DEVFILES_CONDA,
	DEVFILES_PIP_CU12,
	DEVFILES_PIP_CU13
};

struct devfiles_row {
	char file[DEVFILES_NAME_MAX]; /* "cusparse.h", "libcurand.so" */
	int is_lib;		      /* kind "library" */
	enum devfiles_check check;
	char pkg[DEVFILES_PIP_CU13 + 1][DEVFILES_PKG_MAX]; /* by enum devfiles_pm; "" for "-" */
	char source[DEVFILES_SRC_MAX];
};

/* Rows in the table's order; devfiles_at(i) is NULL past the end. */
size_t devfiles_count(void);
const struct devfiles_row *devfiles_at(size_t i);
/* The row of a file name, or NULL. */
const struct devfiles_row *devfiles_find(const char *file);
/* The package of kind pm that installs the row's file for CUDA major.minor
 * ("libcusparse-dev-{MAJ}-{MIN}" -> "libcusparse-dev-12-4"). 0; CD_ENOENT when
 * the row names none; CD_ERANGE when it does not fit in cap. */
CD_WUR int devfiles_package(const struct devfiles_row *r, enum devfiles_pm pm, int major, int minor,
			    char *out, size_t cap);

#endif
