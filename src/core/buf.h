/* buf: a growable byte buffer with a hard size cap.
 * The buffer owns its bytes (free with buf_free); contents stay NUL-terminated
 * so text can be used as a C string. Growth past `max` fails with CD_ENOMEM
 * instead of consuming memory without bound. */
#ifndef CD_BUF_H
#define CD_BUF_H

#include <stddef.h>

#include "core/err.h"

struct cd_buf {
	char *p;
	size_t len;
	size_t cap;
	size_t max; /* 0 means the default cap, CD_BUF_DEFAULT_MAX */
};

#define CD_BUF_DEFAULT_MAX ((size_t)64 << 20)

void buf_init(struct cd_buf *b, size_t max);
void buf_free(struct cd_buf *b);
void buf_reset(struct cd_buf *b);
CD_WUR int buf_reserve(struct cd_buf *b, size_t extra);
CD_WUR int buf_append(struct cd_buf *b, const void *p, size_t n);
CD_WUR int buf_puts(struct cd_buf *b, const char *s);
CD_WUR int buf_putc(struct cd_buf *b, char c);
CD_WUR int buf_printf(struct cd_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hand the bytes to the caller (who frees them) and reset b. */
CD_WUR char *buf_steal(struct cd_buf *b);

#endif
