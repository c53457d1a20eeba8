/* Unit tests for src/check/jit*.c: findings and the op table from
 * hand-built facts, and the knowledge-base lookups. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "check/jit/jit.h"
#include "kb/hostcc.h"

struct fx {
	struct cd_facts f;
	struct cd_jit_facts jf;
	struct jit_ops ops;
	struct cd_findings fs;
};

static struct fx X;

static void file(struct cd_jit_facts *jf, const char *name, int lib, enum cd_tri present)
{
	struct jit_file *x = &jf->tk.files[jf->tk.n_files++];

	memset(x, 0, sizeof(*x));
	x->name = name;
	x->is_lib = lib;
	x->present = present;
}

/* A machine where everything is in order: CUDA 12.4, torch cu124, gcc 12. */
static int setup(void **state)
{
	static const char *const hdrs[] = {
		"cuda_runtime.h", "cuda_runtime_api.h", "cusparse.h", "cublas_v2.h",
		"cublasLt.h",	  "cusolverDn.h",	"curand.h",   "cuda.h",
		"cuda_fp16.h",	  "curand_kernel.h",	"mma.h"};
	struct cd_jit_facts *jf = &X.jf;
	size_t i;

	(void)state;
	memset(&X, 0, sizeof(X));
	facts_init(&X.f, NULL);
	jf->tk.cuda_home = "/usr/local/cuda-12.4";
	jf->tk.via = "CUDA_HOME";
	jf->tk.home_exists = CD_TRI_YES;
	jf->tk.nvcc = "/usr/local/cuda-12.4/bin/nvcc";
	jf->tk.nvcc_version = "12.4.131";
	jf->tk.nvcc_major = 12;
	jf->tk.nvcc_minor = 4;
	jf->tk.include_dir = "/usr/local/cuda-12.4/include";
	jf->tk.lib_dir = "/usr/local/cuda-12.4/lib64";
	for (i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++)
		file(jf, hdrs[i], 0, CD_TRI_YES);
	file(jf, "libcudart.so", 1, CD_TRI_YES);
	file(jf, "libcublas.so", 1, CD_TRI_YES);
	file(jf, "libcurand.so", 1, CD_TRI_YES);
	jf->host = (struct jit_compiler){"nvcc host compiler", "gcc", "PATH",
					 "/usr/bin/gcc",       "gcc", "12.3.0",
					 "-dumpfullversion",   12};
	jf->cxx = (struct jit_compiler){"C++ compiler",	    "c++", "PATH",
					"/usr/bin/c++",	    "gcc", "12.3.0",
					"-dumpfullversion", 12};
	jf->ninja.path = "/usr/bin/ninja";
	jf->py.prefix = "/opt/venv";
	jf->py.kind = "venv";
	jf->py.version = "3.12";
	jf->py.site_packages = "/opt/venv/lib/python3.12/site-packages";
	jf->py.python_h = "/usr/include/python3.12/Python.h";
	jf->py.torch_present = CD_TRI_YES;
	jf->py.torch_version = "2.5.1+cu124";
	jf->py.torch_cuda = "12.4";
	jf->py.ds_present = CD_TRI_NO;
	jf->py.ninja_module = CD_TRI_YES;
	jf->arch.use_gpus = 1;
	jf->arch.gpus_via = "--gpu-cc";
	jf->arch.n_gpus = 1;
	jf->arch.gpus[0] = (struct jit_gpu){9, 0, "H100"};
	jf->cutlass_ok = CD_TRI_NO;
	jf->cutlass_note = "CUTLASS_PATH is not set";
	jf->cache.exists = CD_TRI_NO;
	assert_int_equal(jit_ops_load(&X.f.arena, &X.ops, NULL, 0, NULL), 0);
	findings_init(&X.fs, &X.f.arena);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	facts_free(&X.f);
	return 0;
}

static void run(void)
{
	jit_ops_eval(&X.f, &X.jf, &X.ops, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, NULL, &X.fs);
}

static const struct cd_finding *find(const char *id)
{
	return findings_find(&X.fs, id);
}

static int has_fix(const struct cd_finding *x, const char *needle)
{
	size_t i;

	for (i = 0; x && i < x->n_fix; i++)
		if (strstr(x->fix[i], needle))
			return 1;
	return 0;
}

static int has_evidence(const struct cd_finding *x, const char *needle)
{
	size_t i;

	for (i = 0; x && i < x->n_evidence; i++)
		if (strstr(x->evidence[i], needle))
			return 1;
	return 0;
}

static const struct jit_op_row *op(const char *name)
{
	size_t i;

	for (i = 0; i < X.ops.n; i++)
		if (!strcmp(X.ops.rows[i].name, name))
			return &X.ops.rows[i];
	return NULL;
}

static void healthy(void **state)
{
	(void)state;
	run();
	/* Only the CUTLASS note about evoformer_attn, nobody asked for it. */
	assert_int_equal(findings_worst(&X.fs), CD_SEV_INFO);
	assert_int_equal(op("fused_adam")->state, JIT_OP_READY);
	assert_int_equal(op("cpp_extension")->state, JIT_OP_READY);
	assert_int_equal(op("evoformer_attn")->state, JIT_OP_NOT_READY);
	assert_string_equal(op("evoformer_attn")->reason_id, "deepspeed-op-incompatible");
}

static void nvcc_major_mismatch(void **state)
{
	(void)state;
	X.jf.py.torch_cuda = "13.0";
	X.jf.tk.n_others = 1;
	X.jf.tk.others[0] = "/usr/local/cuda-13.0";
	X.jf.tk.others_version[0] = "13.0.88";
	run();
	assert_non_null(find("nvcc-torch-mismatch"));
	assert_int_equal(find("nvcc-torch-mismatch")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("nvcc-torch-mismatch"), "export CUDA_HOME=/usr/local/cuda-13.0"));
	assert_true(has_fix(find("nvcc-torch-mismatch"), "download.pytorch.org/whl/cu124"));
	assert_int_equal(op("fused_adam")->state, JIT_OP_NOT_READY);
	assert_string_equal(op("fused_adam")->reason_id, "nvcc-torch-mismatch");
}

static void nvcc_minor_mismatch(void **state)
{
	(void)state;
	X.jf.py.torch_cuda = "12.1";
	run();
	assert_int_equal(find("nvcc-torch-mismatch")->severity, CD_SEV_WARNING);
	assert_int_equal(op("fused_adam")->state, JIT_OP_READY);
	/* A DeepSpeed whose table lacks CUDA 12 refuses it. */
	X.jf.py.ds_present = CD_TRI_YES;
	X.jf.py.ds_minor_ok_known = 1;
	X.jf.py.ds_minor_ok_majors = (1u << 10) | (1u << 11);
	findings_init(&X.fs, &X.f.arena);
	run();
	assert_int_equal(find("nvcc-torch-mismatch")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("nvcc-torch-mismatch"), "DS_SKIP_CUDA_CHECK=1"));
	assert_int_equal(op("fused_adam")->state, JIT_OP_NOT_READY);
	assert_int_equal(op("cpp_extension")->state, JIT_OP_READY);
}

static void cpu_only_torch(void **state)
{
	(void)state;
	X.jf.py.torch_cpu_only = 1;
	X.jf.py.torch_cuda = NULL;
	run();
	assert_int_equal(find("nvcc-torch-mismatch")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("nvcc-torch-mismatch"), "whl/cu124"));
}

static void gcc_too_new(void **state)
{
	(void)state;
	X.jf.host.version = "14.1.0";
	X.jf.host.major = 14;
	X.jf.n_alt = 1;
	X.jf.alt[0] = (struct jit_alt_compiler){"/usr/bin/gcc-13", "gcc", 13};
	run();
	assert_int_equal(find("host-compiler-unsupported")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("host-compiler-unsupported"), "export CC=/usr/bin/gcc-13"));
	assert_true(has_fix(find("host-compiler-unsupported"), "CXX=/usr/bin/g++-13"));
	assert_string_equal(op("fused_adam")->reason_id, "host-compiler-unsupported");
	/* cpu_adam has no .cu sources: nvcc's host compiler does not matter to it. */
	assert_int_equal(op("cpu_adam")->state, JIT_OP_READY);
}

static void no_toolkit(void **state)
{
	(void)state;
	X.jf.tk.cuda_home = NULL;
	X.jf.tk.nvcc = NULL;
	X.jf.tk.home_exists = CD_TRI_UNKNOWN;
	X.jf.tk.reason = "CUDA_HOME and CUDA_PATH are unset";
	run();
	assert_int_equal(find("toolkit-missing")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("toolkit-missing"), "cuda-toolkit-12-4"));
	assert_int_equal(op("fused_adam")->state, JIT_OP_NOT_READY);
	/* DeepSpeed builds cpu_adam for the CPU without CUDA_HOME. */
	assert_int_equal(op("cpu_adam")->state, JIT_OP_READY);
}

static void header_missing(void **state)
{
	struct jit_file *x = &X.jf.tk.files[2];

	(void)state;
	assert_string_equal(x->name, "cusparse.h");
	x->present = CD_TRI_NO;
	x->n_elsewhere = 1;
	x->elsewhere[0] = "/usr/local/cuda-12.1/include/cusparse.h";
	X.jf.tk.n_others = 1;
	X.jf.tk.others[0] = "/usr/local/cuda-12.1";
	X.jf.tk.others_version[0] = "12.1.105";
	run();
	assert_int_equal(find("toolkit-headers-missing")->severity, CD_SEV_ERROR);
	assert_true(has_evidence(find("toolkit-headers-missing"),
				 "/usr/local/cuda-12.1/include/cusparse.h"));
	assert_true(
		has_fix(find("toolkit-headers-missing"), "export CUDA_HOME=/usr/local/cuda-12.1"));
	assert_true(has_fix(find("toolkit-headers-missing"), "libcusparse-dev-12-4"));
	assert_true(has_fix(find("toolkit-headers-missing"),
			    "nvidia/label/cuda-12.4.0 libcusparse-dev"));
	assert_true(has_fix(find("toolkit-headers-missing"), "nvidia-cusparse-cu12"));
	assert_string_equal(op("fused_adam")->reason, "cusparse.h missing");
	/* inference_core_ops does not include cusparse.h. */
	assert_int_equal(op("inference_core_ops")->state, JIT_OP_READY);
}

static void library_versioned_only(void **state)
{
	struct jit_file *x = &X.jf.tk.files[13];

	(void)state;
	assert_string_equal(x->name, "libcurand.so");
	x->present = CD_TRI_NO;
	x->note = "only /opt/venv/lib/python3.12/site-packages/nvidia/curand/lib/libcurand.so.10 "
		  "exists: the linker (-l) needs the unversioned libcurand.so";
	run();
	assert_true(has_fix(find("toolkit-headers-missing"), "ln -sf "));
	assert_true(has_fix(find("toolkit-headers-missing"), "LIBRARY_PATH="));
	assert_string_equal(op("cpu_adam")->reason_id, "toolkit-headers-missing");
	/* --op fused_adam: curand is not its problem. */
	memset(&X.ops, 0, sizeof(X.ops));
	{
		const char *sel[] = {"fused_adam"};
		assert_int_equal(jit_ops_load(&X.f.arena, &X.ops, sel, 1, NULL), 0);
	}
	findings_init(&X.fs, &X.f.arena);
	run();
	assert_null(find("toolkit-headers-missing"));
}

static void python_h_ninja(void **state)
{
	static const char *const searched[] = {"/usr/include/python3.12/Python.h"};

	(void)state;
	X.jf.py.python_h = NULL;
	X.jf.py.n_searched = 1;
	X.jf.py.searched = searched;
	X.jf.os_id = "ubuntu";
	X.jf.ninja.path = NULL;
	X.jf.ninja.env_bin = "/opt/venv/bin/ninja";
	run();
	assert_true(has_fix(find("python-headers-missing"), "apt-get install python3.12-dev"));
	assert_true(has_fix(find("ninja-missing"), "export PATH=/opt/venv/bin:$PATH"));
	assert_string_equal(op("fused_adam")->reason_id, "ninja-missing");
}

static void arch_lists(void **state)
{
	const char *lists[] = {"garbage", "7.0", "8.0", "8.0+PTX", "9.0a"};
	enum cd_severity want[] = {CD_SEV_ERROR, CD_SEV_ERROR, CD_SEV_WARNING, CD_SEV_INFO,
				   CD_SEV_INFO};
	size_t i;

	(void)state;
	X.jf.tk.nvcc_version = "13.0.88";
	X.jf.tk.nvcc_major = 13;
	X.jf.tk.nvcc_minor = 0;
	X.jf.py.torch_cuda = "13.0";
	for (i = 0; i < 5; i++) {
		struct jit_arch *a = &X.jf.arch;
		jit_arch_parse(&X.f, a, lists[i], X.jf.py.torch_version);
		findings_init(&X.fs, &X.f.arena);
		run();
		if (want[i] == CD_SEV_INFO)
			assert_null(find("torch-arch-list-invalid"));
		else
			assert_int_equal(find("torch-arch-list-invalid")->severity, want[i]);
	}
	/* No GPU and no list: torch's IndexError. */
	X.jf.arch.use_gpus = 1;
	X.jf.arch.raw = NULL;
	X.jf.arch.n_gpus = 0;
	X.jf.arch.gpus_via = "none";
	findings_init(&X.fs, &X.f.arena);
	run();
	assert_int_equal(find("torch-arch-list-invalid")->severity, CD_SEV_WARNING);
	assert_string_equal(op("fused_adam")->reason_id, "deepspeed-op-incompatible");
	assert_int_equal(op("cpu_adam")->state, JIT_OP_READY);
}

static void cache_items(void **state)
{
	struct jit_cache *c = &X.jf.cache;

	(void)state;
	c->exists = CD_TRI_YES;
	c->items[0] = (struct jit_cache_item){
		JIT_C_LOCK, "/h/.cache/torch_extensions/py312_cu124/fused_adam/lock", NULL,
		3 * 86400};
	c->items[1] = (struct jit_cache_item){JIT_C_LOCK_DIR, "/h/ext/x y/lock", NULL, 5};
	c->items[2] =
		(struct jit_cache_item){JIT_C_OTHER_BUILD, "/h/ext/py310_cu118", "other", CD_UNK};
	c->items[3] =
		(struct jit_cache_item){JIT_C_HALF_BUILT, "/h/ext/py312_cu124/q", "half", CD_UNK};
	c->n = 4;
	run();
	assert_int_equal(find("jit-cache-lock")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("jit-cache-lock"),
			    "rm -f /h/.cache/torch_extensions/py312_cu124/fused_adam/lock"));
	assert_true(has_fix(find("jit-cache-lock"), "rm -rf '/h/ext/x y/lock'"));
	assert_true(has_fix(find("jit-cache-stale"), "rm -rf /h/ext/py312_cu124/q"));
	/* Only a fresh lock: a build may be running; a warning. */
	c->items[0].age_s = 60;
	c->n = 1;
	findings_init(&X.fs, &X.f.arena);
	run();
	assert_int_equal(find("jit-cache-lock")->severity, CD_SEV_WARNING);
}

static void ops_selected(void **state)
{
	const char *sel[] = {"evoformer_attn,cpu_adam"}, *bad_sel[] = {"nope"};
	const char *bad = NULL;

	(void)state;
	memset(&X.ops, 0, sizeof(X.ops));
	assert_int_equal(jit_ops_load(&X.f.arena, &X.ops, bad_sel, 1, &bad), CD_EUSAGE);
	assert_string_equal(bad, "nope");
	assert_int_equal(jit_ops_load(&X.f.arena, &X.ops, sel, 1, &bad), 0);
	assert_true(op("evoformer_attn")->selected && op("cpu_adam")->selected);
	run();
	assert_int_equal(find("deepspeed-op-incompatible")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("deepspeed-op-incompatible"), "CUTLASS_PATH="));
	/* A GPU below evoformer's minimum. */
	X.jf.cutlass_ok = CD_TRI_YES;
	X.jf.arch.gpus[0] = (struct jit_gpu){6, 1, "P40"};
	findings_init(&X.fs, &X.f.arena);
	run();
	assert_non_null(strstr(op("evoformer_attn")->reason, "7.0"));
}

static void prebuilt_ops(void **state)
{
	(void)state;
	X.jf.py.ds_present = CD_TRI_YES;
	X.jf.py.n_ds_ops = 1;
	X.jf.py.ds_ops[0] = (struct jit_ds_op){"fused_adam", 1};
	X.jf.py.ds_torch_cuda = "12.4";
	X.jf.py.ds_torch_version = "2.5";
	run();
	assert_int_equal(op("fused_adam")->state, JIT_OP_PREBUILT);
	X.jf.py.ds_torch_cuda = "11.8";
	findings_init(&X.fs, &X.f.arena);
	run();
	assert_string_equal(op("fused_adam")->reason_id, "extension-abi-mismatch");
	assert_int_equal(find("extension-abi-mismatch")->severity, CD_SEV_ERROR);
	/* Raised by check/arch.c's builder, the title its rule gives. */
	assert_string_equal(find("extension-abi-mismatch")->title,
			    "DeepSpeed's prebuilt ops were built for another torch or CUDA");
	assert_string_equal(find("extension-abi-mismatch")->section, "jit");
}

static void smoke_mapping(void **state)
{
	struct jit_smoke s;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.ran = 1;
	s.status = "compile-failed";
	s.stage = "compile";
	s.n_diags = 1;
	s.diags[0].kind = JP_D_HEADER;
	snprintf(s.diags[0].subject, sizeof(s.diags[0].subject), "cusparse.h");
	snprintf(s.diags[0].line, sizeof(s.diags[0].line),
		 "x.cu:4:10: fatal error: cusparse.h: No such file");
	/* Nothing static found it: a finding from the log alone. */
	jit_ops_eval(&X.f, &X.jf, &X.ops, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, &s, &X.fs);
	assert_int_equal(find("toolkit-headers-missing")->severity, CD_SEV_ERROR);
	assert_true(has_fix(find("toolkit-headers-missing"), "libcusparse-dev-12-4"));
	assert_null(find("jit-smoke-failed"));
	/* Static and smoke agree: one finding with the build's line added. */
	X.jf.tk.files[2].present = CD_TRI_NO;
	findings_init(&X.fs, &X.f.arena);
	jit_ops_eval(&X.f, &X.jf, &X.ops, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, &s, &X.fs);
	assert_int_equal(X.fs.n, 2); /* + the evoformer note */
	assert_true(has_evidence(find("toolkit-headers-missing"), "the test build confirms it"));
	/* An unexplained failure keeps the log. */
	s.n_diags = 0;
	s.log = "line one\nline two\n";
	s.detail = "weird";
	findings_init(&X.fs, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, &s, &X.fs);
	assert_true(has_evidence(find("jit-smoke-failed"), "line two"));
}

static size_t count(const char *id)
{
	size_t i, n = 0;

	for (i = 0; i < X.fs.n; i++)
		n += !strcmp(X.fs.items[i]->id, id);
	return n;
}

static void smoke_line(struct jit_smoke *s, enum jp_diag_kind kind, const char *subject,
		       const char *line)
{
	memset(s, 0, sizeof(*s));
	s->ran = 1;
	s->status = "compile-failed";
	s->stage = "compile";
	s->n_diags = 1;
	s->diags[0].kind = kind;
	snprintf(s->diags[0].subject, sizeof(s->diags[0].subject), "%s", subject);
	snprintf(s->diags[0].line, sizeof(s->diags[0].line), "%s", line);
}

/* host-compiler-unsupported and python-headers-missing from a build line
 * are raised by jit.c's builders: from the line alone when the facts showed
 * nothing, else the line confirms the one finding the facts raised. */
static void smoke_owned_ids(void **state)
{
	static const char gnu[] = "host_config.h:143:2: error: #error -- unsupported GNU "
				  "version! gcc versions later than 13 are not supported!";
	static const char pyh[] = "torch/csrc/python_headers.h:12:10: fatal error: Python.h: "
				  "No such file or directory";
	const struct cd_finding *x;
	struct jit_smoke s;

	(void)state;
	smoke_line(&s, JP_D_COMPILER, "gcc", gnu);
	jit_ops_eval(&X.f, &X.jf, &X.ops, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, &s, &X.fs);
	x = find("host-compiler-unsupported");
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->title, "The test build failed: host_config.h:143:2: error: #error "
				      "-- unsupported GNU version! gcc versions later than 13 are "
				      "not supported!");
	assert_true(has_fix(x, "export CC=<an older gcc> CXX=<its C++ driver>"));
	assert_true(has_fix(x, "NVCC_APPEND_FLAGS='-allow-unsupported-compiler'"));
	assert_null(find("jit-smoke-failed"));
	/* gcc 14 is above nvcc 12.4's 13: the static finding takes the line. */
	X.jf.host.major = 14;
	X.jf.host.version = "14.2.0";
	findings_init(&X.fs, &X.f.arena);
	jit_ops_eval(&X.f, &X.jf, &X.ops, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, &s, &X.fs);
	assert_int_equal(count("host-compiler-unsupported"), 1);
	x = find("host-compiler-unsupported");
	assert_non_null(strstr(x->title, "is newer than nvcc 12.4.131 accepts"));
	assert_true(has_evidence(x, "the test build confirms it: host_config.h:143:2"));

	smoke_line(&s, JP_D_HEADER, "Python.h", pyh);
	findings_init(&X.fs, &X.f.arena);
	X.jf.host.major = 12;
	jit_ops_eval(&X.f, &X.jf, &X.ops, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, &s, &X.fs);
	x = find("python-headers-missing");
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_ERROR);
	assert_string_equal(x->title, "The test build failed: torch/csrc/python_headers.h:12:10: "
				      "fatal error: Python.h: No such file or directory");
	assert_int_equal(x->n_fix, 0);
	assert_null(find("toolkit-headers-missing"));
	X.jf.py.python_h = NULL;
	findings_init(&X.fs, &X.f.arena);
	jit_ops_eval(&X.f, &X.jf, &X.ops, &X.f.arena);
	check_jit(&X.f, &X.jf, &X.ops, &s, &X.fs);
	assert_int_equal(count("python-headers-missing"), 1);
	x = find("python-headers-missing");
	assert_non_null(strstr(x->title, "Python.h for Python 3.12 is missing"));
	assert_true(has_evidence(x, "the test build confirms it: torch/csrc/python_headers.h"));
}

static void kb_lookups(void **state)
{
	(void)state;
	assert_int_equal(kb_max_host_compiler(13, 0, "gcc", 0), 15);
	assert_int_equal(kb_max_host_compiler(12, 4, "gcc", 0), 13);
	assert_int_equal(kb_max_host_compiler(12, 4, "clang", 0), 17);
	assert_int_equal(kb_max_host_compiler(13, 1, "gcc", 0), 15); /* the 13.x row */
	assert_int_equal(kb_max_host_compiler(12, 8, "gcc", 1), 13); /* torch's bound */
	assert_int_equal(kb_max_host_compiler(12, 7, "gcc", 0), -1);
	assert_int_equal(kb_max_host_compiler(-1, 0, "gcc", 0), -1);
	/* nvcc's targets: kb/archcov, tests/unit/test_libs.c */
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(healthy),
		T(nvcc_major_mismatch),
		T(nvcc_minor_mismatch),
		T(cpu_only_torch),
		T(gcc_too_new),
		T(no_toolkit),
		T(header_missing),
		T(library_versioned_only),
		T(python_h_ninja),
		T(arch_lists),
		T(cache_items),
		T(ops_selected),
		T(prebuilt_ops),
		T(smoke_mapping),
		T(smoke_owned_ids),
		T(kb_lookups),
	};
	return cmocka_run_group_tests_name("jit", tests, NULL, NULL);
}
