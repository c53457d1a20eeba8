/* jit_probe: the order of the jit probes, the variables they read, the GPUs
 * and TORCH_CUDA_ARCH_LIST, and the helpers the parts share (see jit.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "kb/torcharch.h"
#include "probe/jit/jit.h"

char *jit_slurp(struct cd_facts *f, const char *path, size_t max, size_t *len)
{
	struct cd_buf b;
	char *s = NULL;

	buf_init(&b, max);
	if (file_read(&f->root, path, max, &b, NULL) == 0 && b.p) {
		s = arena_strndup(&f->arena, b.p, b.len);
		if (len)
			*len = b.len;
	}
	buf_free(&b);
	return s;
}

const char *jit_which(struct cd_facts *f, const char *path_var, const char *name)
{
	const char *p = path_var;
	int entries = 0;

	if (!p || strchr(name, '/'))
		return NULL;
	while (*p && entries++ < 256) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char cand[PATH_MAX];
		struct stat st;
		/* Relative entries depend on the caller's directory: not ours to guess. */
		if (len && p[0] == '/' &&
		    snprintf(cand, sizeof(cand), "%.*s/%s", (int)len, p, name) <
			    (int)sizeof(cand) &&
		    file_stat(&f->root, cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    (st.st_mode & 0111))
			return arena_strdup(&f->arena, cand);
		if (!colon)
			break;
		p = colon + 1;
	}
	return NULL;
}

int jit_major_minor(const char *v, int *major, int *minor)
{
	int c = v ? ver_cuda_int(v) : -1;

	*major = *minor = -1;
	if (c < 0)
		return -1;
	*major = c / 1000;
	*minor = (c % 1000) / 10;
	return 0;
}

static const char *env_dup(struct cd_facts *f, const char *name)
{
	return arena_strdup(&f->arena, facts_getenv(f, name));
}

static void capture_env(struct cd_facts *f, struct jit_env *e)
{
	e->cuda_home = env_dup(f, "CUDA_HOME");
	e->cuda_path = env_dup(f, "CUDA_PATH");
	e->cc = env_dup(f, "CC");
	e->cxx = env_dup(f, "CXX");
	e->cudahostcxx = env_dup(f, "CUDAHOSTCXX");
	e->nvcc_ccbin = env_dup(f, "NVCC_CCBIN");
	e->nvcc_prepend = env_dup(f, "NVCC_PREPEND_FLAGS");
	e->nvcc_append = env_dup(f, "NVCC_APPEND_FLAGS");
	e->path = env_dup(f, "PATH");
	e->arch_list = env_dup(f, "TORCH_CUDA_ARCH_LIST");
	e->ext_dir = env_dup(f, "TORCH_EXTENSIONS_DIR");
	e->xdg_cache = env_dup(f, "XDG_CACHE_HOME");
	e->home = env_dup(f, "HOME");
	e->cutlass_path = env_dup(f, "CUTLASS_PATH");
	e->ds_skip_cuda_check = env_dup(f, "DS_SKIP_CUDA_CHECK");
	e->dont_check_abi = env_dup(f, "TORCH_DONT_CHECK_COMPILER_ABI");
	e->library_path = env_dup(f, "LIBRARY_PATH");
	e->virtual_env = env_dup(f, "VIRTUAL_ENV");
	e->conda_prefix = env_dup(f, "CONDA_PREFIX");
	e->tmpdir = env_dup(f, "TMPDIR");
}

static void os_release(struct cd_facts *f, struct cd_jit_facts *jf)
{
	static const char *const files[] = {"/etc/os-release", "/usr/lib/os-release"};
	char v[128];
	size_t i, len = 0;

	for (i = 0; i < 2; i++) {
		char *s = jit_slurp(f, files[i], 64 << 10, &len);
		if (!s)
			continue;
		if (jp_kv((const uint8_t *)s, len, "ID", '=', v, sizeof(v)) == 0 && v[0])
			jf->os_id = arena_strdup(&f->arena, v);
		if (jp_kv((const uint8_t *)s, len, "ID_LIKE", '=', v, sizeof(v)) == 0 && v[0])
			jf->os_like = arena_strdup(&f->arena, v);
		return;
	}
}

static void target_triple(struct cd_jit_facts *jf)
{
	struct utsname u;

	jf->arch_triple = "x86_64-linux";
	if (uname(&u) == 0 && !strcmp(u.machine, "aarch64"))
		jf->arch_triple = "sbsa-linux";
}

/* --gpu-cc "9.0,8.6" or "none". */
static void gpus_from_option(struct cd_jit_facts *jf, const char *s)
{
	struct jit_arch *a = &jf->arch;

	a->gpus_via = "--gpu-cc";
	if (!strcmp(s, "none"))
		return;
	while (*s && a->n_gpus < JIT_GPUS_MAX) {
		const char *comma = strchr(s, ',');
		char one[16];
		int ma, mi;
		str_ncopy(one, sizeof(one), s, comma ? (size_t)(comma - s) : strlen(s));
		if (jit_major_minor(one, &ma, &mi) == 0) {
			a->gpus[a->n_gpus].major = ma;
			a->gpus[a->n_gpus].minor = mi;
			a->gpus[a->n_gpus].name = "--gpu-cc";
			a->n_gpus++;
		}
		if (!comma)
			break;
		s = comma + 1;
	}
}

static void gpus(struct cd_facts *f, struct cd_jit_facts *jf, const char *opt)
{
	struct jit_arch *a = &jf->arch;
	size_t i;

	if (opt) {
		gpus_from_option(jf, opt);
		return;
	}
	if (f->gpus_known) {
		a->gpus_via = "driver";
		for (i = 0; i < f->n_gpus && a->n_gpus < JIT_GPUS_MAX; i++) {
			const struct cd_gpu *g = &f->gpus[i];
			if (g->cc_major == CD_UNK || g->cc_minor == CD_UNK)
				continue;
			a->gpus[a->n_gpus].major = (int)g->cc_major;
			a->gpus[a->n_gpus].minor = (int)g->cc_minor;
			a->gpus[a->n_gpus].name = g->name;
			a->n_gpus++;
		}
		return;
	}
	/* No driver facts: without the control device node there is no GPU. */
	a->gpus_via = file_exists(&f->root, "/dev/nvidiactl") ? "unknown" : "none";
}

void jit_arch_parse(struct cd_facts *f, struct jit_arch *a, const char *value,
		    const char *torch_version)
{
	struct archlist_result *r = arena_alloc(&f->arena, sizeof(*r));
	struct torcharch_rules *t = arena_alloc(&f->arena, sizeof(*t));

	a->raw = value;
	a->use_gpus = !value || !*value || !strcmp(value, "native");
	a->rc = 0;
	a->bad[0] = '\0';
	a->n = 0;
	/* A torch older than the tables did not read the variable: nothing to parse. */
	if (a->use_gpus || !r || !t || torcharch_rules(torch_version, t) != 0)
		return;
	archlist_parse((const uint8_t *)value, strlen(value), &t->rules, r);
	if (r->too_long) {
		a->rc = CD_ERANGE;
		return;
	}
	a->rc = r->n_bad ? CD_EFORMAT : 0;
	str_copy(a->bad, sizeof(a->bad), r->first_bad);
	a->n = r->n_kept;
	memcpy(a->entries, r->entries, r->n_kept * sizeof(r->entries[0]));
}

/* What DeepSpeed's EvoformerAttnBuilder.is_compatible checks of CUTLASS. */
static void cutlass(struct cd_facts *f, struct cd_jit_facts *jf)
{
	const char *c = jf->env.cutlass_path;
	size_t len = 0;
	char *log;

	jf->cutlass_ok = CD_TRI_NO;
	if (!c) {
		jf->cutlass_note = "CUTLASS_PATH is not set";
	} else if (!strcmp(c, "DS_IGNORE_CUTLASS_DETECTION")) {
		jf->cutlass_ok = CD_TRI_YES;
		jf->cutlass_note =
			"CUTLASS_PATH=DS_IGNORE_CUTLASS_DETECTION: CUTLASS must already be "
			"on the include path";
	} else if (!strcmp(c, "DS_USE_CUTLASS_PYTHON_BINDINGS")) {
		jf->cutlass_ok = jf->py.cutlass_library == CD_TRI_YES ? CD_TRI_YES : CD_TRI_NO;
		jf->cutlass_note =
			jf->cutlass_ok == CD_TRI_YES
				? "headers from the nvidia-cutlass package (cutlass_library)"
				: "CUTLASS_PATH=DS_USE_CUTLASS_PYTHON_BINDINGS but the "
				  "nvidia-cutlass package (cutlass_library) is not installed";
	} else if (c[0] != '/' || !file_is_dir(&f->root, c)) {
		jf->cutlass_note = arena_printf(&f->arena, "CUTLASS_PATH %s does not exist", c);
	} else if (!file_is_dir(&f->root, fsu_path(&f->arena, c, "include")) &&
		   !file_is_dir(&f->root, fsu_path(&f->arena, c, "tools/util/include"))) {
		jf->cutlass_note = arena_printf(
			&f->arena, "CUTLASS_PATH %s has neither include/ nor tools/util/include",
			c);
	} else if ((log = jit_slurp(f, fsu_path(&f->arena, c, "CHANGELOG.md"), 4 << 20, &len)) &&
		   !strstr(log, "3.1.0")) { /* EvoformerAttnBuilder.is_compatible's own test
					       (data/deepspeed_ops.tsv, evoformer_attn) */
		jf->cutlass_note = arena_printf(
			&f->arena,
			"%s/CHANGELOG.md does not mention 3.1.0 (CUTLASS older than 3.1)", c);
	} else {
		jf->cutlass_ok = CD_TRI_YES;
		jf->cutlass_note = arena_printf(&f->arena, "CUTLASS at %s", c);
	}
}

void jit_probe(struct cd_facts *f, struct cd_jit_facts *jf, const struct jit_probe_opts *o)
{
	memset(jf, 0, sizeof(*jf));
	capture_env(f, &jf->env);
	os_release(f, jf);
	target_triple(jf);
	jit_probe_python(f, jf);
	jit_probe_toolkit(f, jf);
	jit_probe_compilers(f, jf);
	cutlass(f, jf);
	jit_probe_cache(f, jf, o ? o->now : 0);
}

void jit_probe_gpus(struct cd_facts *f, struct cd_jit_facts *jf, const struct jit_probe_opts *o)
{
	gpus(f, jf, o ? o->gpu_cc : NULL);
	jit_arch_parse(f, &jf->arch, jf->env.arch_list, jf->py.torch_version);
}
