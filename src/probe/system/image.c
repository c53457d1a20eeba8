/* image: what an image under --root brings that decides whether it runs on
 * this host's driver (check --host-driver, --image-config): the toolkit's
 * variables of its configuration, driver libraries (libcuda.so.*) on its
 * loader's path, cuda-compat's libcuda under /usr/local/cuda*\/compat, and
 * whether a compat directory is put on the loader's path by LD_LIBRARY_PATH
 * or /etc/ld.so.conf.d. Read under the root only; nothing is loaded. */
#include <dirent.h>
#include <string.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/opts.h"
#include "core/str.h"
#include "probe/system/system.h"

#define CONF_MAX ((size_t)64 << 10)
#define DIRS_MAX 48

struct dirs {
	size_t n;
	const char *d[DIRS_MAX];
	const char *why[DIRS_MAX];
};

static void dirs_add(struct dirs *ds, const char *d, const char *why)
{
	size_t i;

	if (!d || d[0] != '/' || ds->n == DIRS_MAX)
		return;
	for (i = 0; i < ds->n; i++)
		if (!strcmp(ds->d[i], d))
			return;
	ds->d[ds->n] = d;
	ds->why[ds->n++] = why;
}

static int is_compat_dir(const char *d)
{
	return str_has_prefix(d, "/usr/local/cuda") &&
	       (str_has_suffix(d, "/compat") || strstr(d, "/compat/") != NULL);
}

/* "libcuda.so.535.104.05" -> "535.104.05"; NULL for libcuda.so, .so.1 and
 * a link that resolves to another name. */
static const char *version_of(struct cd_arena *a, const char *name)
{
	const char *v;

	if (!str_has_prefix(name, "libcuda.so."))
		return NULL;
	v = name + strlen("libcuda.so.");
	return strchr(v, '.') ? arena_strdup(a, v) : NULL;
}

static void vars(struct cd_facts *f)
{
	static const char *const names[] = {"CUDA_VERSION", "NVIDIA_DISABLE_REQUIRE",
					    "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_VISIBLE_DEVICES"};
	char *const *e;
	size_t i;

	for (e = f->opts->envp; e && *e && f->image.n_vars < CD_IMAGE_VARS_MAX; e++) {
		const char *eq = strchr(*e, '=');
		int take = eq && str_has_prefix(*e, "NVIDIA_REQUIRE_");
		for (i = 0; eq && !take && i < sizeof(names) / sizeof(names[0]); i++)
			take = (size_t)(eq - *e) == strlen(names[i]) &&
			       !strncmp(*e, names[i], strlen(names[i]));
		if (!take)
			continue;
		f->image.vars[f->image.n_vars].name =
			arena_strndup(&f->arena, *e, (size_t)(eq - *e));
		f->image.vars[f->image.n_vars++].value = arena_strdup(&f->arena, eq + 1);
	}
}

/* The directories an ld.so.conf.d file lists; the first compat one is noted. */
static void conf_dirs(struct cd_facts *f, struct dirs *ds)
{
	DIR *d = file_opendir(&f->root, "/etc/ld.so.conf.d");
	struct dirent *de;
	size_t files = 0;

	while (d && (de = readdir(d)) && files < 64) {
		const char *path;
		struct cd_buf b;
		if (!str_has_suffix(de->d_name, ".conf"))
			continue;
		files++;
		path = fsu_path(&f->arena, "/etc/ld.so.conf.d", de->d_name);
		buf_init(&b, CONF_MAX);
		if (path && file_read(&f->root, path, CONF_MAX, &b, NULL) == 0 && b.p) {
			char *line = b.p, *end = b.p + b.len;
			while (line < end) {
				char *nl = memchr(line, '\n', (size_t)(end - line)), *next;
				size_t k;
				next = nl ? nl + 1 : end;
				if (nl)
					*nl = 0;
				k = strcspn(line, "#\r");
				while (k && (line[k - 1] == ' ' || line[k - 1] == '\t'))
					k--;
				line[k] = 0;
				while (*line == ' ' || *line == '\t')
					line++;
				if (*line == '/') {
					if (is_compat_dir(line) && !f->image.compat_forced) {
						f->image.compat_forced =
							arena_strdup(&f->arena, line);
						f->image.compat_forced_by = path;
					}
					dirs_add(ds, arena_strdup(&f->arena, line), path);
				}
				line = next;
			}
		}
		buf_free(&b);
	}
	if (d)
		closedir(d);
}

static void ld_library_path(struct cd_facts *f, struct dirs *ds)
{
	const char *v = f->image.config ? facts_getenv(f, "LD_LIBRARY_PATH") : NULL;
	const char *p = v;

	while (p && *p) {
		size_t k = strcspn(p, ":");
		char *d = arena_strndup(&f->arena, p, k);
		if (d && is_compat_dir(d) && !f->image.compat_forced) {
			f->image.compat_forced = d;
			f->image.compat_forced_by = "LD_LIBRARY_PATH";
		}
		dirs_add(ds, d, "LD_LIBRARY_PATH");
		p += k;
		if (*p == ':')
			p++;
	}
}

static void add_lib(struct cd_facts *f, struct cd_image_lib *list, size_t *n, const char *dir,
		    const char *name)
{
	char real[PATH_MAX];
	const char *path = fsu_path(&f->arena, dir, name);
	size_t i;

	if (!path || *n == CD_IMAGE_LIBS_MAX || !file_is_reg(&f->root, path))
		return;
	if (file_realpath(&f->root, path, real, sizeof(real)) == 0)
		path = arena_strdup(&f->arena, real);
	/* libcuda.so linked to the toolkit's stub is the link-time name a build
	 * uses; the loader asks for libcuda.so.1 and never loads it. */
	if (path && !strcmp(name, "libcuda.so") && strstr(path, "/stubs/"))
		return;
	for (i = 0; path && i < *n; i++)
		if (!strcmp(list[i].path, path))
			return;
	if (!path)
		return;
	list[*n].path = path;
	list[(*n)++].version = version_of(&f->arena, strrchr(path, '/') + 1);
}

/* libcuda.so* in a directory, versioned names first (the files links name). */
static void scan(struct cd_facts *f, const char *dir, struct cd_image_lib *list, size_t *n)
{
	DIR *d = file_opendir(&f->root, dir);
	struct dirent *de;
	size_t seen = 0;

	while (d && (de = readdir(d)) && seen < 100000) {
		seen++;
		if (str_has_prefix(de->d_name, "libcuda.so.") || !strcmp(de->d_name, "libcuda.so"))
			add_lib(f, list, n, dir, de->d_name);
	}
	if (d)
		closedir(d);
}

static void compat(struct cd_facts *f)
{
	DIR *d = file_opendir(&f->root, "/usr/local");
	struct dirent *de;
	size_t seen = 0;

	while (d && (de = readdir(d)) && seen < 4096) {
		const char *dir;
		seen++;
		if (str_has_prefix(de->d_name, "cuda") &&
		    (dir = fsu_path(&f->arena, fsu_path(&f->arena, "/usr/local", de->d_name),
				    "compat")))
			scan(f, dir, f->image.compat, &f->image.n_compat);
	}
	if (d)
		closedir(d);
}

void image_probe(struct cd_facts *f)
{
	/* Where the loader of a container of this image looks (ld.so(8)): the
	 * trusted directories and the multiarch ones ld.so.conf lists. */
	static const char *const sys[] = {"/lib",
					  "/lib64",
					  "/usr/lib",
					  "/usr/lib64",
					  "/lib/x86_64-linux-gnu",
					  "/usr/lib/x86_64-linux-gnu",
					  "/lib/aarch64-linux-gnu",
					  "/usr/lib/aarch64-linux-gnu",
					  "/usr/local/lib",
					  "/usr/local/nvidia/lib64"};
	struct dirs ds;
	size_t i;

	if (!f->opts || f->root.is_host || (!f->opts->host_driver && !f->opts->image_config))
		return;
	memset(&ds, 0, sizeof(ds));
	f->image.probed = 1;
	f->image.host_driver = f->opts->host_driver;
	f->image.config = f->opts->image_config;
	if (f->image.config)
		vars(f);
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		dirs_add(&ds, sys[i], "the loader's default directories");
	conf_dirs(f, &ds);
	ld_library_path(f, &ds);
	for (i = 0; i < ds.n; i++)
		if (!strstr(ds.d[i], "/stubs") && !is_compat_dir(ds.d[i]))
			scan(f, ds.d[i], f->image.libcuda, &f->image.n_libcuda);
	compat(f);
}
