/* xidlog: the NVRM Xid lines of a kernel log, as /dev/kmsg records
 * ("4,1234,5678901234,-;NVRM: Xid (PCI:0000:18:00): 79, pid=...") or dmesg
 * text ("[ 5678.901234] NVRM: Xid (PCI:0000:18:00): 79, ..."). xidlog_next
 * walks the caller's bytes line by line and copies each Xid into the event's
 * fixed fields (cut to fit, control bytes replaced); nothing is allocated and
 * malformed lines are skipped, never an error. */
#ifndef CD_XIDLOG_H
#define CD_XIDLOG_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

struct xidlog_event {
	uint32_t xid;
	int64_t ts_us;	/* since boot; -1 when the line has no timestamp */
	char pci[32];	/* "0000:18:00" as printed (without "PCI:") */
	char text[192]; /* what follows the number */
};

struct xidlog_reader {
	const uint8_t *p;
	size_t n, off;
	size_t lines, xids; /* seen so far */
};

void xidlog_init(struct xidlog_reader *r, const uint8_t *p, size_t n);
/* 1 with ev filled, 0 at the end. */
int xidlog_next(struct xidlog_reader *r, struct xidlog_event *ev);
/* "0000:18:00", "00000000:18:00.0" or "18:00.0" as (domain, bus, device);
 * 0, or -1 when it is not a PCI address. */
CD_WUR int xidlog_pci(const char *s, unsigned *domain, unsigned *bus, unsigned *device);

#endif
