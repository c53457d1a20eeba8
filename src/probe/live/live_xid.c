/* live_xid: the Xid lines of the kernel log (live_int.h). /dev/kmsg is opened
 * before the devices run, read while they run and read to its end after them,
 * from where the first read stopped, so what the probe made the driver log is
 * there too. Reads never block (O_NONBLOCK: EAGAIN is the end; EPIPE, a record
 * overwritten while reading, is skipped); under --root the path is a file of
 * the fixture. kernel.dmesg_restrict=1 (root needed) is reported as the fact. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/file.h"
#include "core/str.h"
#include "format/xidlog.h"
#include "probe/live/live_int.h"

#define KMSG	 "/dev/kmsg"
#define KMSG_MAX (4u << 20) /* the ring is 256 KiB to a few MiB */
#define XIDS_MAX 64
#define RESTRICT "/proc/sys/kernel/dmesg_restrict"
#define SLACK_US 1000000 /* kmsg's clock and CLOCK_MONOTONIC may differ a little */

/* Read all of fd into b; 0, or the errno that stopped it. */
static int read_all(int fd, struct cd_buf *b, int *truncated)
{
	char chunk[8192];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n > 0) {
			if (b->len + (size_t)n > KMSG_MAX) {
				*truncated = 1;
				return 0;
			}
			if (buf_append(b, chunk, (size_t)n))
				return ENOMEM;
			continue;
		}
		if (n == 0 || errno == EAGAIN)
			return 0; /* a file's end, or no more records */
		if (errno == EINTR || errno == EPIPE)
			continue;
		return errno;
	}
}

static const char *why(struct cd_facts *f, int e)
{
	struct cd_buf b;
	const char *r = NULL;

	if (e != EPERM && e != EACCES)
		return arena_strdup(&f->arena, strerror(e));
	buf_init(&b, 64);
	if (file_read(&f->root, RESTRICT, 64, &b, NULL) == 0 && b.len && b.p[0] == '1')
		r = "kernel.dmesg_restrict=1: reading the kernel log needs root or CAP_SYSLOG";
	buf_free(&b);
	return r ? r : arena_strdup(&f->arena, strerror(e));
}

static int64_t gpu_of(const struct cd_live_facts *lf, const char *pci)
{
	unsigned d, b, v, gd, gb, gv;
	size_t i;

	if (xidlog_pci(pci, &d, &b, &v))
		return CD_UNK;
	for (i = 0; i < lf->n_gpus; i++)
		if (lf->gpus[i].pci_bus_id && !xidlog_pci(lf->gpus[i].pci_bus_id, &gd, &gb, &gv) &&
		    gd == d && gb == b && gv == v)
			return lf->gpus[i].index;
	return CD_UNK;
}

static void keep(struct cd_facts *f, struct cd_live_facts *lf, const struct cd_buf *b,
		 int64_t t0_us)
{
	struct cd_live_xid *ring = arena_calloc(&f->arena, XIDS_MAX, sizeof(*ring));
	struct xidlog_reader r;
	struct xidlog_event ev;
	size_t n = 0, i;

	if (!ring)
		return;
	xidlog_init(&r, (const uint8_t *)b->p, b->len);
	while (xidlog_next(&r, &ev)) {
		struct cd_live_xid *x = &ring[n++ % XIDS_MAX];
		x->xid = ev.xid;
		x->ts_us = ev.ts_us >= 0 ? ev.ts_us : CD_UNK;
		x->pci = arena_strdup(&f->arena, ev.pci);
		x->text = arena_strdup(&f->arena, ev.text);
		x->gpu = gpu_of(lf, ev.pci);
		x->during_probe = ev.ts_us >= 0 && f->root.is_host && ev.ts_us + SLACK_US >= t0_us;
	}
	lf->xids.truncated |= n > XIDS_MAX;
	lf->xids.n = n < XIDS_MAX ? n : XIDS_MAX;
	lf->xids.items = arena_calloc(&f->arena, lf->xids.n ? lf->xids.n : 1, sizeof(*ring));
	for (i = 0; lf->xids.items && i < lf->xids.n; i++) /* oldest first */
		lf->xids.items[i] = ring[(n > XIDS_MAX ? n - XIDS_MAX + i : i) % XIDS_MAX];
	if (!lf->xids.items)
		lf->xids.n = 0;
}

struct live_xid_pending {
	int fd, err, truncated;
	struct cd_buf b;
};

struct live_xid_pending *live_xid_open(struct cd_facts *f, struct cd_live_facts *lf)
{
	struct live_xid_pending *p;
	char host[PATH_MAX];

	lf->xids.source = KMSG;
	if (root_host_path(&f->root, KMSG, host, sizeof(host))) {
		lf->xids.error = "path too long";
		return NULL;
	}
	if (!(p = arena_alloc(&f->arena, sizeof(*p))))
		return NULL;
	p->fd = open(host, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (p->fd < 0) {
		lf->xids.error = why(f, errno);
		return NULL;
	}
	buf_init(&p->b, KMSG_MAX + 8192);
	live_xid_drain(p);
	return p;
}

void live_xid_drain(struct live_xid_pending *p)
{
	if (p && !p->err && !p->truncated)
		p->err = read_all(p->fd, &p->b, &p->truncated);
}

void live_xid_close(struct cd_facts *f, struct cd_live_facts *lf, struct live_xid_pending *p,
		    int64_t t0_us)
{
	if (!p)
		return;
	live_xid_drain(p);
	close(p->fd);
	lf->xids.truncated = p->truncated;
	if (p->err) {
		lf->xids.error = why(f, p->err);
	} else {
		lf->xids.readable = 1;
		keep(f, lf, &p->b, t0_us);
	}
	buf_free(&p->b);
}
