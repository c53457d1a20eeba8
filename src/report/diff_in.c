/* diff_in: see diff_in.h. */
#include "report/diff_in.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "core/vec.h"

#define CHUNK	     ((size_t)64 << 10)
#define DIR_MAX	     1000000 /* entries of one directory */
#define NAME_MAX_LEN 4096

static int bad(struct diff *d, const char *source, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct diff *d, const char *source, const char *fmt, ...)
{
	char msg[CD_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diff_add_bad(d, source, msg);
}

/* Bytes of one whole report: the head first, then (when needed) all. */
static int take(struct diff *d, const uint8_t *p, size_t n, const char *source, int verify)
{
	struct fleetrep_head h;
	struct cd_err err = {0};
	json_t *j;
	int rc;

	if (!verify && !fleetrep_head(p, n, &h)) {
		if (h.has_schema && fleetrep_schema_ok(h.schema, &err))
			return diff_add_bad(d, source, err.msg);
		rc = diff_add_known(d, &h, source);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	if (fleetrep_parse(p, n, &j, &err))
		return diff_add_bad(d, source, err.msg);
	rc = diff_add_report(d, j, source);
	json_decref(j);
	return rc;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int read_stream(struct diff *d, int fd, const char *name, int verify);

static int read_file(struct diff *d, const char *path, int verify)
{
	uint8_t head[FLEETREP_HEAD_MAX], *all = NULL;
	struct fleetrep_head h;
	struct stat st;
	size_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return bad(d, path, "%s", strerror(errno));
	if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		rc = bad(d, path, "%s", S_ISDIR(st.st_mode) ? "a directory" : strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) { /* a pipe or FIFO: reports one after another */
		rc = read_stream(d, fd, path, verify);
		goto out;
	}
	if ((uint64_t)st.st_size > DIFF_REPORT_MAX) {
		rc = bad(d, path, "%.1f MiB: larger than %zu MiB, not read",
			 (double)st.st_size / 1048576.0, DIFF_REPORT_MAX >> 20);
		goto out;
	}
	n = (size_t)st.st_size;
	if (!n) {
		rc = bad(d, path, "empty file");
		goto out;
	}
	/* The head alone answers for a report seen before. */
	if (!verify && read_all(fd, head, n < sizeof(head) ? n : sizeof(head)) == 0 &&
	    !fleetrep_head(head, n < sizeof(head) ? n : sizeof(head), &h) && h.has_schema &&
	    !fleetrep_schema_ok(h.schema, NULL) && (rc = diff_add_known(d, &h, path)) != 0) {
		rc = rc < 0 ? rc : 0;
		goto out;
	}
	all = malloc(n);
	if (!all) {
		rc = CD_ENOMEM;
		goto out;
	}
	if (lseek(fd, 0, SEEK_SET) || read_all(fd, all, n))
		rc = bad(d, path, "read: %s", errno ? strerror(errno) : "the file shrank");
	else
		rc = take(d, all, n, path, 1);
out:
	free(all);
	close(fd);
	return rc;
}

/* One report of a stream being read. */
struct stream_obj {
	struct cd_buf b;
	size_t index; /* 1-based, in the stream */
	int oversize; /* past the cap: scanned, not kept */
	int known;    /* its head named a fingerprint already seen */
	struct fleetrep_head h;
};

static void obj_source(const char *name, size_t index, char *out, size_t cap)
{
	snprintf(out, cap, "%s:%zu", name, index);
}

/* The object's bytes so far: keep them, or, once the head is in and known,
 * only count the rest. */
static int obj_feed(struct stream_obj *o, const uint8_t *p, size_t n)
{
	if (o->oversize || o->known)
		return 0;
	if (o->b.len + n > DIFF_REPORT_MAX) {
		o->oversize = 1;
		buf_free(&o->b);
		return 0;
	}
	if (buf_append(&o->b, p, n))
		return CD_ENOMEM;
	return 0;
}

static int obj_end(struct diff *d, struct stream_obj *o, const char *name, int verify)
{
	char src[NAME_MAX_LEN + 32];
	int rc;

	obj_source(name, o->index, src, sizeof(src));
	if (o->oversize)
		rc = bad(d, src, "larger than %zu MiB, not read", DIFF_REPORT_MAX >> 20);
	else if (o->known)
		rc = diff_add_known(d, &o->h, src) < 0 ? CD_ENOMEM : 0;
	else
		rc = take(d, (const uint8_t *)o->b.p, o->b.len, src, verify);
	buf_free(&o->b);
	o->oversize = o->known = 0;
	return rc;
}

/* After FLEETREP_HEAD_MAX bytes of a report: is it one seen before? */
static void obj_check_head(struct diff *d, struct stream_obj *o, int verify)
{
	if (verify || o->known || o->oversize || o->b.len < FLEETREP_HEAD_MAX)
		return;
	if (fleetrep_head((const uint8_t *)o->b.p, o->b.len, &o->h) || !o->h.complete ||
	    !o->h.has_schema || fleetrep_schema_ok(o->h.schema, NULL))
		return;
	if (diff_group_of(d, o->h.fingerprint)) {
		o->known = 1;
		buf_free(&o->b);
	}
}

static int read_stream(struct diff *d, int fd, const char *name, int verify)
{
	struct fleetrep_split s;
	struct stream_obj o;
	uint8_t *chunk = malloc(CHUNK);
	int rc = 0, stray = 0;

	if (!chunk)
		return CD_ENOMEM;
	memset(&o, 0, sizeof(o));
	buf_init(&o.b, DIFF_REPORT_MAX);
	fleetrep_split_init(&s);
	for (;;) {
		ssize_t r = read(fd, chunk, CHUNK);
		size_t pos = 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = bad(d, name, "read: %s", strerror(errno));
			break;
		}
		if (r == 0)
			break;
		while (!rc && pos < (size_t)r) {
			int was_inside = fleetrep_split_inside(&s);
			size_t used, start = pos;
			int ev = fleetrep_split_feed(&s, chunk + pos, (size_t)r - pos, &used);
			pos += used;
			if (ev == FLEETREP_BYTE) {
				if (!stray)
					rc = bad(d, name,
						 "byte %llu: not the start of a JSON object",
						 (unsigned long long)s.offset);
				stray = 1;
				continue;
			}
			if (!was_inside) { /* a report starts here, after white space */
				while (start < pos && strchr(" \t\r\n", chunk[start]))
					start++;
				if (start == pos)
					continue;
				o.index++;
				stray = 0;
			}
			rc = obj_feed(&o, chunk + start, pos - start);
			obj_check_head(d, &o, verify);
			if (!rc && ev == FLEETREP_END)
				rc = obj_end(d, &o, name, verify);
		}
		if (rc)
			break;
	}
	if (!rc && fleetrep_split_inside(&s)) {
		char src[NAME_MAX_LEN + 32];
		obj_source(name, o.index, src, sizeof(src));
		rc = bad(d, src, "truncated JSON (the stream ended inside this report)");
	}
	buf_free(&o.b);
	free(chunk);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of a directory, in name order. */
static int read_dir(struct diff *d, const char *path, int verify)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	char **names = NULL, full[NAME_MAX_LEN];
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (!dir)
		return bad(d, path, "%s", strerror(errno));
	while ((e = readdir(dir)) && n < DIR_MAX) {
		char **grown;
		if (e->d_name[0] == '.' || !str_has_suffix(e->d_name, ".json"))
			continue;
		grown = vec_grow(NULL, names, &cap, n, sizeof(*names), 256, DIR_MAX);
		if (!grown) {
			rc = CD_ENOMEM;
			break;
		}
		names = grown;
		names[n] = strdup(e->d_name);
		if (!names[n++]) {
			rc = CD_ENOMEM;
			break;
		}
	}
	closedir(dir);
	if (!rc && n)
		qsort(names, n, sizeof(*names), cmp_name);
	if (!rc && !n)
		rc = bad(d, path, "no *.json report in this directory");
	for (i = 0; i < n; i++) {
		if (!rc && !fsu_join(full, sizeof(full), path, names[i]))
			rc = read_file(d, full, verify);
		free(names[i]);
	}
	free(names);
	return rc;
}

int diff_read_arg(struct diff *d, const char *arg, int verify)
{
	struct stat st;

	if (!strcmp(arg, "-"))
		return read_stream(d, STDIN_FILENO, "stdin", verify);
	if (stat(arg, &st))
		return bad(d, arg, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return read_dir(d, arg, verify);
	return read_file(d, arg, verify);
}
