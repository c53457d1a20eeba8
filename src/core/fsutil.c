/* fsutil: see fsutil.h. */
#include "core/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/err.h"
#include "core/str.h"
#include "core/vec.h"

int fsu_open(const struct cd_root *r, const char *path)
{
	char host[PATH_MAX];
	struct stat st;
	int fd;

	if (root_host_path(r, path, host, sizeof(host)))
		return CD_ENOENT;
	fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? CD_ENOENT : CD_EIO;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return CD_EIO;
	}
	return fd;
}

int fsu_read_head(const struct cd_root *r, const char *path, void *buf, size_t cap, size_t *n)
{
	int fd = fsu_open(r, path);
	size_t got = 0;

	*n = 0;
	if (fd < 0)
		return fd;
	while (got < cap) {
		ssize_t k = read(fd, (char *)buf + got, cap - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			close(fd);
			return CD_EIO;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	*n = got;
	return 0;
}

int fsu_is_exec(const struct cd_root *r, const char *path)
{
	struct stat st;

	return file_stat(r, path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* The rules of the join: how much of dir to keep, and the separator. */
static size_t join_dir(const char *dir, const char **sep)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	*sep = n == 0 || (n == 1 && dir[0] == '/') ? "" : "/";
	return n;
}

int fsu_join(char *out, size_t cap, const char *dir, const char *name)
{
	const char *sep;
	size_t n = join_dir(dir, &sep);
	int k = snprintf(out, cap, "%.*s%s%s", (int)n, dir, sep, name);

	return k < 0 || (size_t)k >= cap ? CD_ERANGE : 0;
}

/* Copied, not printed: joins run for every file a probe looks at. */
const char *fsu_path(struct cd_arena *a, const char *dir, const char *name)
{
	const char *sep;
	size_t n, s, m;
	char *p;

	if (!dir || !name)
		return NULL;
	n = join_dir(dir, &sep);
	s = strlen(sep);
	m = strlen(name);
	if (m >= SIZE_MAX - n - s)
		return NULL;
	p = arena_alloc(a, n + s + m + 1);
	if (!p)
		return NULL;
	memcpy(p, dir, n);
	memcpy(p + n, sep, s);
	memcpy(p + n + s, name, m + 1);
	return p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **fsu_list(struct cd_arena *a, const struct cd_root *r, const char *dir,
		      const char *prefix, const char *suffix, size_t max, size_t *n, int *truncated)
{
	DIR *d = file_opendir(r, dir);
	const char **v = NULL, **g;
	struct dirent *e;
	size_t scanned = 0, cap = 0;

	*n = 0;
	*truncated = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		if (++scanned > FSU_SCAN_MAX) {
			*truncated = 1;
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if ((prefix && !str_has_prefix(e->d_name, prefix)) ||
		    (suffix && !str_has_suffix(e->d_name, suffix)))
			continue;
		if (*n >= max) {
			*truncated = 1;
			continue;
		}
		/* The array grows with the directory: most hold a handful of names. */
		g = vec_grow(a, v, &cap, *n, sizeof(*v), 16, max);
		if (!g)
			break;
		v = g;
		v[*n] = arena_strdup(a, e->d_name);
		if (v[*n])
			(*n)++;
	}
	closedir(d);
	if (!v) /* readable and empty: an empty list, not an unknown one */
		return arena_calloc(a, 1, sizeof(*v));
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}
