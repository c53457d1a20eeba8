/* xcheck: see xcheck.h. The facts model is the source: toolkits, their
 * headers (the inventory, and those the log names, asked for through
 * toolkit_probe_headers) and their versions from the toolkit probe alone;
 * driver, gpus, env.ld_library_path. Still read here, under the facts'
 * root: whether a library file is in a search directory, /usr/bin's gcc-N
 * and the extension cache's entries (no probe records them yet). */
#include "explain/xcheck.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/file.h"
#include "core/fsutil.h"
#include "core/str.h"

#define DIRS_MAX     32
#define DIR_SCAN_MAX 4096 /* entries read from one directory */

struct xc {
	struct xs_result *r;
	const struct cd_facts *f;
	struct xs_diag *d;
};

static void say(struct xc *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct xc *x, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (x->d->n_env >= XS_ENV_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	x->d->env[x->d->n_env] = arena_strdup(&x->r->arena, line);
	if (x->d->env[x->d->n_env])
		x->d->n_env++;
}

/* Symptoms follow from a cause; the cause's lines say what matters. */
static int xc_skipped(const struct xs_result *r, size_t i)
{
	return r->d[i].sig->role == SIG_SYMPTOM && i > 0;
}

static const char *env(const struct cd_facts *f, const char *name)
{
	const char *v = facts_env_var(f, name);
	return v ? v : facts_getenv(f, name);
}

/* ---- toolkits: the toolkit probe's facts -------------------------------- */

/* The probe also lists a CUDA_HOME that names no directory. */
static int tk_on_disk(const struct cd_toolkit *t)
{
	return t->root && t->exists == CD_TRI_YES;
}

static size_t tk_count_on_disk(const struct cd_facts *f)
{
	size_t i, n = 0;

	for (i = 0; i < f->toolkit.n; i++)
		if (tk_on_disk(&f->toolkit.items[i]))
			n++;
	return n;
}

static void say_no_toolkit(struct xc *x)
{
	const char *home = x->f->toolkit.cuda_home;

	if (home)
		say(x,
		    "no CUDA toolkit found: extension builds would use CUDA_HOME=%s, which "
		    "does not exist",
		    home);
	else
		say(x, "no CUDA toolkit found (CUDA_HOME unset, no /usr/local/cuda*)");
}

static const char *target_dir(const struct cd_facts *f)
{
	return f->host.arch && !strcmp(f->host.arch, "aarch64") ? "sbsa-linux" : "x86_64-linux";
}

/* What the probe found for hdr in t: its inventory, else the headers asked
 * for (toolkit_probe_headers with xc_headers' names); NULL if neither. */
static const struct cd_header *header_fact(const struct cd_toolkit *t, const char *hdr)
{
	size_t i;

	for (i = 0; i < t->n_headers; i++)
		if (t->headers[i].name && !strcmp(t->headers[i].name, hdr))
			return &t->headers[i];
	for (i = 0; i < t->n_asked; i++)
		if (t->asked[i].name && !strcmp(t->asked[i].name, hdr))
			return &t->asked[i];
	return NULL;
}

/* Why a copy outside ROOT/include does not count (struct cd_header's scope). */
static const char *scope_note(const char *scope)
{
	if (scope && !strcmp(scope, "targets"))
		return "nvcc searches it, the C++ compiler of an extension build does not";
	return "another wheel's include directory, which no build searches";
}

static void say_header(struct xc *x, const struct cd_toolkit *t, const char *hdr)
{
	const struct cd_header *h = header_fact(t, hdr);
	const char *v = t->version;

	if (!h || h->present == CD_TRI_UNKNOWN)
		return; /* not looked for: nothing to say */
	if (h->present == CD_TRI_YES)
		say(x, "%s is present in %s%s%s%s", hdr, h->path ? h->path : t->root,
		    v ? " (CUDA " : "", v ? v : "", v ? ")" : "");
	else if (h->path)
		say(x, "%s is absent from %s/include%s%s%s; it is at %s (%s)", hdr, t->root,
		    v ? " (CUDA " : "", v ? v : "", v ? ")" : "", h->path, scope_note(h->scope));
	else
		say(x, "%s is absent from %s/include%s%s%s", hdr, t->root, v ? " (CUDA " : "",
		    v ? v : "", v ? ")" : "");
}

static void check_header(struct xc *x, const char *hdr)
{
	const struct cd_toolkit_facts *tf = &x->f->toolkit;
	size_t i;

	if (strstr(hdr, "..") || hdr[0] == '/')
		return;
	if (!tk_count_on_disk(x->f)) {
		say_no_toolkit(x);
		return;
	}
	for (i = 0; i < tf->n; i++)
		if (tk_on_disk(&tf->items[i]))
			say_header(x, &tf->items[i], hdr);
	if (tf->cuda_home)
		say(x, "extension builds use CUDA_HOME=%s", tf->cuda_home);
	else if (env(x->f, "CUDA_HOME"))
		say(x, "CUDA_HOME=%s", env(x->f, "CUDA_HOME"));
}

size_t xc_headers(const struct xs_result *r, const char **names, size_t cap)
{
	size_t i, k, n = 0;

	for (i = 0; i < r->n && n < cap; i++) {
		const char *h = xs_fact(&r->d[i], "header");
		int dup = 0;
		if (!h || xc_skipped(r, i))
			continue;
		for (k = 0; k < n; k++)
			dup |= !strcmp(names[k], h);
		if (!dup)
			names[n++] = h;
	}
	return n;
}

/* ---- libraries ------------------------------------------------------------ */

struct dirs {
	size_t n;
	const char *path[DIRS_MAX];
	int on_llp[DIRS_MAX]; /* from LD_LIBRARY_PATH */
};

static void add_dir(const struct cd_facts *f, struct dirs *ds, const char *p, int llp)
{
	size_t i;

	if (!p || p[0] != '/' || ds->n >= DIRS_MAX || !file_is_dir(&f->root, p))
		return;
	for (i = 0; i < ds->n; i++)
		if (!strcmp(ds->path[i], p))
			return;
	ds->path[ds->n] = p;
	ds->on_llp[ds->n++] = llp;
}

static void lib_dirs(struct xc *x, struct dirs *ds)
{
	const struct cd_facts *f = x->f;
	const char *llp = env(f, "LD_LIBRARY_PATH");
	const char *multi = f->host.arch && !strcmp(f->host.arch, "aarch64") ? "aarch64-linux-gnu"
									     : "x86_64-linux-gnu";
	size_t i;

	if (f->env.n_ld_library_path) {
		for (i = 0; i < f->env.n_ld_library_path; i++)
			add_dir(f, ds, f->env.ld_library_path[i].path, 1);
	} else if (llp) {
		const char *p = llp;
		while (*p) {
			const char *c = strchr(p, ':');
			size_t n = c ? (size_t)(c - p) : strlen(p);
			add_dir(f, ds, arena_strndup(&x->r->arena, p, n), 1);
			p += n + (c ? 1 : 0);
		}
	}
	for (i = 0; i < f->toolkit.n; i++) {
		const char *root = f->toolkit.items[i].root;
		if (!tk_on_disk(&f->toolkit.items[i]))
			continue;
		add_dir(f, ds, fsu_path(&x->r->arena, root, "lib64"), 0);
		add_dir(f, ds, fsu_path(&x->r->arena, root, "lib"), 0);
		add_dir(f, ds, arena_printf(&x->r->arena, "%s/targets/%s/lib", root, target_dir(f)),
			0);
	}
	add_dir(f, ds, arena_printf(&x->r->arena, "/usr/lib/%s", multi), 0);
	add_dir(f, ds, arena_printf(&x->r->arena, "/lib/%s", multi), 0);
	add_dir(f, ds, "/usr/lib64", 0);
	add_dir(f, ds, "/usr/local/lib", 0);
	add_dir(f, ds, "/usr/local/cuda/compat", 0);
	add_dir(f, ds, "/usr/lib/wsl/lib", 0);
}

/* Other files of the same library ("libcudart.so.12" for "libcudart.so.11.0")
 * in dir, appended to out. */
static void siblings(struct xc *x, const char *dir, const char *stem, char *out, size_t cap)
{
	DIR *d = file_opendir(&x->f->root, dir);
	struct dirent *e;
	size_t seen = 0, n = strlen(out), found = 0;

	while (d && (e = readdir(d)) != NULL && seen++ < DIR_SCAN_MAX && found < 4) {
		if (!str_has_prefix(e->d_name, stem) || !strcmp(e->d_name, stem))
			continue;
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s/%s", n ? ", " : "", dir,
				      e->d_name);
		found++;
	}
	if (d)
		closedir(d);
}

static void check_soname(struct xc *x, const char *so)
{
	struct dirs ds = {0};
	char stem[256], others[1024] = "";
	const char *dot = strstr(so, ".so");
	size_t i, hits = 0;
	int llp_hit = 0;

	if (strchr(so, '/') || !dot)
		return;
	str_ncopy(stem, sizeof(stem), so, (size_t)(dot - so) + 3);
	lib_dirs(x, &ds);
	for (i = 0; i < ds.n; i++) {
		const char *p = fsu_path(&x->r->arena, ds.path[i], so);
		if (p && file_exists(&x->f->root, p)) {
			say(x, "%s is present in %s%s", so, ds.path[i],
			    ds.on_llp[i] ? " (on LD_LIBRARY_PATH)" : "");
			hits++;
			llp_hit |= ds.on_llp[i];
		} else {
			siblings(x, ds.path[i], stem, others, sizeof(others));
		}
	}
	if (!hits)
		say(x,
		    "%s is in none of the %zu library directories searched (LD_LIBRARY_PATH, "
		    "toolkits, system)",
		    so, ds.n);
	else if (!llp_hit)
		say(x, "no LD_LIBRARY_PATH directory holds %s", so);
	if (others[0])
		say(x, "other versions: %s", others);
}

static void say_llp(struct xc *x)
{
	const char *llp = env(x->f, "LD_LIBRARY_PATH");
	size_t i;

	if (!llp) {
		say(x, "LD_LIBRARY_PATH is unset");
		return;
	}
	say(x, "LD_LIBRARY_PATH=%s", llp);
	for (i = 0; i < x->f->env.n_ld_library_path; i++) {
		const struct cd_ldpath_entry *e = &x->f->env.ld_library_path[i];
		size_t k;
		char majors[64] = "";
		for (k = 0; k < e->n_majors && k < 4; k++)
			snprintf(majors + strlen(majors), sizeof(majors) - strlen(majors), "%s%lld",
				 k ? "," : "", (long long)e->cuda_majors[k]);
		if (e->n_libs)
			say(x, "  %s holds %zu CUDA libraries (%s%s%s%s)", e->path, e->n_libs,
			    e->libs[0], e->n_libs > 1 ? ", ..." : "", majors[0] ? "; CUDA " : "",
			    majors);
	}
}

/* ---- driver, GPUs, toolkits -------------------------------------------- */

static void say_driver(struct xc *x)
{
	const struct cd_driver_facts *d = &x->f->driver;

	if (d->status == CD_PROBE_OK || d->version || d->cuda_version) {
		say(x, "driver %s supports CUDA %s%s%s",
		    d->version ? d->version : "(version unknown)",
		    d->cuda_version ? d->cuda_version : "(unknown)",
		    d->cuda.path ? "; libcuda: " : "", d->cuda.path ? d->cuda.path : "");
	} else if (d->status == CD_PROBE_NOT_RUN) {
		say(x, "the driver was not queried%s",
		    x->f->root.is_host ? ""
				       : " (--root: give --nvml-lib / --cuda-lib to query one)");
	} else {
		say(x, "driver: %s%s%s", probe_status_name(d->status), d->nvml.error ? ": " : "",
		    d->nvml.error ? d->nvml.error : "");
	}
	if (d->kernel_module_version)
		say(x, "kernel module %s", d->kernel_module_version);
	if (d->cuda.is_stub == CD_TRI_YES)
		say(x, "the libcuda loaded is the toolkit's stub: %s",
		    d->cuda.path ? d->cuda.path : "");
}

/* The CUDA version the log says its driver supports (already X.Y: the
 * scanner writes key facts in their canonical form, explain/keyfact.h). */
static void say_logged_cuda(struct xc *x, const char *v)
{
	if (v && ver_cuda_int(v) > 0)
		say(x, "the log's driver supports CUDA %s", v);
}

static void say_gpus(struct xc *x, int memory)
{
	const struct cd_facts *f = x->f;
	size_t i;

	if (!f->gpus_known) {
		say(x, "GPUs: unknown (no driver answered)");
		return;
	}
	if (!f->n_gpus)
		say(x, "no GPU is visible");
	for (i = 0; i < f->n_gpus && i < 8; i++) {
		const struct cd_gpu *g = &f->gpus[i];
		char tot[32], fr[32];
		str_bytes(tot, sizeof(tot), g->memory_total_bytes);
		str_bytes(fr, sizeof(fr), g->memory_free_bytes);
		if (memory)
			say(x, "GPU %zu: %s, %s total, %s free", i, g->name ? g->name : "(unnamed)",
			    tot, fr);
		else
			say(x, "GPU %zu: %s, compute capability %s", i,
			    g->name ? g->name : "(unnamed)",
			    g->compute_capability ? g->compute_capability : "unknown");
	}
}

static void say_toolkits(struct xc *x)
{
	const struct cd_facts *f = x->f;
	size_t i;

	for (i = 0; i < f->toolkit.n && i < 8; i++) {
		const struct cd_toolkit *t = &f->toolkit.items[i];
		say(x, "toolkit %s: CUDA %s, nvcc %s%s", t->root ? t->root : "?",
		    t->version ? t->version : "unknown", t->nvcc_path ? t->nvcc_path : "absent",
		    (int64_t)i == f->toolkit.selected ? " (used by extension builds)" : "");
	}
	if (!tk_count_on_disk(f))
		say_no_toolkit(x);
	if (env(f, "CUDA_HOME"))
		say(x, "CUDA_HOME=%s", env(f, "CUDA_HOME"));
	else
		say(x, "CUDA_HOME is unset");
}

static void say_compilers(struct xc *x)
{
	DIR *d = file_opendir(&x->f->root, "/usr/bin");
	struct dirent *e;
	char list[512] = "";
	size_t seen = 0, n = 0;

	while (d && (e = readdir(d)) != NULL && seen++ < DIR_SCAN_MAX * 4) {
		const char *v = e->d_name + 4;
		if (!str_has_prefix(e->d_name, "gcc-") || !*v ||
		    strspn(v, "0123456789") != strlen(v))
			continue;
		n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, " %s",
				      e->d_name);
	}
	if (d)
		closedir(d);
	if (list[0])
		say(x,
		    "versioned compilers in /usr/bin:%s (pick one with CC=/usr/bin/gcc-N "
		    "CXX=/usr/bin/g++-N or nvcc -ccbin)",
		    list);
	else
		say(x, "no versioned gcc-N in /usr/bin");
	if (x->f->toolkit.nvcc_version)
		say(x, "nvcc used for builds: %s", x->f->toolkit.nvcc_version);
}

static void say_vars(struct xc *x, const char *const *names)
{
	size_t i;

	for (i = 0; names[i]; i++) {
		const char *v = env(x->f, names[i]);
		if (v && strstr(names[i], "TOKEN"))
			say(x, "%s is set", names[i]);
		else if (v)
			say(x, "%s=%s", names[i], v);
	}
}

static void say_jit_cache(struct xc *x)
{
	const char *dir = env(x->f, "TORCH_EXTENSIONS_DIR"), *home = env(x->f, "HOME");
	const char *xdg = env(x->f, "XDG_CACHE_HOME");
	char list[512] = "";
	DIR *d;
	struct dirent *e;
	size_t n = 0, seen = 0;

	if (!dir && xdg)
		dir = fsu_path(&x->r->arena, xdg, "torch_extensions");
	if (!dir && home)
		dir = fsu_path(&x->r->arena, home, ".cache/torch_extensions");
	if (!dir)
		return;
	d = file_opendir(&x->f->root, dir);
	if (!d) {
		say(x, "the extension cache %s does not exist", dir);
		return;
	}
	while ((e = readdir(d)) != NULL && seen++ < DIR_SCAN_MAX)
		if (e->d_name[0] != '.')
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
					      " %s", e->d_name);
	closedir(d);
	say(x, "extension cache %s holds:%s", dir, list[0] ? list : " nothing");
}

/* ---- per category -------------------------------------------------------- */

static const char *const nccl_vars[] = {
	"NCCL_P2P_DISABLE",  "NCCL_P2P_LEVEL",	   "NCCL_IB_DISABLE",
	"NCCL_SHM_DISABLE",  "NCCL_SOCKET_IFNAME", "NCCL_NET",
	"NCCL_CUMEM_ENABLE", "NCCL_DEBUG",	   NULL};
static const char *const init_vars[] = {"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
					"CUDA_DEVICE_ORDER", NULL};
static const char *const hf_vars[] = {"HF_HUB_OFFLINE",
				      "TRANSFORMERS_OFFLINE",
				      "HF_HOME",
				      "HF_HUB_CACHE",
				      "HF_ENDPOINT",
				      "HF_TOKEN",
				      NULL};
static const char *const arch_vars[] = {"TORCH_CUDA_ARCH_LIST", "CUDA_VISIBLE_DEVICES", NULL};

static void check_one(struct xc *x)
{
	const char *cat = x->d->sig->category;
	const char *hdr = xs_fact(x->d, "header"), *so = xs_fact(x->d, "soname");

	if (!strcmp(cat, "missing-headers") && hdr) {
		check_header(x, hdr);
	} else if (!strcmp(cat, "missing-shared-lib") || !strcmp(cat, "undefined-symbol") ||
		   !strcmp(cat, "lib-path-pollution")) {
		if (so)
			check_soname(x, so);
		say_llp(x);
	} else if (!strcmp(cat, "driver-too-old")) {
		say_driver(x);
		say_logged_cuda(x, xs_fact(x->d, "driver_cuda"));
	} else if (!strcmp(cat, "cuda-init")) {
		say_driver(x);
		say_gpus(x, 0);
		say_vars(x, init_vars);
	} else if (!strcmp(cat, "arch-unsupported") || !strcmp(cat, "dtype-unsupported")) {
		say_gpus(x, 0);
		say_vars(x, arch_vars);
	} else if (!strcmp(cat, "oom-at-load")) {
		say_gpus(x, 1);
	} else if (!strcmp(cat, "nccl")) {
		char shm[32];
		if (so)
			check_soname(x, so);
		if (x->f->host.shm_size_bytes != CD_UNK) {
			str_bytes(shm, sizeof(shm), x->f->host.shm_size_bytes);
			say(x, "/dev/shm is %s", shm);
		}
		say_vars(x, nccl_vars);
	} else if (!strcmp(cat, "nvcc-mismatch")) {
		say_toolkits(x);
	} else if (!strcmp(cat, "host-compiler")) {
		say_compilers(x);
	} else if (!strcmp(cat, "jit-cache")) {
		say_jit_cache(x);
	} else if (!strcmp(cat, "hf-load")) {
		say_vars(x, hf_vars);
	} else if (hdr) {
		check_header(x, hdr);
	}
}

void xc_check(struct xs_result *r, const struct cd_facts *f)
{
	struct xc x = {r, f, NULL};
	size_t i;

	for (i = 0; i < r->n; i++) {
		x.d = &r->d[i];
		if (!xc_skipped(r, i))
			check_one(&x);
	}
}
