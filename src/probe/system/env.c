/* env: the environment variables that decide what CUDA, NCCL, PyTorch and
 * Hugging Face will do, and what LD_LIBRARY_PATH puts in front of the loader.
 * Each LD_LIBRARY_PATH directory is listed once (by device and inode, so a
 * directory reached through two spellings or a link is not read twice) and
 * the CUDA-related libraries in it are recorded with their majors. Everything
 * is capped: value length, entries examined, directories read, names per
 * directory, so 10,000 entries or a megabyte of value stay fast. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/opts.h"
#include "core/str.h"
#include "core/fsutil.h"
#include "probe/system/system.h"

extern char **environ;

#define ENV_VALUE_MAX	    ((size_t)16 << 10) /* longer values are kept truncated */
#define ENV_PREFIX_VARS_MAX 128		       /* NCCL_* / DS_BUILD_* variables kept */
#define LDP_ENTRIES_MAX	    256		       /* LD_LIBRARY_PATH entries recorded */
#define LDP_DIRS_MAX	    64		       /* directories read */
#define LDP_LIBS_MAX	    64		       /* library names kept per directory */

/* The variables worth recording, in addition to every NCCL_* and DS_BUILD_*.
 * Never add credentials (HF_TOKEN and the like): reports are shared. */
static const char *const env_names[] = {
	"CC",
	"CONDA_DEFAULT_ENV",
	"CONDA_PREFIX",
	"CUDA_DEVICE_ORDER",
	"CUDA_HOME",
	"CUDA_LAUNCH_BLOCKING",
	"CUDA_MODULE_LOADING",
	"CUDA_PATH",
	"CUDA_ROOT",
	"CUDA_VERSION",
	"CUDA_VISIBLE_DEVICES",
	"CUDNN_HOME",
	"CUDNN_PATH",
	"CXX",
	"HF_HOME",
	"HF_HUB_CACHE",
	"HF_HUB_OFFLINE",
	"LD_LIBRARY_PATH",
	"LD_PRELOAD",
	"MAX_JOBS",
	"NVIDIA_DRIVER_CAPABILITIES",
	"NVIDIA_REQUIRE_CUDA",
	"NVIDIA_VISIBLE_DEVICES",
	"PATH",
	"PYTHONHOME",
	"PYTHONPATH",
	"PYTORCH_ALLOC_CONF",
	"PYTORCH_CUDA_ALLOC_CONF",
	"TORCH_CUDA_ARCH_LIST",
	"TORCH_DONT_CHECK_COMPILER_ABI",
	"TORCH_EXTENSIONS_DIR",
	"TRANSFORMERS_CACHE",
	"TRANSFORMERS_OFFLINE",
	"VIRTUAL_ENV",
};
static const char *const env_prefixes[] = {"NCCL_", "DS_BUILD_"};

/* CUDA-related libraries. cuda_major: the SONAME major is the CUDA major
 * (libcudart.so.12 belongs to CUDA 12). It is not for cuFFT, cuRAND,
 * cuSPARSE, cuSOLVER (libcurand.so.10 ships with CUDA 10 to 13), cuDNN, NCCL
 * or the driver's own libraries, whose majors are their own. */
static const struct {
	const char *name;
	int cuda_major;
} cuda_libs[] = {
	{"libcudart", 1},   {"libcublas", 1},	  {"libcublasLt", 1},
	{"libnvrtc", 1},    {"libnvJitLink", 1},  {"libcupti", 1},
	{"libcufft", 0},    {"libcurand", 0},	  {"libcusparse", 0},
	{"libcusolver", 0}, {"libcusparseLt", 0}, {"libnvToolsExt", 0},
	{"libcudnn", 0},    {"libnccl", 0},	  {"libcufile", 0},
	{"libcuda", 0},	    {"libnvidia-ml", 0},  {"libnvidia-ptxjitcompiler", 0},
};

static int is_recorded(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++)
		if (strlen(env_names[i]) == len && !memcmp(env_names[i], name, len))
			return 1;
	for (i = 0; i < sizeof(env_prefixes) / sizeof(env_prefixes[0]); i++)
		if (len > strlen(env_prefixes[i]) &&
		    !strncmp(name, env_prefixes[i], strlen(env_prefixes[i])))
			return 1;
	return 0;
}

static int cmp_var(const void *a, const void *b)
{
	return strcmp(((const struct cd_env_var *)a)->name, ((const struct cd_env_var *)b)->name);
}

static void record_vars(struct cd_facts *f)
{
	char *const *env = f->opts && f->opts->envp ? f->opts->envp : environ;
	size_t cap = sizeof(env_names) / sizeof(env_names[0]) + ENV_PREFIX_VARS_MAX, i, n = 0;
	size_t prefixed = 0;
	struct cd_env_var *v = arena_calloc(&f->arena, cap, sizeof(*v));

	if (!v || !env)
		return;
	for (i = 0; env[i] && n < cap; i++) {
		const char *eq = strchr(env[i], '=');
		size_t nlen, vlen, k;
		int dup = 0, fixed;

		if (!eq || eq == env[i])
			continue;
		nlen = (size_t)(eq - env[i]);
		if (!is_recorded(env[i], nlen))
			continue;
		fixed = !strncmp(env[i], "NCCL_", 5) || !strncmp(env[i], "DS_BUILD_", 9) ? 0 : 1;
		if (!fixed && ++prefixed > ENV_PREFIX_VARS_MAX)
			continue;
		for (k = 0; k < n; k++) /* a name twice in envp: getenv sees the first */
			dup |= strlen(v[k].name) == nlen && !memcmp(v[k].name, env[i], nlen);
		if (dup)
			continue;
		vlen = strlen(eq + 1);
		v[n].name = arena_strndup(&f->arena, env[i], nlen);
		v[n].value = arena_strndup(&f->arena, eq + 1,
					   vlen < ENV_VALUE_MAX ? vlen : ENV_VALUE_MAX);
		v[n].truncated = vlen > ENV_VALUE_MAX;
		if (v[n].name && v[n].value)
			n++;
	}
	qsort(v, n, sizeof(*v), cmp_var);
	f->env.vars = v;
	f->env.n_vars = n;
}

struct ldp_scan {
	dev_t dev;
	ino_t ino;
	size_t entry; /* the entry whose libraries were read */
};

/* "libcudart.so.12.4.127" -> "libcudart.so.12" (*cuda_major 12); 0 if the
 * name is not a versioned CUDA-related library. */
static int lib_match(const char *d, char *out, size_t cap, int *cuda_major)
{
	size_t i;

	for (i = 0; i < sizeof(cuda_libs) / sizeof(cuda_libs[0]); i++) {
		size_t l = strlen(cuda_libs[i].name);
		const char *s = d + l;
		unsigned major = 0;
		int digits = 0;

		if (strncmp(d, cuda_libs[i].name, l))
			continue;
		if (!strcmp(cuda_libs[i].name, "libcudnn") && *s == '_') /* libcudnn_ops.so.9 */
			for (s++; islower((unsigned char)*s) || *s == '_'; s++)
				;
		if (strncmp(s, ".so.", 4))
			continue;
		for (s += 4; isdigit((unsigned char)*s) && digits < 4; s++, digits++)
			major = major * 10 + (unsigned)(*s - '0');
		if (!digits || major >= 100 || (*s && *s != '.'))
			continue; /* libcuda.so.580.159.04: the driver's file, not a SONAME */
		if (snprintf(out, cap, "%.*s", (int)(s - d), d) >= (int)cap)
			return 0;
		*cuda_major = cuda_libs[i].cuda_major ? (int)major : -1;
		return 1;
	}
	return 0;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void scan_dir(struct cd_facts *f, struct cd_ldpath_entry *e)
{
	DIR *d = file_opendir(&f->root, e->path);
	const char **libs = arena_calloc(&f->arena, LDP_LIBS_MAX, sizeof(*libs));
	int64_t *majors = arena_calloc(&f->arena, LDP_LIBS_MAX, sizeof(*majors));
	size_t nl = 0, nm = 0, scanned = 0, i;
	struct dirent *de;

	if (!d)
		return;
	while (libs && majors && (de = readdir(d)) != NULL && ++scanned <= FSU_SCAN_MAX) {
		char name[128];
		int major, seen = 0;

		if (de->d_name[0] != 'l' || !lib_match(de->d_name, name, sizeof(name), &major))
			continue;
		for (i = 0; i < nl; i++)
			seen |= !strcmp(libs[i], name);
		if (!seen && nl < LDP_LIBS_MAX)
			libs[nl++] = arena_strdup(&f->arena, name);
		for (i = 0, seen = 0; i < nm; i++)
			seen |= majors[i] == major;
		if (major > 0 && !seen && nm < LDP_LIBS_MAX)
			majors[nm++] = major;
	}
	closedir(d);
	for (i = 0; i < nl; i++)
		if (!libs[i])
			return; /* out of memory: leave the directory unknown */
	qsort(libs, nl, sizeof(*libs), cmp_cstr);
	qsort(majors, nm, sizeof(*majors), cmp_i64);
	e->libs = libs;
	e->n_libs = nl;
	e->cuda_majors = majors;
	e->n_majors = nm;
}

/* Copy one entry, collapsing "//" and dropping a trailing '/'. */
static char *normalize(struct cd_arena *a, const char *p, size_t n)
{
	char *s = arena_alloc(a, n + 1);
	size_t i, k = 0;

	if (!s)
		return NULL;
	for (i = 0; i < n; i++)
		if (!(p[i] == '/' && k && s[k - 1] == '/'))
			s[k++] = p[i];
	while (k > 1 && s[k - 1] == '/')
		k--;
	s[k] = '\0';
	return s;
}

static void ldp_entry(struct cd_facts *f, const char *p, size_t n, struct ldp_scan *scans,
		      size_t *n_scans)
{
	struct cd_env_facts *ev = &f->env;
	struct cd_ldpath_entry *e;
	struct stat st;
	char *path;
	size_t i;

	if (n >= PATH_MAX) { /* the loader cannot open it either */
		path = arena_printf(&f->arena, "%.*s... (%zu bytes)", 64, p, n);
		e = &ev->ld_library_path[ev->n_ld_library_path++];
		e->path = path;
		e->exists = CD_TRI_NO;
		return;
	}
	path = normalize(&f->arena, p, n);
	if (!path)
		return;
	for (i = 0; i < ev->n_ld_library_path; i++) {
		if (!strcmp(ev->ld_library_path[i].path, path)) {
			ev->n_ld_library_path_duplicate++;
			return;
		}
	}
	e = &ev->ld_library_path[ev->n_ld_library_path++];
	e->path = path;
	e->exists = CD_TRI_UNKNOWN;
	/* $ORIGIN/$LIB are expanded per object by the loader; relative entries
	 * name the current directory, which --root cannot know. */
	if (strchr(path, '$') || (path[0] != '/' && !f->root.is_host))
		return;
	if (file_stat(&f->root, path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		e->exists = CD_TRI_NO;
		return;
	}
	e->exists = CD_TRI_YES;
	for (i = 0; i < *n_scans; i++) {
		if (scans[i].dev == st.st_dev && scans[i].ino == st.st_ino) {
			const struct cd_ldpath_entry *o = &ev->ld_library_path[scans[i].entry];
			e->libs = o->libs;
			e->n_libs = o->n_libs;
			e->cuda_majors = o->cuda_majors;
			e->n_majors = o->n_majors;
			return;
		}
	}
	if (*n_scans >= LDP_DIRS_MAX) {
		ev->ld_library_path_truncated = 1;
		return;
	}
	scans[*n_scans].dev = st.st_dev;
	scans[*n_scans].ino = st.st_ino;
	scans[(*n_scans)++].entry = ev->n_ld_library_path - 1;
	scan_dir(f, e);
}

static void ld_library_path(struct cd_facts *f)
{
	struct cd_env_facts *ev = &f->env;
	const char *v = facts_getenv(f, "LD_LIBRARY_PATH"), *p;
	struct ldp_scan scans[LDP_DIRS_MAX];
	size_t n_scans = 0;

	if (!v)
		return;
	ev->ld_library_path_set = 1;
	ev->ld_library_path =
		arena_calloc(&f->arena, LDP_ENTRIES_MAX, sizeof(*ev->ld_library_path));
	if (!ev->ld_library_path)
		return;
	/* glibc splits LD_LIBRARY_PATH on ':' and ';'; an empty item is ".". */
	for (p = v;;) {
		size_t n = strcspn(p, ":;");

		ev->n_ld_library_path_total++;
		if (n == 0)
			ev->n_ld_library_path_empty++;
		else if (ev->n_ld_library_path < LDP_ENTRIES_MAX)
			ldp_entry(f, p, n, scans, &n_scans);
		else
			ev->ld_library_path_truncated = 1;
		if (!p[n])
			break;
		p += n + 1;
	}
}

void env_probe(struct cd_facts *f)
{
	record_vars(f);
	ld_library_path(f);
}
