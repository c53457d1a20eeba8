/* file: see file.h. Resolution walks the path one component at a time with
 * lstat and readlink, like the kernel's own walk but anchored at the root;
 * for the real / the kernel does the walk itself. */
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/str.h"

#define LINK_HOPS_MAX 40

int root_init(struct cd_root *r, const char *dir, struct cd_err *err)
{
	struct stat st;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (!dir || !strcmp(dir, "/") || !*dir) {
		r->is_host = 1;
		return 0;
	}
	if (stat(dir, &st) != 0)
		return err_set(err, CD_ENOENT, "--root %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(err, CD_EUSAGE, "--root %s: not a directory", dir);
	/* A root we may not enter or list would read as an empty, healthy machine. */
	if (access(dir, R_OK | X_OK) != 0)
		return err_set(err, CD_EUSAGE, "--root %s: %s (cannot read it as a filesystem)",
			       dir, strerror(errno));
	if (!realpath(dir, r->dir))
		return err_set(err, CD_EIO, "--root %s: %s", dir, strerror(errno));
	n = strlen(r->dir);
	while (n > 0 && r->dir[n - 1] == '/')
		r->dir[--n] = '\0';
	r->is_host = n == 0;
	return 0;
}

const char *root_strip(const struct cd_root *r, const char *host_path)
{
	size_t n = strlen(r->dir);

	if (r->is_host || strncmp(host_path, r->dir, n) != 0)
		return host_path;
	return host_path[n] ? host_path + n : "/";
}

/* Walk state: `done` is the resolved in-root prefix (starts as ""), `todo`
 * the components still to walk. */
static int walk(const struct cd_root *r, const char *path, char *done, size_t cap)
{
	char todo[PATH_MAX], host[PATH_MAX], link[PATH_MAX], tmp[PATH_MAX];
	int hops = 0;
	size_t dlen = 0;

	if (str_copy(todo, sizeof(todo), path) >= sizeof(todo))
		return CD_ERANGE;
	done[0] = '\0';
	for (;;) {
		char *p = todo, *slash;
		size_t clen;
		struct stat st;
		ssize_t ln;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		slash = strchr(p, '/');
		clen = slash ? (size_t)(slash - p) : strlen(p);
		if (clen == 1 && p[0] == '.') {
			memmove(todo, p + clen, strlen(p + clen) + 1);
			continue;
		}
		if (clen == 2 && p[0] == '.' && p[1] == '.') {
			char *last = strrchr(done, '/');
			dlen = last ? (size_t)(last - done) : 0;
			done[dlen] = '\0';
			memmove(todo, p + clen, strlen(p + clen) + 1);
			continue;
		}
		if (dlen + 1 + clen >= cap)
			return CD_ERANGE;
		done[dlen] = '/';
		memcpy(done + dlen + 1, p, clen);
		done[dlen + 1 + clen] = '\0';
		memmove(todo, p + clen, strlen(p + clen) + 1);
		if (snprintf(host, sizeof(host), "%s%s", r->dir, done) >= (int)sizeof(host))
			return CD_ERANGE;
		if (lstat(host, &st) != 0) {
			/* Missing: keep the rest as it is, unresolved. */
			if (dlen + 1 + clen + strlen(todo) >= cap)
				return CD_ERANGE;
			memcpy(done + dlen + 1 + clen, todo, strlen(todo) + 1);
			return 0;
		}
		if (!S_ISLNK(st.st_mode)) {
			dlen += 1 + clen;
			continue;
		}
		if (++hops > LINK_HOPS_MAX)
			return CD_EFORMAT;
		ln = readlink(host, link, sizeof(link) - 1);
		if (ln < 0)
			return CD_EIO;
		link[ln] = '\0';
		if (snprintf(tmp, sizeof(tmp), "%s/%s", link, todo) >= (int)sizeof(tmp))
			return CD_ERANGE;
		memcpy(todo, tmp, strlen(tmp) + 1);
		if (link[0] == '/')
			dlen = 0; /* absolute target: restart at the root */
		done[dlen] = '\0';
	}
	if (dlen == 0)
		str_copy(done, cap, "/");
	return 0;
}

int root_host_path(const struct cd_root *r, const char *path, char *out, size_t cap)
{
	char inroot[PATH_MAX];
	int rc;

	if (r->is_host)
		return str_copy(out, cap, path) >= cap ? CD_ERANGE : 0;
	rc = walk(r, path, inroot, sizeof(inroot));
	if (rc)
		return rc;
	if (snprintf(out, cap, "%s%s", r->dir, strcmp(inroot, "/") ? inroot : "") >= (int)cap)
		return CD_ERANGE;
	return 0;
}

int file_stat(const struct cd_root *r, const char *path, struct stat *st)
{
	char host[PATH_MAX];

	if (root_host_path(r, path, host, sizeof(host)))
		return CD_ENOENT;
	return stat(host, st) == 0 ? 0 : CD_ENOENT;
}

int root_entry_path(const struct cd_root *r, const char *path, char *out, size_t cap)
{
	char dir[PATH_MAX];
	const char *base = strrchr(path, '/');

	if (!base || str_ncopy(dir, sizeof(dir), path, (size_t)(base - path)) >= sizeof(dir))
		return CD_ENOENT;
	if (root_host_path(r, dir[0] ? dir : "/", out, cap))
		return CD_ENOENT;
	if (strlen(out) + strlen(base) >= cap)
		return CD_ERANGE;
	memcpy(out + strlen(out), base, strlen(base) + 1);
	return 0;
}

int file_lstat(const struct cd_root *r, const char *path, struct stat *st)
{
	char host[PATH_MAX];
	int rc;

	if (r->is_host)
		return lstat(path, st) == 0 ? 0 : CD_ENOENT;
	if ((rc = root_entry_path(r, path, host, sizeof(host))))
		return rc;
	return lstat(host, st) == 0 ? 0 : CD_ENOENT;
}

int file_exists(const struct cd_root *r, const char *path)
{
	struct stat st;

	return file_stat(r, path, &st) == 0;
}

int file_is_dir(const struct cd_root *r, const char *path)
{
	struct stat st;

	return file_stat(r, path, &st) == 0 && S_ISDIR(st.st_mode);
}

int file_is_reg(const struct cd_root *r, const char *path)
{
	struct stat st;

	return file_stat(r, path, &st) == 0 && S_ISREG(st.st_mode);
}

int file_read(const struct cd_root *r, const char *path, size_t max, struct cd_buf *out,
	      struct cd_err *err)
{
	char host[PATH_MAX];
	char chunk[16384];
	struct stat st;
	int fd, rc = 0;
	ssize_t got;

	if (root_host_path(r, path, host, sizeof(host)))
		return err_set(err, CD_ENOENT, "%s: path cannot be resolved", path);
	fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return err_set(err, errno == ENOENT ? CD_ENOENT : CD_EIO, "%s: %s", path,
			       strerror(errno));
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		rc = err_set(err, CD_EIO, "%s: not a regular file", path);
		goto out;
	}
	if (out->max == 0 || out->max > max)
		out->max = max;
	for (;;) {
		got = read(fd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = err_set(err, CD_EIO, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		if (buf_append(out, chunk, (size_t)got)) {
			rc = err_set(err, CD_ENOMEM, "%s: larger than %zu bytes", path, max);
			goto out;
		}
	}
	if (!out->p && (rc = buf_reserve(out, 0)) == 0)
		out->p[0] = '\0'; /* an empty file is an empty string */
out:
	close(fd);
	return rc;
}

int file_realpath(const struct cd_root *r, const char *path, char *out, size_t cap)
{
	char host[PATH_MAX], real[PATH_MAX];
	struct stat st;
	int rc;

	if (r->is_host) {
		if (!realpath(path, real))
			return CD_ENOENT;
		return str_copy(out, cap, real) >= cap ? CD_ERANGE : 0;
	}
	rc = walk(r, path, real, sizeof(real));
	if (rc)
		return rc;
	if (snprintf(host, sizeof(host), "%s%s", r->dir, real) >= (int)sizeof(host))
		return CD_ERANGE;
	if (stat(host, &st) != 0)
		return CD_ENOENT;
	return str_copy(out, cap, real) >= cap ? CD_ERANGE : 0;
}

DIR *file_opendir(const struct cd_root *r, const char *path)
{
	char host[PATH_MAX];

	if (root_host_path(r, path, host, sizeof(host)))
		return NULL;
	return opendir(host);
}

int file_readlink(const struct cd_root *r, const char *path, char *out, size_t cap)
{
	char host[PATH_MAX];
	ssize_t n;
	int rc;

	if ((rc = root_entry_path(r, path, host, sizeof(host))))
		return rc;
	if (cap == 0)
		return CD_ERANGE;
	n = readlink(host, out, cap - 1);
	if (n < 0)
		return CD_ENOENT;
	out[n] = '\0';
	return 0;
}
