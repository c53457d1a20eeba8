/* hostlist: host names folded the way pdsh's dshbak -c prints them,
 * "gpu[017,233-235]": names that differ only in their last number share one
 * bracket of numbers and ranges; zero-padded numbers keep their width;
 * other names are listed as they are, all sorted. The caller owns out (a
 * capped buffer); CD_ENOMEM when it or the sort's scratch cannot grow. */
#ifndef CD_HOSTLIST_H
#define CD_HOSTLIST_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"

CD_WUR int hostlist_fold(const char *const *names, size_t n, struct cd_buf *out);

#endif
