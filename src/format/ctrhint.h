/* ctrhint: which container runtime a process runs under, from the bytes of
 * /proc/1/cgroup or /proc/self/mountinfo (cgroup paths and overlay layer
 * paths name the runtime: "/kubepods/...", "docker-<id>.scope",
 * "/var/lib/containers/storage/overlay/..."). ctrhint_scan writes the kind
 * (a static string) and the matching fragment into the caller's buffer.
 * Nothing is allocated. 0, or CD_ENOENT when no marker is present. */
#ifndef CD_CTRHINT_H
#define CD_CTRHINT_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define CTRHINT_MAX_BYTES ((size_t)1 << 20) /* mountinfo of a busy host fits */

CD_WUR int ctrhint_scan(const uint8_t *p, size_t n, const char **kind, char *evidence, size_t cap);

#endif
