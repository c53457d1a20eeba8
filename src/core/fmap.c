/* fmap: see fmap.h. */
#include "core/fmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* name is what error messages call the file (the in-root path under --root);
 * keep: the descriptor stays open with the mapping. */
static int map_named(const char *host_path, const char *name, size_t max, int keep,
		     struct cd_fmap *m, struct cd_err *err)
{
	struct stat st;
	int fd, rc = 0;
	void *base;

	memset(m, 0, sizeof(*m));
	m->p = (const uint8_t *)"";
	fd = open(host_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return err_set(err, errno == ENOENT || errno == ENOTDIR ? CD_ENOENT : CD_EIO,
			       "%s: %s", name, strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = err_set(err, CD_EIO, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = err_set(err, CD_EIO, "%s: not a regular file", name);
		goto out;
	}
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	if ((uint64_t)st.st_size > max) {
		rc = err_set(err, CD_ENOMEM, "%s: larger than %zu bytes", name, max);
		goto out;
	}
	if (st.st_size == 0)
		goto out;
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		rc = err_set(err, CD_EIO, "%s: mmap: %s", name, strerror(errno));
		goto out;
	}
	/* Parsers here read headers, tables and chains of them, a few pages of a
	 * file that can be 500 MB: without this, each cold page fault reads the
	 * device's whole read-ahead window around it (8 MB on some cloud disks),
	 * and a cold `check` read 700 MB to use a few. Advice only: a failure
	 * changes nothing but speed. */
	(void)madvise(base, (size_t)st.st_size, MADV_RANDOM);
	m->base = base;
	m->maplen = (size_t)st.st_size;
	m->p = base;
	m->n = (size_t)st.st_size;
out:
	if (!rc && keep) {
		m->fd = fd;
		m->has_fd = 1;
	} else {
		close(fd);
	}
	return rc;
}

static int open_in_root(const struct cd_root *r, const char *path, size_t max, int keep,
			struct cd_fmap *m, struct cd_err *err)
{
	char host[PATH_MAX];

	if (root_host_path(r, path, host, sizeof(host))) {
		memset(m, 0, sizeof(*m));
		m->p = (const uint8_t *)"";
		return err_set(err, CD_ENOENT, "%s: path cannot be resolved", path);
	}
	return map_named(host, path, max, keep, m, err);
}

int fmap_open(const struct cd_root *r, const char *path, size_t max, struct cd_fmap *m,
	      struct cd_err *err)
{
	return open_in_root(r, path, max, 0, m, err);
}

int fmap_open_scan(const struct cd_root *r, const char *path, size_t max, struct cd_fmap *m,
		   struct cd_err *err)
{
	return open_in_root(r, path, max, 1, m, err);
}

int fmap_open_host(const char *host_path, size_t max, struct cd_fmap *m, struct cd_err *err)
{
	return map_named(host_path, host_path, max, 0, m, err);
}

/* lseek(whence) from off, inside [off, m->n]; fallback when it cannot tell
 * (ENXIO from SEEK_DATA: only a hole from off on, m->n). */
static uint64_t seek_to(const struct cd_fmap *m, uint64_t off, int whence, uint64_t fallback)
{
	off_t at = lseek(m->fd, (off_t)off, whence);

	if (at < 0)
		return whence == SEEK_DATA && errno == ENXIO ? m->n : fallback;
	return (uint64_t)at < off ? off : (uint64_t)at > m->n ? m->n : (uint64_t)at;
}

void fmap_data_run(const struct cd_fmap *m, uint64_t off, uint64_t *start, uint64_t *end)
{
	*start = off < m->n ? off : m->n;
	*end = m->n;
	if (!m->has_fd || *start >= m->n || off > (uint64_t)INT64_MAX)
		return;
	*start = seek_to(m, off, SEEK_DATA, off);
	if (*start < m->n)
		*end = seek_to(m, *start, SEEK_HOLE, m->n);
	if (*end <= *start) /* the file changed under the reader: say data */
		*end = m->n;
}

/* madvise(advice) on the pages of [from, to) inside the mapping: `whole`
 * keeps only the pages wholly inside (a release must not drop bytes before
 * from or after to), else every page the range touches (read-ahead). */
static void advise_range(const struct cd_fmap *m, const uint8_t *from, const uint8_t *to, int whole,
			 int advice)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t mask = pg > 0 && !(pg & (pg - 1)) ? (uintptr_t)pg - 1 : 4095;
	uintptr_t lo = (uintptr_t)m->base, hi = lo + m->maplen, a, b;

	if (!m->base || from >= to)
		return;
	a = (uintptr_t)from < lo ? lo : (uintptr_t)from;
	b = (uintptr_t)to > hi ? hi : (uintptr_t)to;
	a = whole ? (a + mask) & ~mask : a & ~mask;
	if (whole)
		b &= ~mask;
	if (b > a)
		(void)madvise((void *)a, b - a, advice);
}

void fmap_willneed(const struct cd_fmap *m, const uint8_t *from, const uint8_t *to)
{
	advise_range(m, from, to, 0, MADV_WILLNEED);
}

void fmap_release(const struct cd_fmap *m, const uint8_t *from, const uint8_t *to)
{
	advise_range(m, from, to, 1, MADV_DONTNEED);
}

void fmap_close(struct cd_fmap *m)
{
	if (m && m->base)
		munmap(m->base, m->maplen);
	if (m && m->has_fd)
		close(m->fd);
	if (m) {
		m->base = NULL;
		m->p = (const uint8_t *)"";
		m->n = 0;
		m->has_fd = 0;
	}
}
