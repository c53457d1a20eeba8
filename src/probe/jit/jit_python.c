/* jit_python: the Python side of a JIT build, from the stack probe's facts
 * (f->stack: the environment, its sys.path site directories and torch's
 * version.py; see stack.h and docs/python-stack.md), plus what only a build
 * reads: Python.h (python_find_header), torch's bundled headers and the age
 * of its version.py (for the extensions cache), DeepSpeed's record of its
 * prebuilt ops and its op_builder table, and whether the ninja and
 * cutlass_library packages import. No interpreter is started. */
#include <string.h>
#include <sys/stat.h>

#include "core/fsutil.h"
#include "probe/jit/jit.h"
#include "probe/stack/stack.h"

#define SMALL_FILE ((size_t)1 << 20)

static void torch_facts(struct cd_facts *f, const struct cd_stack_facts *st, struct jit_python *py)
{
	const struct cd_torch_facts *t = &st->torch;
	const struct cd_package *p = stack_find(st, "torch");
	const char *vpy;
	struct stat sb;

	py->torch_present = t->installed ? CD_TRI_YES : CD_TRI_NO;
	if (!t->installed || !t->path)
		return;
	if (p && p->site < st->python.n_site)
		py->site_packages = st->python.site[p->site].path;
	py->torch_version = t->version;
	py->torch_cuda = t->cuda;
	/* version.py read and torch.version.cuda None: a CPU-only (or ROCm) build. */
	py->torch_cpu_only =
		!t->cuda && t->version_source && !strcmp(t->version_source, "torch/version.py");
	vpy = fsu_path(&f->arena, t->path, "version.py");
	if (file_stat(&f->root, vpy, &sb) == 0)
		py->torch_mtime = (int64_t)sb.st_mtime;
	if (file_is_reg(&f->root, fsu_path(&f->arena, t->path, "include/ATen/cuda/CUDAContext.h")))
		py->torch_include = fsu_path(&f->arena, t->path, "include");
}

struct ds_ctx {
	struct cd_facts *f;
	struct jit_python *py;
	int torch_info;
};

static int ds_item(const char *key, enum jp_pyval kind, const char *val, void *arg)
{
	struct ds_ctx *c = arg;
	struct jit_python *py = c->py;

	if (c->torch_info) {
		if (kind == JP_V_STR && !strcmp(key, "cuda_version"))
			py->ds_torch_cuda = arena_strdup(&c->f->arena, val);
		if (kind == JP_V_STR && !strcmp(key, "version"))
			py->ds_torch_version = arena_strdup(&c->f->arena, val);
		return 0;
	}
	if (py->n_ds_ops >= JIT_DS_OPS_MAX)
		return 1;
	py->ds_ops[py->n_ds_ops].name = arena_strdup(&c->f->arena, key);
	py->ds_ops[py->n_ds_ops].installed =
		kind == JP_V_TRUE || (kind == JP_V_NUM && strcmp(val, "0") != 0);
	py->n_ds_ops++;
	return 0;
}

/* deepspeed/git_version_info_installed.py (written by its setup.py) and the
 * op_builder package: deepspeed/ops/op_builder in a wheel, a top-level
 * op_builder in a source install. */
static void deepspeed_facts(struct cd_facts *f, const struct cd_python_facts *env,
			    struct jit_python *py)
{
	const char *dir = python_module_dir(f, env, "deepspeed", NULL), *ob;
	struct ds_ctx c = {f, py, 0};
	char v[128];
	size_t len = 0;
	char *s;

	if (!dir) {
		py->ds_present = CD_TRI_NO;
		return;
	}
	py->ds_present = CD_TRI_YES;
	s = jit_slurp(f, fsu_path(&f->arena, dir, "git_version_info_installed.py"), SMALL_FILE,
		      &len);
	if (s) {
		if (jp_py_assign((const uint8_t *)s, len, "version", v, sizeof(v)) == 0)
			py->ds_version = arena_strdup(&f->arena, v);
		/* Absent or malformed: the items read before the error stand. */
		(void)!jp_py_dict((const uint8_t *)s, len, "installed_ops", ds_item, &c);
		c.torch_info = 1;
		(void)!jp_py_dict((const uint8_t *)s, len, "torch_info", ds_item, &c);
	}
	s = jit_slurp(f, fsu_path(&f->arena, dir, "ops/op_builder/builder.py"), SMALL_FILE, &len);
	if (!s && (ob = python_module_dir(f, env, "op_builder", NULL)))
		s = jit_slurp(f, fsu_path(&f->arena, ob, "builder.py"), SMALL_FILE, &len);
	if (s && jp_ds_minor_ok((const uint8_t *)s, len, &py->ds_minor_ok_majors) == 0)
		py->ds_minor_ok_known = 1;
}

/* Without torch, the environment's own site directory is where fixes point. */
static const char *env_site(const struct cd_python_facts *env)
{
	size_t i;

	for (i = 0; i < env->n_site; i++)
		if (!strcmp(env->site[i].origin, "env"))
			return env->site[i].path;
	return NULL;
}

void jit_probe_python(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_python *py = &jf->py;
	const struct cd_python_facts *env;
	const char *ninja;

	py->torch_present = py->ds_present = CD_TRI_UNKNOWN;
	py->torch_mtime = CD_UNK;
	py->ninja_module = py->cutlass_library = CD_TRI_UNKNOWN;
	if (!f->stack)
		stack_probe(f);
	if (!f->stack)
		return;
	env = &f->stack->python;
	py->prefix = env->prefix;
	py->kind = env->kind;
	py->via = env->found_via;
	py->version = env->version_short;
	py->version_source = env->version_source;
	py->python_h = env->python_h;
	py->n_searched = env->n_python_h_searched;
	py->searched = env->python_h_searched;
	if (!f->stack->packages_known || !env->n_site)
		return; /* no site directory: torch and DeepSpeed stay unknown */
	torch_facts(f, f->stack, py);
	if (!py->site_packages)
		py->site_packages = env_site(env);
	deepspeed_facts(f, env, py);
	ninja = python_module_dir(f, env, "ninja", NULL);
	py->ninja_module = ninja && file_exists(&f->root, fsu_path(&f->arena, ninja, "__init__.py"))
				   ? CD_TRI_YES
				   : CD_TRI_NO;
	py->cutlass_library =
		python_module_dir(f, env, "cutlass_library", NULL) ? CD_TRI_YES : CD_TRI_NO;
}
