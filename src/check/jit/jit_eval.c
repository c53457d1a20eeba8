/* jit_eval: the predicates of jit_int.h and the per-op judgement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/jit/jit_int.h"
#include "core/str.h"
#include "kb/hostcc.h"

int jit_torch_cuda(const struct cd_jit_facts *jf, int *major, int *minor)
{
	*major = *minor = -1;
	if (jf->py.torch_cpu_only || !jf->py.torch_cuda)
		return -1;
	return jit_major_minor(jf->py.torch_cuda, major, minor);
}

int jit_ds_minor_ok(const struct cd_jit_facts *jf, int major)
{
	/* deepspeedai/DeepSpeed op_builder/builder.py cuda_minor_mismatch_ok
	 * lists 10, 11 and 12 when the installed builder cannot be read. */
	uint32_t mask = jf->py.ds_minor_ok_known ? jf->py.ds_minor_ok_majors
						 : (1u << 10) | (1u << 11) | (1u << 12);

	return major >= 0 && major < 32 && (mask >> major) & 1u;
}

int jit_ds_skip(const struct cd_jit_facts *jf)
{
	return jf->env.ds_skip_cuda_check && !strcmp(jf->env.ds_skip_cuda_check, "1");
}

int jit_host_max(const struct cd_jit_facts *jf)
{
	if (!jf->host.family)
		return -1;
	return kb_max_host_compiler(jf->tk.nvcc_major, jf->tk.nvcc_minor, jf->host.family, 0);
}

int jit_host_too_new(const struct cd_jit_facts *jf)
{
	int max = jit_host_max(jf);

	return max > 0 && jf->host.major > max;
}

const struct jit_file *jit_file_get(const struct cd_jit_facts *jf, const char *name)
{
	size_t i;

	for (i = 0; i < jf->tk.n_files; i++)
		if (!strcmp(jf->tk.files[i].name, name))
			return &jf->tk.files[i];
	return NULL;
}

int jit_missing_in(const struct cd_jit_facts *jf, const char *list, int libs, const char **first)
{
	const char *s = list;

	while (s && *s) {
		size_t len = strcspn(s, ",");
		char name[112];
		const struct jit_file *x;
		if (libs)
			snprintf(name, sizeof(name), "lib%.*s.so", (int)len, s);
		else
			str_ncopy(name, sizeof(name), s, len);
		x = jit_file_get(jf, name);
		if (x && x->present == CD_TRI_NO) {
			*first = x->name;
			return 1;
		}
		s += len + (s[len] == ',');
	}
	return 0;
}

void jit_arch_input(const struct cd_jit_facts *jf, struct arch_list_input *in,
		    struct arch_list_gpu *gpus)
{
	const struct jit_arch *ar = &jf->arch;
	const char *via = ar->gpus_via ? ar->gpus_via : "";
	size_t i;

	memset(in, 0, sizeof(*in));
	in->value = jf->arch.raw;
	in->torch_version = jf->py.torch_version;
	in->nvcc_version = jf->tk.nvcc ? jf->tk.nvcc_version : NULL;
	in->nvcc_major = jf->tk.nvcc_major;
	in->nvcc_minor = jf->tk.nvcc_minor;
	for (i = 0; i < ar->n_gpus && i < JIT_GPUS_MAX; i++)
		gpus[i] = (struct arch_list_gpu){ar->gpus[i].major, ar->gpus[i].minor};
	in->gpus = gpus;
	in->n_gpus = i;
	in->gpus_known = !strcmp(via, "driver") || !strcmp(via, "--gpu-cc");
	in->no_gpu = !strcmp(via, "none") || (!strcmp(via, "--gpu-cc") && !ar->n_gpus);
	in->judge_unset = 1; /* `jit` is asked about a build */
	in->section = "jit";
}

int jit_ninja_ok(const struct cd_jit_facts *jf, int *only_env)
{
	*only_env = !jf->ninja.path && jf->ninja.env_bin;
	return jf->ninja.path != NULL;
}

/* ---- the table -------------------------------------------------------- */

static int not_ready(struct jit_op_row *r, const char *id, const char *why)
{
	r->state = JIT_OP_NOT_READY;
	r->reason_id = id;
	r->reason = why;
	return 1;
}

static int prebuilt(const struct cd_jit_facts *jf, struct jit_op_row *r, struct cd_arena *a)
{
	const struct jit_python *py = &jf->py;
	int tma, tmi, ima, imi;
	size_t i;

	if (py->ds_present != CD_TRI_YES || !r->builder || !strcmp(r->builder, "-"))
		return 0;
	for (i = 0; i < py->n_ds_ops; i++)
		if (!strcmp(py->ds_ops[i].name, r->name) && py->ds_ops[i].installed)
			break;
	if (i == py->n_ds_ops)
		return 0;
	if (jit_torch_cuda(jf, &tma, &tmi) == 0 &&
	    jit_major_minor(py->ds_torch_cuda, &ima, &imi) == 0 && (tma != ima || tmi != imi))
		return not_ready(r, "extension-abi-mismatch",
				 arena_printf(a, "prebuilt for CUDA %s, torch has %s",
					      py->ds_torch_cuda, py->torch_cuda));
	if (py->ds_torch_version && py->torch_version &&
	    jit_major_minor(py->ds_torch_version, &ima, &imi) == 0 &&
	    jit_major_minor(py->torch_version, &tma, &tmi) == 0 && (tma != ima || tmi != imi))
		return not_ready(r, "extension-abi-mismatch",
				 arena_printf(a, "prebuilt for torch %s, torch is %s",
					      py->ds_torch_version, py->torch_version));
	r->state = JIT_OP_PREBUILT;
	r->reason = "prebuilt into the installed DeepSpeed; no JIT build";
	return 1;
}

static int is_ds(const struct jit_op_row *r)
{
	return strcmp(r->builder, "-") != 0;
}

/* Toolkit and torch's CUDA. */
static int toolkit_gate(const struct cd_jit_facts *jf, struct jit_op_row *r, struct cd_arena *a)
{
	const struct jit_toolkit *tk = &jf->tk;
	int tma, tmi;

	if (!tk->cuda_home) {
		if (r->cuda_sources)
			return not_ready(r, "toolkit-missing", "torch's CUDA_HOME is None");
		r->reason = "no CUDA_HOME: DeepSpeed builds it for the CPU only";
		return 0;
	}
	if (tk->home_exists != CD_TRI_YES)
		return not_ready(r, "toolkit-missing",
				 arena_printf(a, "CUDA_HOME %s does not exist", tk->cuda_home));
	if (!tk->nvcc)
		return not_ready(r, "toolkit-missing",
				 arena_printf(a, "no nvcc in %s/bin", tk->cuda_home));
	if (jf->py.torch_present != CD_TRI_YES)
		return 0; /* judged last: everything else may still be known */
	if (jf->py.torch_cpu_only)
		return not_ready(r, "nvcc-torch-mismatch", "torch is a CPU-only build");
	if (jit_torch_cuda(jf, &tma, &tmi) || tk->nvcc_major < 0)
		return 0;
	if (tma != tk->nvcc_major)
		return not_ready(r, "nvcc-torch-mismatch",
				 arena_printf(a, "nvcc %s vs torch CUDA %s", tk->nvcc_version,
					      jf->py.torch_cuda));
	if (is_ds(r) && tmi != tk->nvcc_minor && !jit_ds_minor_ok(jf, tma) && !jit_ds_skip(jf))
		return not_ready(
			r, "nvcc-torch-mismatch",
			arena_printf(a,
				     "nvcc %s vs torch CUDA %s: DeepSpeed accepts no minor "
				     "mismatch for CUDA %d",
				     tk->nvcc_version, jf->py.torch_cuda, tma));
	return 0;
}

/* Compilers, ninja, Python.h, the op's files. */
static int build_gate(const struct cd_jit_facts *jf, struct jit_op_row *r, struct cd_arena *a)
{
	const char *miss;
	int only_env;

	if (r->cuda_sources && !jf->host.path)
		return not_ready(
			r, "host-compiler-unsupported",
			arena_printf(a, "nvcc's host compiler %s not found", jf->host.command));
	if (r->cuda_sources && jit_host_too_new(jf))
		return not_ready(r, "host-compiler-unsupported",
				 arena_printf(a, "%s %s is newer than nvcc %s accepts",
					      jf->host.family, jf->host.version,
					      jf->tk.nvcc_version));
	if (!jf->cxx.path)
		return not_ready(r, "host-compiler-unsupported",
				 arena_printf(a, "C++ compiler %s not found", jf->cxx.command));
	if (!jit_ninja_ok(jf, &only_env))
		return not_ready(r, "ninja-missing",
				 only_env ? "ninja is in the environment's bin but not on PATH"
					  : "no ninja on PATH");
	if (is_ds(r) && jf->py.ds_present == CD_TRI_YES && jf->py.ninja_module == CD_TRI_NO)
		return not_ready(r, "ninja-missing", "DeepSpeed imports the ninja Python package");
	if (jf->py.version && !jf->py.python_h)
		return not_ready(r, "python-headers-missing",
				 arena_printf(a, "no Python.h for Python %s", jf->py.version));
	if (jf->tk.cuda_home && (jit_missing_in(jf, r->headers, 0, &miss) ||
				 jit_missing_in(jf, r->libraries, 1, &miss)))
		return not_ready(r, "toolkit-headers-missing", arena_printf(a, "%s missing", miss));
	return 0;
}

/* The builder's is_compatible() gates, and arch flags for the generic one. */
static int op_gate(const struct cd_jit_facts *jf, struct jit_op_row *r, struct cd_arena *a)
{
	const struct jit_arch *ar = &jf->arch;
	struct arch_list_gpu gpus[JIT_GPUS_MAX];
	struct arch_list_input in;
	const char *err;
	int tma, tmi, gpu0 = ar->n_gpus ? ar->gpus[0].major * 10 + ar->gpus[0].minor : -1;

	if (!is_ds(r)) {
		jit_arch_input(jf, &in, gpus);
		if ((err = arch_list_blocker(&in, a)))
			return not_ready(r, "torch-arch-list-invalid", err);
		return 0;
	}
	if (r->cuda_sources && !r->cpu_capable && ar->gpus_via && !ar->n_gpus &&
	    (!strcmp(ar->gpus_via, "none") || !strcmp(ar->gpus_via, "--gpu-cc")))
		return not_ready(r, "deepspeed-op-incompatible",
				 "no GPU visible: DeepSpeed JIT-builds CUDA ops only when "
				 "torch.cuda.is_available()");
	if (r->min_cc10 && gpu0 >= 0 && gpu0 < r->min_cc10)
		return not_ready(
			r, "deepspeed-op-incompatible",
			arena_printf(a, "GPU 0 is compute %d.%d; the op needs %d.%d or newer",
				     gpu0 / 10, gpu0 % 10, r->min_cc10 / 10, r->min_cc10 % 10));
	if (r->min_cuda_major && (r->requires[0] || gpu0 >= 80) &&
	    ((jf->tk.nvcc_major >= 0 && jf->tk.nvcc_major < r->min_cuda_major) ||
	     (jit_torch_cuda(jf, &tma, &tmi) == 0 && tma < r->min_cuda_major)))
		return not_ready(r, "deepspeed-op-incompatible",
				 arena_printf(a, "needs CUDA %d or newer", r->min_cuda_major));
	if (!strcmp(r->requires, "CUTLASS_PATH") && jf->cutlass_ok != CD_TRI_YES)
		return not_ready(r, "deepspeed-op-incompatible", jf->cutlass_note);
	return 0;
}

void jit_ops_eval(const struct cd_facts *f, const struct cd_jit_facts *jf, struct jit_ops *ops,
		  struct cd_arena *a)
{
	size_t i;

	(void)f;
	for (i = 0; i < ops->n; i++) {
		struct jit_op_row *r = &ops->rows[i];
		r->state = JIT_OP_READY;
		r->reason_id = NULL;
		r->reason = NULL;
		if (prebuilt(jf, r, a) || toolkit_gate(jf, r, a) || build_gate(jf, r, a) ||
		    op_gate(jf, r, a))
			continue;
		if (jf->py.torch_present != CD_TRI_YES) {
			r->state = JIT_OP_UNKNOWN;
			r->reason = jf->py.prefix ? arena_printf(a, "torch not found in %s",
								 jf->py.site_packages
									 ? jf->py.site_packages
									 : jf->py.prefix)
						  : "no Python environment found";
		}
	}
}
