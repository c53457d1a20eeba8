/* model_io: file checks for the model probe (see model.h). Paths are in-root
 * and resolved with root_host_path, so a cache symlink to ../../blobs/<etag>
 * stays inside --root; errno is kept so a dangling link, a loop and a
 * permission problem are told apart. Opens use O_NONBLOCK and refuse anything
 * but a regular file, so a FIFO planted in a cache cannot hang the probe. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/str.h"
#include "probe/model/model.h"

static enum md_fstate from_errno(struct cd_facts *f, int e, const char **problem)
{
	*problem = arena_strdup(&f->arena, strerror(e));
	if (e == ENOENT || e == ENOTDIR)
		return MD_F_MISSING;
	if (e == ELOOP)
		return MD_F_LOOP;
	return MD_F_UNREADABLE;
}

/* A file the Hub listed: present with its size; one whose fetch failed is
 * unreadable, with the status. */
static enum md_fstate hub_check(const struct cd_model_facts *m, const char *path, int64_t *size,
				const char **problem)
{
	const struct md_hub_file *h = hub_file_at(m, path);

	if (!h)
		return (*problem = "not in the repository's file list on the Hub"), MD_F_MISSING;
	*size = h->size;
	if (h->error)
		return (*problem = h->error), MD_F_UNREADABLE;
	return MD_F_OK;
}

enum md_fstate md_check_file(struct cd_facts *f, const struct cd_model_facts *m, const char *path,
			     int64_t *size, const char **blob, const char **problem)
{
	char host[PATH_MAX], link[PATH_MAX];
	struct stat st;
	int rc;

	*size = CD_UNK;
	*problem = NULL;
	if (blob)
		*blob = NULL;
	if (m->source == MD_SRC_HUB)
		return hub_check(m, path, size, problem);
	if (root_entry_path(&f->root, path, host, sizeof(host)))
		return (*problem = "path too long"), MD_F_UNREADABLE;
	if (lstat(host, &st) != 0)
		return from_errno(f, errno, problem);
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(host, link, sizeof(link) - 1);
		if (n >= 0 && blob) {
			link[n] = '\0';
			*blob = arena_strdup(&f->arena, link);
		}
		rc = root_host_path(&f->root, path, host, sizeof(host));
		if (rc == CD_EFORMAT)
			return (*problem = "symbolic link loop"), MD_F_LOOP;
		if (rc)
			return (*problem = "link target cannot be resolved"), MD_F_UNREADABLE;
		if (stat(host, &st) != 0) {
			enum md_fstate s = from_errno(f, errno, problem);
			if (s == MD_F_MISSING) {
				*problem = "symbolic link to a blob that does not exist";
				return MD_F_DANGLING;
			}
			return s;
		}
	}
	if (S_ISDIR(st.st_mode))
		return (*problem = "is a directory"), MD_F_UNREADABLE;
	if (!S_ISREG(st.st_mode))
		return (*problem = "not a regular file"), MD_F_UNREADABLE;
	*size = (int64_t)st.st_size;
	if (access(host, R_OK) != 0)
		return from_errno(f, errno, problem);
	return MD_F_OK;
}

/* The bytes the Hub probe fetched: a whole JSON file, or a weight file's
 * header (its prefix). Asking for more than was fetched gets what there is. */
static int hub_read(const struct cd_model_facts *m, const char *path, size_t max,
		    struct cd_buf *out, uint64_t *size, struct cd_err *err)
{
	const struct md_hub_file *h = hub_file_at(m, path);
	size_t n;

	if (!h)
		return err_set(err, CD_ENOENT, "%s: not on the Hub", path);
	if (!h->data)
		return err_set(err, CD_EIO, "%s: %s", path,
			       h->error ? h->error : "not read from the Hub (a bound was reached)");
	n = h->len < max ? h->len : max;
	buf_reset(out);
	if (buf_append(out, h->data, n))
		return err_set(err, CD_ENOMEM, "%s: cannot buffer %zu bytes", path, n);
	if (size)
		*size = h->size != CD_UNK ? (uint64_t)h->size : (uint64_t)h->len;
	return 0;
}

int md_read_file(struct cd_facts *f, const struct cd_model_facts *m, const char *path, size_t max,
		 struct cd_buf *out, struct cd_err *err)
{
	const struct md_hub_file *h;

	if (m->source != MD_SRC_HUB)
		return file_read(&f->root, path, max, out, err);
	h = hub_file_at(m, path);
	if (h && h->data && h->len > max)
		return err_set(err, CD_ENOMEM, "%s: larger than %zu bytes", path, max);
	return hub_read(m, path, max, out, NULL, err);
}

int md_read_prefix(struct cd_facts *f, const struct cd_model_facts *m, const char *path, size_t max,
		   struct cd_buf *out, uint64_t *size, struct cd_err *err)
{
	char host[PATH_MAX];
	struct stat st;
	size_t want, got = 0;
	int fd, rc = 0;

	if (m->source == MD_SRC_HUB)
		return hub_read(m, path, max, out, size, err);
	if (root_host_path(&f->root, path, host, sizeof(host)))
		return err_set(err, CD_ENOENT, "%s: path cannot be resolved", path);
	fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return err_set(err, errno == ENOENT ? CD_ENOENT : CD_EIO, "%s: %s", path,
			       strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = err_set(err, CD_EIO, "%s: not a regular file", path);
		goto out;
	}
	*size = (uint64_t)st.st_size;
	want = (uint64_t)st.st_size < max ? (size_t)st.st_size : max;
	buf_reset(out);
	if (buf_reserve(out, want)) {
		rc = err_set(err, CD_ENOMEM, "%s: cannot buffer %zu bytes", path, want);
		goto out;
	}
	while (got < want) {
		ssize_t n = pread(fd, out->p + got, want - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = err_set(err, CD_EIO, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break; /* shrank under us: keep what was read */
		got += (size_t)n;
	}
	out->len = got;
	out->p[got] = '\0';
out:
	close(fd);
	return rc;
}
