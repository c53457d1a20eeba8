/* dpkgst: the installed packages of dpkg's status database
 * (/var/lib/dpkg/status: deb822 paragraphs of "Field: value" lines, a
 * continuation line starts with a space or tab, a blank line ends one). The
 * callback gets each paragraph whose Status is "install ok installed", with
 * the package name, its architecture and version (NUL-terminated copies cut
 * at DPKGST_FIELD_MAX, valid during the call). The caller does the I/O;
 * nothing is allocated. Returns the packages seen, or CD_EFORMAT past
 * DPKGST_MAX bytes. */
#ifndef CD_DPKGST_H
#define CD_DPKGST_H

#include <stddef.h>
#include <stdint.h>

#define DPKGST_MAX	 ((size_t)64 << 20)
#define DPKGST_FIELD_MAX 128

typedef void (*dpkgst_fn)(void *ctx, const char *name, const char *arch, const char *version);

int dpkgst_each(const uint8_t *p, size_t n, dpkgst_fn cb, void *ctx);

#endif
