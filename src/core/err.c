/* err: see err.h. */
#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>

int err_set(struct cd_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
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
