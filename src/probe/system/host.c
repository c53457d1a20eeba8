/* host: the operating system under the root: os-release, kernel, machine
 * architecture, glibc version, hostname, NVIDIA device nodes, /dev/shm.
 * On the real root the kernel, architecture, glibc and /dev/shm come from
 * the running system (uname, gnu_get_libc_version, statvfs); under --root
 * only from files, and the C library is read as bytes, never loaded. */
#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/str.h"
#include "format/libcver.h"
#include "format/osrel.h"
#include "core/fsutil.h"
#include "probe/system/system.h"

#define DEV_NODES_MAX 256
#define LIBC_SCAN_MAX ((size_t)16 << 20) /* libc.so.6 is ~2 MiB; stop well past */
#define LIBC_CHUNK    ((size_t)256 << 10)

/* Where a C library lives, multiarch directories first (Debian, Ubuntu),
 * then the RPM and musl-less layouts. */
static const char *const libc_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu",
	"/lib/powerpc64le-linux-gnu",
	"/usr/lib/powerpc64le-linux-gnu",
	"/lib/s390x-linux-gnu",
	"/usr/lib/s390x-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
};

static void os_release(struct cd_facts *f)
{
	static const char *const files[] = {"/etc/os-release", "/usr/lib/os-release"};
	struct cd_host_facts *h = &f->host;
	struct cd_buf b;
	char v[256];
	size_t i;

	for (i = 0; i < 2; i++) {
		buf_init(&b, 0);
		if (file_read(&f->root, files[i], OSREL_MAX_BYTES, &b, NULL) == 0) {
			const uint8_t *p = (const uint8_t *)b.p;
			if (osrel_get(p, b.len, "ID", v, sizeof(v)) == 0 && *v)
				h->os_id = arena_strdup(&f->arena, v);
			if (osrel_get(p, b.len, "VERSION_ID", v, sizeof(v)) == 0 && *v)
				h->os_version = arena_strdup(&f->arena, v);
			if (osrel_get(p, b.len, "PRETTY_NAME", v, sizeof(v)) == 0 && *v)
				h->os_pretty = arena_strdup(&f->arena, v);
			buf_free(&b);
			return; /* os-release(5): the first file that exists is used */
		}
		buf_free(&b);
	}
}

/* A one-line /proc or /etc file, trimmed; NULL if missing or empty. */
static const char *read_line_file(struct cd_facts *f, const char *path, size_t max)
{
	struct cd_buf b;
	const char *s = NULL;
	char *nl;

	buf_init(&b, 0);
	if (file_read(&f->root, path, max, &b, NULL) == 0 && b.p) {
		nl = memchr(b.p, '\n', b.len);
		if (nl)
			*nl = '\0';
		str_trim(b.p);
		if (*b.p && strlen(b.p) == strnlen(b.p, b.len))
			s = arena_strdup(&f->arena, b.p);
	}
	buf_free(&b);
	return s;
}

/* Find the root's libc.so.6; *path gets its in-root path. */
static int find_libc(struct cd_facts *f, char *path, size_t cap)
{
	size_t i;

	for (i = 0; i < sizeof(libc_dirs) / sizeof(libc_dirs[0]); i++)
		if (fsu_join(path, cap, libc_dirs[i], "libc.so.6") == 0 &&
		    file_is_reg(&f->root, path))
			return 0;
	return CD_ENOENT;
}

/* glibc version of a libc.so.6 read as bytes: the versioned file name a
 * link points to (glibc < 2.34), else the banner in its .rodata. */
static const char *libc_version(struct cd_facts *f, const char *path)
{
	char link[PATH_MAX], v[32];
	const char *base;
	uint8_t *chunk;
	size_t off = 0, keep = 0;
	int fd;
	const char *res = NULL;

	if (file_readlink(&f->root, path, link, sizeof(link)) == 0) {
		base = strrchr(link, '/');
		if (libcver_from_name(base ? base + 1 : link, v, sizeof(v)) == 0)
			return arena_strdup(&f->arena, v);
	}
	fd = fsu_open(&f->root, path);
	if (fd < 0)
		return NULL;
	chunk = malloc(LIBC_CHUNK + LIBCVER_OVERLAP);
	while (chunk && off < LIBC_SCAN_MAX) {
		ssize_t k = read(fd, chunk + keep, LIBC_CHUNK);
		size_t total;

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		total = keep + (size_t)k;
		if (libcver_scan(chunk, total, v, sizeof(v)) == 0) {
			res = arena_strdup(&f->arena, v);
			break;
		}
		off += (size_t)k;
		/* Keep the tail so a banner split across two reads is still seen. */
		keep = total < LIBCVER_OVERLAP ? total : LIBCVER_OVERLAP;
		memmove(chunk, chunk + total - keep, keep);
	}
	free(chunk);
	close(fd);
	return res;
}

static void arch_and_libc(struct cd_facts *f)
{
	struct cd_host_facts *h = &f->host;
	char path[PATH_MAX];
	uint8_t hdr[64];
	const char *arch;
	size_t n;
	int have_libc = find_libc(f, path, sizeof(path)) == 0;

	if (have_libc)
		h->glibc_version = libc_version(f, path);
	/* The ELF header of the C library, else of the shell, names the machine. */
	if ((have_libc && fsu_read_head(&f->root, path, hdr, sizeof(hdr), &n) == 0 &&
	     libcver_elf_arch(hdr, n, &arch) == 0) ||
	    (fsu_read_head(&f->root, "/bin/sh", hdr, sizeof(hdr), &n) == 0 &&
	     libcver_elf_arch(hdr, n, &arch) == 0))
		h->arch = arch;
}

/* /dev/nvidia* nodes. A directory among them (/dev/nvidia-caps, which holds
 * the MIG capability nodes) is listed by its entries, so the list names device
 * nodes only. */
static void dev_nodes(struct cd_facts *f)
{
	struct cd_host_facts *h = &f->host;
	const char **names, **out, **sub;
	size_t n, i, k, m, nout = 0;
	int trunc;
	char dir[PATH_MAX];

	names = fsu_list(&f->arena, &f->root, "/dev", "nvidia", NULL, DEV_NODES_MAX, &n, &trunc);
	if (!names)
		return;
	out = arena_calloc(&f->arena, DEV_NODES_MAX, sizeof(*out));
	if (!out)
		return;
	for (i = 0; i < n && nout < DEV_NODES_MAX; i++) {
		snprintf(dir, sizeof(dir), "/dev/%s", names[i]);
		if (!file_is_dir(&f->root, dir)) {
			out[nout++] = arena_strdup(&f->arena, dir);
			continue;
		}
		sub = fsu_list(&f->arena, &f->root, dir, NULL, NULL, DEV_NODES_MAX, &m, &trunc);
		for (k = 0; sub && k < m && nout < DEV_NODES_MAX; k++)
			out[nout++] = fsu_path(&f->arena, dir, sub[k]);
	}
	h->dev_nodes = out;
	h->n_dev_nodes = nout;
	h->dev_nodes_known = 1;
}

static void live_system(struct cd_facts *f)
{
	struct cd_host_facts *h = &f->host;
	struct utsname u;
	struct statvfs sv;
	char name[HOST_NAME_MAX + 1];

	if (uname(&u) == 0) {
		h->kernel = arena_strdup(&f->arena, u.release);
		h->arch = arena_strdup(&f->arena, u.machine);
	}
	h->glibc_version = arena_strdup(&f->arena, gnu_get_libc_version());
	if (gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		if (*name)
			h->hostname = arena_strdup(&f->arena, name);
	}
	if (statvfs("/dev/shm", &sv) == 0 && sv.f_blocks > 0 &&
	    (uint64_t)sv.f_blocks <= (uint64_t)INT64_MAX / (sv.f_frsize ? sv.f_frsize : 1))
		h->shm_size_bytes = (int64_t)((uint64_t)sv.f_blocks * sv.f_frsize);
}

void host_probe(struct cd_facts *f)
{
	struct cd_host_facts *h = &f->host;

	os_release(f);
	dev_nodes(f);
	if (f->root.is_host) {
		live_system(f);
		return;
	}
	/* An image or a fixture: what its files say, nothing from this machine. */
	h->kernel = read_line_file(f, "/proc/sys/kernel/osrelease", 256);
	h->hostname = read_line_file(f, "/etc/hostname", 256);
	arch_and_libc(f);
}
