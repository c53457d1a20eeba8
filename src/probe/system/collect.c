/* collect: see collect.h. */
#include "probe/system/collect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/opts.h"
#include "core/str.h"
#include "format/dpkgst.h"
#include "probe/isolate.h"

#define KLOG_READ_ALL	 3  /* SYSLOG_ACTION_READ_ALL, syslog(2) */
#define KLOG_SIZE_BUFFER 10 /* SYSLOG_ACTION_SIZE_BUFFER */

static const char *const klog_files[] = {"/var/log/kern.log", "/var/log/messages",
					 "/var/log/syslog", "/var/log/dmesg"};

static void init(struct col_text *t, size_t max)
{
	memset(t, 0, sizeof(*t));
	buf_init(&t->text, max);
}

void col_text_free(struct col_text *t)
{
	if (t)
		buf_free(&t->text);
}

static int timeout_ms(const struct cd_facts *f)
{
	return f->opts && f->opts->timeout_ms > 0 ? f->opts->timeout_ms : CD_TIMEOUT_DEFAULT_MS;
}

void col_nvidia_smi(const struct cd_facts *f, struct col_text *out)
{
	char prog[] = "nvidia-smi", flag[] = "-q";
	char *argv[] = {prog, flag, NULL};
	struct iso_job j = {.argv = argv};
	int ms = timeout_ms(f);

	init(out, COL_SMI_MAX);
	if (!f->root.is_host) {
		str_copy(out->status, sizeof(out->status), "not run: --root names an image");
		return;
	}
	if (isolate_run(&j, 1, ms, COL_SMI_MAX, NULL) || j.status == ISO_NOT_RUN) {
		snprintf(out->status, sizeof(out->status), "not run: %s", j.error);
	} else if (j.status == ISO_EXITED && j.code == 127) {
		str_copy(out->status, sizeof(out->status), "absent: no nvidia-smi on PATH");
	} else {
		out->text = j.out;
		buf_init(&j.out, 0);
		out->present = out->text.len > 0;
		if (j.status == ISO_OK)
			snprintf(out->status, sizeof(out->status), "nvidia-smi -q");
		else if (j.status == ISO_TIMEOUT)
			snprintf(out->status, sizeof(out->status),
				 "nvidia-smi -q timed out after %.1f s (--timeout); its output so "
				 "far",
				 ms / 1000.0);
		else if (j.status == ISO_CRASHED)
			snprintf(out->status, sizeof(out->status),
				 "nvidia-smi -q killed by signal %d", j.code);
		else
			snprintf(out->status, sizeof(out->status), "nvidia-smi -q exited with %d",
				 j.code);
		if (j.dropped)
			snprintf(out->status + strlen(out->status),
				 sizeof(out->status) - strlen(out->status),
				 "; %zu bytes past %zu MiB left out", j.dropped, COL_SMI_MAX >> 20);
	}
	iso_job_free(&j);
}

void col_proc_version(const struct cd_facts *f, struct col_text *out)
{
	static const char path[] = "/proc/driver/nvidia/version";
	struct cd_err err = {0};
	int rc;

	init(out, 64 << 10);
	rc = file_read(&f->root, path, 64 << 10, &out->text, &err);
	out->present = !rc && out->text.len > 0;
	if (rc == CD_ENOENT || (!rc && !out->present))
		snprintf(out->status, sizeof(out->status),
			 "%s absent (no nvidia kernel module loaded)", path);
	else if (rc)
		snprintf(out->status, sizeof(out->status), "%s: %.200s", path, err.msg);
	else
		str_copy(out->status, sizeof(out->status), path);
}

static int wanted(const char *line, size_t n)
{
	return memmem(line, n, "NVRM", 4) || memmem(line, n, "Xid", 3);
}

/* The last COL_KLOG_LINES lines of p[0..n) that name NVRM or Xid into out. */
static size_t keep_lines(const char *p, size_t n, struct cd_buf *out)
{
	size_t total = 0, skip, off, kept = 0;

	for (off = 0; off < n;) {
		const char *nl = memchr(p + off, '\n', n - off);
		size_t len = nl ? (size_t)(nl - (p + off)) : n - off;
		total += (size_t)wanted(p + off, len);
		off += len + 1;
	}
	skip = total > COL_KLOG_LINES ? total - COL_KLOG_LINES : 0;
	for (off = 0; off < n;) {
		const char *nl = memchr(p + off, '\n', n - off);
		size_t len = nl ? (size_t)(nl - (p + off)) : n - off;
		if (wanted(p + off, len) && !(skip && skip--)) {
			if (buf_append(out, p + off, len) || buf_putc(out, '\n'))
				break;
			kept++;
		}
		off += len + 1;
	}
	return kept;
}

/* The kernel's ring buffer (syslog(2); EPERM without CAP_SYSLOG when
 * kernel.dmesg_restrict is set): 0, or errno. */
static int ring_buffer(struct col_text *out)
{
	struct cd_buf raw;
	int size = klogctl(KLOG_SIZE_BUFFER, NULL, 0), n, e;
	size_t kept;

	if (size <= 0)
		return size < 0 ? errno : ENODATA;
	buf_init(&raw, (size_t)size + 1);
	if (buf_reserve(&raw, (size_t)size)) {
		buf_free(&raw);
		return ENOMEM;
	}
	n = klogctl(KLOG_READ_ALL, raw.p, size);
	e = errno;
	if (n < 0) {
		buf_free(&raw);
		return e;
	}
	kept = keep_lines(raw.p, (size_t)n, &out->text);
	snprintf(out->status, sizeof(out->status), "the kernel ring buffer: %zu NVRM/Xid lines",
		 kept);
	buf_free(&raw);
	return 0;
}

/* The last COL_KLOG_TAIL bytes of a syslog file: 0, or errno. */
static int tail_file(const struct cd_facts *f, const char *path, struct cd_buf *raw)
{
	char host[PATH_MAX];
	struct stat st;
	off_t from;
	int fd, e = 0;

	if (root_host_path(&f->root, path, host, sizeof(host)))
		return ENAMETOOLONG;
	fd = open(host, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return EINVAL;
	}
	from = st.st_size > (off_t)COL_KLOG_TAIL ? st.st_size - (off_t)COL_KLOG_TAIL : 0;
	buf_init(raw, COL_KLOG_TAIL + 1);
	if (lseek(fd, from, SEEK_SET) < 0 || buf_reserve(raw, COL_KLOG_TAIL))
		e = EIO;
	while (!e && raw->len < COL_KLOG_TAIL) {
		ssize_t k = read(fd, raw->p + raw->len, COL_KLOG_TAIL - raw->len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			e = errno;
		if (k <= 0)
			break;
		raw->len += (size_t)k;
	}
	close(fd);
	if (!e && from > 0 && raw->len) { /* the first line began before the tail: it goes */
		char *nl = memchr(raw->p, '\n', raw->len);
		size_t cut = nl ? (size_t)(nl - raw->p) + 1 : raw->len;
		memmove(raw->p, raw->p + cut, raw->len - cut);
		raw->len -= cut;
		raw->p[raw->len] = '\0';
	}
	return e;
}

static void why(struct col_text *out, const char *what, int e)
{
	size_t n = strlen(out->status);

	snprintf(out->status + n, sizeof(out->status) - n, "%s%s: %s", n ? "; " : "", what,
		 strerror(e));
}

void col_kernel_log(const struct cd_facts *f, struct col_text *out)
{
	struct cd_buf raw;
	size_t i, kept;
	int e = 0;

	init(out, (size_t)1 << 20);
	if (f->root.is_host && !(e = ring_buffer(out))) {
		out->present = out->text.len > 0;
		return;
	}
	if (f->root.is_host)
		why(out, "the kernel ring buffer", e);
	for (i = 0; i < sizeof(klog_files) / sizeof(klog_files[0]); i++) {
		e = tail_file(f, klog_files[i], &raw);
		if (!e) {
			kept = keep_lines(raw.p ? raw.p : "", raw.len, &out->text);
			buf_free(&raw);
			snprintf(out->status, sizeof(out->status), "%s: %zu NVRM/Xid lines",
				 klog_files[i], kept);
			out->present = out->text.len > 0;
			return;
		}
		buf_free(&raw);
		if (e != ENOENT)
			why(out, klog_files[i], e);
	}
	if (!out->status[0])
		str_copy(out->status, sizeof(out->status), "no kernel log found");
}

static void dpkg_line(void *ctx, const char *name, const char *arch, const char *version)
{
	struct cd_buf *b = ctx;

	/* past the cap the listing stops: an append is whole or not at all */
	(void)!buf_printf(b, "%s\t%s\t%s\n", name, *arch ? arch : "-", version);
}

void col_dpkg(const struct cd_facts *f, struct col_text *out)
{
	static const char path[] = "/var/lib/dpkg/status";
	struct cd_buf raw;
	struct cd_err err = {0};
	int rc, n;

	init(out, (size_t)8 << 20);
	buf_init(&raw, DPKGST_MAX);
	rc = file_read(&f->root, path, DPKGST_MAX, &raw, &err);
	if (rc == CD_ENOENT)
		snprintf(out->status, sizeof(out->status), "%s absent (no dpkg)", path);
	else if (rc)
		snprintf(out->status, sizeof(out->status), "%s: %.200s", path, err.msg);
	if (rc) {
		buf_free(&raw);
		return;
	}
	n = dpkgst_each((const uint8_t *)(raw.p ? raw.p : ""), raw.len, dpkg_line, &out->text);
	snprintf(out->status, sizeof(out->status), "%s: %d installed packages", path, n);
	out->present = out->text.len > 0;
	buf_free(&raw);
}
