/* err: see err.h. */
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Start of the UTF-8 character at or after s[i] (never inside one). */
static size_t utf8_next(const char *s, size_t i, size_t n)
{
	while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
		i++;
	return i;
}

/* A message longer than the cap keeps its head and its tail (where the
 * cause is: "PATH: Permission denied"), the middle elided. */
static void err_fit(char *msg, size_t cap, const char *full, size_t n)
{
	static const char mid[] = " ... ";
	size_t head = cap / 3, tail = cap - head - sizeof(mid), h, t;

	h = head;
	while (h > 0 && ((unsigned char)full[h] & 0xC0) == 0x80)
		h--;
	t = utf8_next(full, n - tail, n);
	memcpy(msg, full, h);
	memcpy(msg + h, mid, sizeof(mid) - 1);
	memcpy(msg + h + sizeof(mid) - 1, full + t, n - t);
	msg[h + sizeof(mid) - 1 + n - t] = '\0';
}

int err_set(struct cd_err *err, int code, const char *fmt, ...)
{
	va_list ap, ap2;
	int n;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(err->msg)) {
		char *full = malloc((size_t)n + 1);
		if (full && vsnprintf(full, (size_t)n + 1, fmt, ap2) == n)
			err_fit(err->msg, sizeof(err->msg), full, (size_t)n);
		free(full);
	}
	va_end(ap2);
	return code;
}

const char *err_name(int code)
{
	switch (code) {
	case CD_OK: return "ok";
	case CD_ENOMEM: return "nomem";
	case CD_EIO: return "io";
	case CD_EFORMAT: return "format";
	case CD_ERANGE: return "range";
	case CD_ENOENT: return "noent";
	case CD_ETIMEOUT: return "timeout";
	case CD_ECRASH: return "crash";
	case CD_EUSAGE: return "usage";
	default: return "internal";
	}
}
