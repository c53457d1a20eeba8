/* jit_smoke: see jit_smoke.h. The flags are those torch 2.x writes into an
 * extension's build.ninja (COMMON_NVCC_FLAGS, --compiler-options -fPIC,
 * -std=c++17, _get_cuda_arch_flags, -ccbin $CC, -isystem include paths) and
 * its link line ($CXX -shared ... -L CUDA_HOME/lib64 -lcudart). Each step
 * runs in an isolated child (isolate.h); progress goes to the caller's
 * callback, never to the terminal. */
#include "probe/jit/jit_smoke.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/str.h"
#include "probe/isolate.h"

extern char **environ;

#define ARGS_MAX 64
#define LOG_CAP	 ((size_t)256 << 10)

static const char smoke_cu[] =
	"// cuda-doctor jit --compile: a test extension built like a torch one.\n"
	"#include <cstdio>\n"
	"#include <cuda_runtime.h>\n"
	"#include <cusparse.h>\n"
	"#include <cublas_v2.h>\n"
	"#include <curand.h>\n"
	"#ifdef CD_WITH_TORCH\n"
	"#include <ATen/cuda/CUDAContext.h>\n"
	"#endif\n"
	"__global__ void cd_smoke_kernel(int *v, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\tv[i] = v[i] * 2 + 1;\n"
	"}\n"
	"extern \"C\" int cd_smoke_versions(char *out, int cap)\n"
	"{\n"
	"\tint rt = 0, s0 = 0, s1 = 0, s2 = 0, b0 = 0, b1 = 0, b2 = 0, rn = 0;\n"
	"\tcudaRuntimeGetVersion(&rt);\n"
	"\tcusparseGetProperty(MAJOR_VERSION, &s0);\n"
	"\tcusparseGetProperty(MINOR_VERSION, &s1);\n"
	"\tcusparseGetProperty(PATCH_LEVEL, &s2);\n"
	"\tcublasGetProperty(MAJOR_VERSION, &b0);\n"
	"\tcublasGetProperty(MINOR_VERSION, &b1);\n"
	"\tcublasGetProperty(PATCH_LEVEL, &b2);\n"
	"\tcurandGetVersion(&rn);\n"
	"\tsnprintf(out, cap, \"cudart %d, cusparse %d.%d.%d, cublas %d.%d.%d, curand %d\",\n"
	"\t\t rt, s0, s1, s2, b0, b1, b2, rn);\n"
	"\treturn 0;\n"
	"}\n"
	"extern \"C\" int cd_smoke_run(char *msg, int cap)\n"
	"{\n"
	"\tint h[64], *d = 0, i;\n"
	"\tcudaError_t e;\n"
	"\tcublasHandle_t b;\n"
	"\tcusparseHandle_t s;\n"
	"\tfor (i = 0; i < 64; i++)\n"
	"\t\th[i] = i;\n"
	"\tif ((e = cudaMalloc((void **)&d, sizeof(h))) != cudaSuccess)\n"
	"\t\treturn snprintf(msg, cap, \"cudaMalloc: %s\", cudaGetErrorString(e)), 2;\n"
	"\tcudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice);\n"
	"\tcd_smoke_kernel<<<1, 64>>>(d, 64);\n"
	"\tif ((e = cudaGetLastError()) != cudaSuccess || (e = cudaDeviceSynchronize()) != "
	"cudaSuccess)\n"
	"\t\treturn snprintf(msg, cap, \"kernel launch: %s\", cudaGetErrorString(e)), 3;\n"
	"\tcudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);\n"
	"\tcudaFree(d);\n"
	"\tfor (i = 0; i < 64; i++)\n"
	"\t\tif (h[i] != 2 * i + 1)\n"
	"\t\t\treturn snprintf(msg, cap, \"kernel result wrong at %d\", i), 4;\n"
	"\tif (cublasCreate(&b) != CUBLAS_STATUS_SUCCESS)\n"
	"\t\treturn snprintf(msg, cap, \"cublasCreate failed\"), 5;\n"
	"\tcublasDestroy(b);\n"
	"\tif (cusparseCreate(&s) != CUSPARSE_STATUS_SUCCESS)\n"
	"\t\treturn snprintf(msg, cap, \"cusparseCreate failed\"), 6;\n"
	"\tcusparseDestroy(s);\n"
	"\treturn snprintf(msg, cap, \"kernel ran; cuBLAS and cuSPARSE handles created\"), 0;\n"
	"}\n";

struct args {
	int n;
	char *v[ARGS_MAX + 1];
};

static void add(struct cd_facts *f, struct args *a, const char *s)
{
	if (a->n < ARGS_MAX && s)
		a->v[a->n++] = arena_strdup(&f->arena, s);
	a->v[a->n] = NULL;
}

/* What a command line or flag list shows when it does not fit its buffer. */
#define SMOKE_TOO_LONG "(too long to show)"

static const char *cmdline(struct cd_facts *f, const struct args *a)
{
	struct cd_buf b;
	const char *s;
	int i, rc = 0;

	buf_init(&b, 64 << 10);
	for (i = 0; !rc && i < a->n; i++)
		rc = buf_printf(&b, strpbrk(a->v[i], " \t'") ? "%s'%s'" : "%s%s", i ? " " : "",
				a->v[i]);
	s = rc ? SMOKE_TOO_LONG : arena_strdup(&f->arena, b.p ? b.p : "");
	buf_free(&b);
	return s;
}

/* The -gencode flags torch would pass; the note says when nvcc's default is used. */
static void arch_flags(struct cd_facts *f, const struct cd_jit_facts *jf, struct args *a,
		       struct jit_smoke *s)
{
	const struct jit_arch *ar = &jf->arch;
	struct cd_buf b;
	size_t i;
	int rc = 0;

	buf_init(&b, 8 << 10);
	if (!ar->use_gpus && ar->rc == 0) {
		for (i = 0; i < ar->n; i++) {
			const struct archlist_entry *e = &ar->entries[i];
			const char *sfx = e->arch_specific ? "a" : "";
			add(f, a,
			    arena_printf(&f->arena, "-gencode=arch=compute_%d%d%s,code=sm_%d%d%s",
					 e->major, e->minor, sfx, e->major, e->minor, sfx));
			if (!rc)
				rc = buf_printf(&b, "%s%s", b.len ? " " : "", a->v[a->n - 1]);
			if (e->ptx) {
				add(f, a,
				    arena_printf(&f->arena,
						 "-gencode=arch=compute_%d%d%s,code=compute_%d%d%s",
						 e->major, e->minor, sfx, e->major, e->minor, sfx));
				if (!rc)
					rc = buf_printf(&b, " %s", a->v[a->n - 1]);
			}
		}
	} else if (ar->use_gpus && ar->n_gpus) {
		/* torch: one entry per distinct GPU capability, sorted, last +PTX. */
		int cc[JIT_GPUS_MAX], n = 0, k, j;
		for (i = 0; i < ar->n_gpus; i++) {
			int v = ar->gpus[i].major * 10 + ar->gpus[i].minor, dup = 0;
			for (k = 0; k < n; k++)
				dup |= cc[k] == v;
			for (k = n; !dup && k > 0 && cc[k - 1] > v; k--)
				cc[k] = cc[k - 1];
			if (!dup)
				cc[k] = v, n++;
		}
		for (j = 0; j < n; j++) {
			add(f, a,
			    arena_printf(&f->arena, "-gencode=arch=compute_%d,code=sm_%d", cc[j],
					 cc[j]));
			if (!rc)
				rc = buf_printf(&b, "%s%s", b.len ? " " : "", a->v[a->n - 1]);
		}
		add(f, a,
		    arena_printf(&f->arena, "-gencode=arch=compute_%d,code=compute_%d", cc[n - 1],
				 cc[n - 1]));
		if (!rc)
			rc = buf_printf(&b, " %s", a->v[a->n - 1]);
	} else {
		s->arch_note = ar->rc ? "TORCH_CUDA_ARCH_LIST is not valid (torch would stop with "
					"ValueError); built for nvcc's default architecture"
				      : "no TORCH_CUDA_ARCH_LIST and no GPU: built for nvcc's "
					"default architecture";
	}
	s->arch_flags = rc ? SMOKE_TOO_LONG : arena_strdup(&f->arena, b.p ? b.p : "");
	buf_free(&b);
}

static int write_source(const char *dir)
{
	char p[PATH_MAX];
	int fd;
	ssize_t w;

	if (fsu_join(p, sizeof(p), dir, "smoke.cu"))
		return CD_ERANGE;
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return CD_EIO;
	w = write(fd, smoke_cu, sizeof(smoke_cu) - 1);
	close(fd);
	return w == (ssize_t)(sizeof(smoke_cu) - 1) ? 0 : CD_EIO;
}

/* Remove the private directory and what nvcc or we left in it (one level,
 * plus directories one level down). */
static int remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && n++ < 10000) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno == EISDIR) {
			char sub[PATH_MAX];
			if (fsu_join(sub, sizeof(sub), dir, e->d_name) == 0)
				remove_dir(sub);
		}
	}
	closedir(d);
	return rmdir(dir);
}

/* Our environment with TMPDIR pointed at the private directory, so that
 * nvcc's intermediate files land there and go with it. */
static char **child_env(struct cd_facts *f, const char *dir)
{
	size_t n = 0, i, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = arena_calloc(&f->arena, n + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "TMPDIR=", 7))
			env[k++] = environ[i];
	env[k++] = arena_printf(&f->arena, "TMPDIR=%s", dir);
	env[k] = NULL;
	return env;
}

static const char *tail(struct cd_facts *f, const struct cd_buf *b, size_t max)
{
	if (!b->p)
		return NULL;
	if (b->len <= max)
		return arena_strndup(&f->arena, b->p, b->len);
	return arena_strndup(&f->arena, b->p + b->len - max, max);
}

/* A child's exit status, or -1 when it did not exit (timeout, signal, not run). */
static int exit_code(const struct iso_job *j)
{
	return j->status == ISO_OK || j->status == ISO_EXITED ? j->code : -1;
}

static int step(struct cd_facts *f, const struct args *a, char **env, const char *cwd,
		int timeout_ms, struct jit_smoke *s, long *ms, const char *stage)
{
	struct iso_job j = {.argv = a->v, .envp = env, .cwd = cwd};
	int rc, ok, timed_out;

	rc = isolate_run(&j, 1, timeout_ms, LOG_CAP, NULL);
	*ms = (long)(j.elapsed_us / 1000);
	timed_out = j.status == ISO_TIMEOUT;
	ok = rc == 0 && exit_code(&j) == 0;
	if (!ok) {
		s->stage = stage;
		s->status = timed_out			? "timeout"
			    : !strcmp(stage, "compile") ? "compile-failed"
							: "link-failed";
		if (timed_out)
			s->detail =
				arena_printf(&f->arena, "%s did not finish in %d s and was killed",
					     a->v[0], timeout_ms / 1000);
		else if (rc)
			s->detail = arena_printf(&f->arena, "%s could not be started", a->v[0]);
		s->log = tail(f, &j.out, 6000);
		if (j.out.p)
			s->n_diags = jp_build_log((const uint8_t *)j.out.p, j.out.len, s->diags,
						  JIT_SMOKE_DIAGS_MAX);
	}
	iso_job_free(&j);
	return ok ? 0 : -1;
}

struct load_arg {
	const char *so;
	int run;
};

/* In the child: load the test extension; with a GPU, run its kernel. Its
 * lines and whatever the CUDA libraries print make up the job's log. */
static void load_child(struct iso_out *o, void *arg)
{
	const struct load_arg *a = arg;
	int (*fn)(char *, int);
	char msg[512] = "";
	void *h, *sym;

	setenv("CUDA_CACHE_DISABLE", "1", 1); /* no PTX JIT cache in $HOME */
	h = dlopen(a->so, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		iso_linef(o, "dlopen: %s", dlerror());
		o->exit_code = 3;
		return;
	}
	if ((sym = dlsym(h, "cd_smoke_versions"))) {
		memcpy(&fn, &sym, sizeof(fn));
		fn(msg, (int)sizeof(msg));
		iso_linef(o, "versions: %s", msg);
	}
	if (!a->run)
		return;
	if (!(sym = dlsym(h, "cd_smoke_run"))) {
		iso_linef(o, "dlsym: %s", dlerror());
		o->exit_code = 4;
		return;
	}
	memcpy(&fn, &sym, sizeof(fn));
	o->exit_code = fn(msg, (int)sizeof(msg)) ? 5 : 0;
	iso_linef(o, "run: %s", msg);
}

/* "versions: ...\nrun: ..." -> the text after prefix on its line. */
static const char *line_after(struct cd_facts *f, const struct cd_buf *b, const char *prefix)
{
	const char *p = b->p ? strstr(b->p, prefix) : NULL;

	if (!p)
		return NULL;
	p += strlen(prefix);
	return arena_strndup(&f->arena, p, strcspn(p, "\n"));
}

static void load(struct cd_facts *f, const struct jit_smoke_opts *o, const char *dir,
		 struct jit_smoke *s)
{
	struct load_arg la = {fsu_path(&f->arena, dir, "smoke.so"), o->run_kernel};
	struct iso_job j = {.fn = load_child, .arg = &la, .output = ISO_LOG};
	const struct cd_buf *out = &j.out;
	int code;

	if (isolate_run(&j, 1, o->load_timeout_ms, 64 << 10, NULL) != 0) {
		s->status = "setup-failed", s->stage = "load", s->detail = "fork failed";
		iso_job_free(&j);
		return;
	}
	code = exit_code(&j);
	s->load_ms = (long)(j.elapsed_us / 1000);
	s->versions = line_after(f, out, "versions: ");
	s->loaded = code == 0 || code == 5 || code == 4 ? CD_TRI_YES
		    : code == 3				? CD_TRI_NO
							: CD_TRI_UNKNOWN;
	if (j.status == ISO_TIMEOUT) {
		s->status = "timeout", s->stage = o->run_kernel ? "run" : "load";
		s->detail = arena_printf(&f->arena, "the test child did not finish in %d s",
					 o->load_timeout_ms / 1000);
	} else if (j.status == ISO_CRASHED) {
		s->status = o->run_kernel ? "run-failed" : "load-failed";
		s->stage = o->run_kernel ? "run" : "load";
		s->detail = arena_printf(&f->arena, "the test child died from signal %d", j.code);
	} else if (code == 3) {
		s->status = "load-failed", s->stage = "load";
		s->detail = line_after(f, out, "dlopen: ");
	} else if (code != 0) {
		s->status = "run-failed", s->stage = "run";
		s->detail = line_after(f, out, "run: ");
		s->kernel_ran = CD_TRI_NO;
	} else {
		s->status = "ok";
		s->kernel_ran = o->run_kernel ? CD_TRI_YES : CD_TRI_UNKNOWN;
		if (o->run_kernel)
			s->detail = line_after(f, out, "run: ");
	}
	if (s->log == NULL && strcmp(s->status, "ok"))
		s->log = tail(f, out, 4000);
	iso_job_free(&j);
}

static void build_commands(struct cd_facts *f, const struct cd_jit_facts *jf, const char *dir,
			   struct args *nv, struct args *ln, struct jit_smoke *s)
{
	const struct jit_toolkit *tk = &jf->tk;
	const char *cxx = jf->cxx.path ? jf->cxx.path : "c++";

	add(f, nv, tk->nvcc);
	if (jf->env.cc && *jf->env.cc) {
		add(f, nv, "-ccbin");
		add(f, nv, jf->env.cc);
	}
	add(f, nv, "-c");
	add(f, nv, fsu_path(&f->arena, dir, "smoke.cu"));
	add(f, nv, "-o");
	add(f, nv, fsu_path(&f->arena, dir, "smoke.o"));
	add(f, nv, "-D__CUDA_NO_HALF_OPERATORS__");
	add(f, nv, "-D__CUDA_NO_HALF_CONVERSIONS__");
	add(f, nv, "-D__CUDA_NO_BFLOAT16_CONVERSIONS__");
	add(f, nv, "-D__CUDA_NO_HALF2_OPERATORS__");
	add(f, nv, "--expt-relaxed-constexpr");
	add(f, nv, "--compiler-options");
	add(f, nv, "-fPIC");
	add(f, nv, "-std=c++17");
	arch_flags(f, jf, nv, s);
	if (jf->py.torch_include) {
		s->with_torch_headers = 1;
		add(f, nv, "-isystem");
		add(f, nv, jf->py.torch_include);
		add(f, nv, "-isystem");
		add(f, nv, fsu_path(&f->arena, jf->py.torch_include, "torch/csrc/api/include"));
		add(f, nv, "-DCD_WITH_TORCH");
	}
	add(f, nv, "-isystem");
	add(f, nv, tk->include_dir);

	add(f, ln, cxx);
	add(f, ln, fsu_path(&f->arena, dir, "smoke.o"));
	add(f, ln, "-shared");
	add(f, ln, "-o");
	add(f, ln, fsu_path(&f->arena, dir, "smoke.so"));
	add(f, ln, arena_printf(&f->arena, "-L%s", tk->lib_dir));
	add(f, ln, "-lcudart");
	add(f, ln, "-lcusparse");
	add(f, ln, "-lcublas");
	add(f, ln, "-lcurand");
	add(f, ln, arena_printf(&f->arena, "-Wl,-rpath,%s", tk->lib_dir));
	s->compile_cmd = cmdline(f, nv);
	s->link_cmd = cmdline(f, ln);
}

static void tell(const struct jit_smoke_opts *o, enum jit_smoke_phase phase, const char *tool,
		 const struct jit_smoke *s)
{
	if (o->progress)
		o->progress(o->progress_ctx, phase, tool, s);
}

/* nvcc, the link, the load: each step only when the one before succeeded. */
static void build_and_load(struct cd_facts *f, const struct jit_smoke_opts *o, const char *dir,
			   char **env, const struct args *nv, const struct args *ln,
			   struct jit_smoke *s)
{
	tell(o, JIT_SMOKE_COMPILE, nv->v[0], s);
	if (step(f, nv, env, dir, o->build_timeout_ms, s, &s->compile_ms, "compile"))
		return;
	tell(o, JIT_SMOKE_LINK, ln->v[0], s);
	if (step(f, ln, env, dir, o->build_timeout_ms, s, &s->link_ms, "link"))
		return;
	tell(o, JIT_SMOKE_LOAD, NULL, s);
	load(f, o, dir, s);
}

int jit_smoke_run(struct cd_facts *f, const struct cd_jit_facts *jf, const struct jit_smoke_opts *o,
		  struct jit_smoke *s)
{
	const char *base = jf->env.tmpdir && jf->env.tmpdir[0] == '/' ? jf->env.tmpdir : "/tmp";
	char dir[PATH_MAX];
	struct args nv = {0}, ln = {0};
	char **env;

	memset(s, 0, sizeof(*s));
	s->ran = 1;
	s->loaded = s->kernel_ran = s->cleaned = CD_TRI_UNKNOWN;
	if (!jf->tk.nvcc || !jf->tk.lib_dir) {
		s->status = "skipped";
		s->detail = jf->tk.cuda_home
				    ? arena_printf(&f->arena, "no nvcc at %s/bin/nvcc",
						   jf->tk.cuda_home)
				    : "torch would find no CUDA toolkit (CUDA_HOME is None)";
		return 0;
	}
	if (fsu_join(dir, sizeof(dir), base, "cuda-doctor-jit-XXXXXX") || !mkdtemp(dir)) {
		s->status = "setup-failed";
		s->detail = arena_printf(&f->arena, "cannot create a directory under %s: %s", base,
					 strerror(errno));
		return 0;
	}
	s->tmpdir = arena_strdup(&f->arena, dir);
	env = child_env(f, dir);
	build_commands(f, jf, dir, &nv, &ln, s);
	if (write_source(dir) != 0) {
		s->status = "setup-failed", s->detail = "cannot write the test source";
	} else {
		build_and_load(f, o, dir, env, &nv, &ln, s);
		tell(o, JIT_SMOKE_DONE, NULL, s);
	}
	s->cleaned = remove_dir(dir) == 0 ? CD_TRI_YES : CD_TRI_NO;
	return 0;
}
