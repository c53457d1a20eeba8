/* err: error codes and a fixed-size error message.
 * Fallible functions return 0 or a negative CD_E* code and fill an optional
 * struct cd_err. Nothing here allocates, so the error path cannot fail.
 * err_set() returns the code it stored, so callers can `return err_set(...)`. */
#ifndef CD_ERR_H
#define CD_ERR_H

#include <stddef.h>

enum {
	CD_OK = 0,
	CD_ENOMEM = -1,	  /* allocation failed or a size cap was hit */
	CD_EIO = -2,	  /* a system call failed; errno text is in msg */
	CD_EFORMAT = -3,  /* input bytes are not of the expected format */
	CD_ERANGE = -4,	  /* an offset or size points outside its buffer */
	CD_ENOENT = -5,	  /* the thing looked for does not exist */
	CD_ETIMEOUT = -6, /* a bounded operation ran out of time */
	CD_ECRASH = -7,	  /* an isolated child died from a signal */
	CD_EUSAGE = -8,	  /* bad command-line input */
	CD_EINTERNAL = -9 /* a bug in cuda-doctor */
};

/* Marks a fallible function (one that returns a CD_E* code, or a pointer that
 * is NULL on failure): a caller that drops the result gets a warning, an
 * error under CI. GCC does not take a plain (void) cast as a use: a result
 * dropped on purpose is written `(void)!f(...);` with a comment saying why. */
#define CD_WUR __attribute__((warn_unused_result))

#define CD_ERR_MSG_MAX 512

struct cd_err {
	int code;
	char msg[CD_ERR_MSG_MAX];
};

/* Store code and a printf-style message in err (which may be NULL); returns code. */
int err_set(struct cd_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A short constant name for a CD_E* code ("format", "io", ...). */
const char *err_name(int code);

#endif
