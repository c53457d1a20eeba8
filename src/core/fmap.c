/* fmap: see fmap.h. */
#include "core/fmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* name is what error messages call the file (the in-root path under --root). */
static int map_named(const char *host_path, const char *name, size_t max, struct cd_fmap *m,
		     struct cd_err *err)
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
	close(fd);
	return rc;
}

int fmap_open(const struct cd_root *r, const char *path, size_t max, struct cd_fmap *m,
	      struct cd_err *err)
{
	char host[PATH_MAX];

	if (root_host_path(r, path, host, sizeof(host))) {
		memset(m, 0, sizeof(*m));
		m->p = (const uint8_t *)"";
		return err_set(err, CD_ENOENT, "%s: path cannot be resolved", path);
	}
	return map_named(host, path, max, m, err);
}

int fmap_open_host(const char *host_path, size_t max, struct cd_fmap *m, struct cd_err *err)
{
	return map_named(host_path, host_path, max, m, err);
}

void fmap_close(struct cd_fmap *m)
{
	if (m && m->base)
		munmap(m->base, m->maplen);
	if (m) {
		m->base = NULL;
		m->p = (const uint8_t *)"";
		m->n = 0;
	}
}
