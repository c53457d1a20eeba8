/* osrel: the os-release(5) file (/etc/os-release, /usr/lib/os-release).
 * osrel_get looks one KEY up in the caller's bytes and writes its unquoted
 * value into the caller's buffer; nothing is allocated. The format is a
 * shell-compatible subset: KEY=VALUE lines, '#' comments, values bare or in
 * "double" (backslash escapes) or 'single' quotes. A later assignment wins,
 * as it would when the file is sourced. CD_ENOENT when the key is absent or
 * its line is malformed (an unterminated quote); CD_ERANGE when the value
 * does not fit in out. */
#ifndef CD_OSREL_H
#define CD_OSREL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define OSREL_MAX_BYTES ((size_t)64 << 10) /* bigger files are not os-release */

CD_WUR int osrel_get(const uint8_t *p, size_t n, const char *key, char *out, size_t cap);

#endif
