/* Unit tests for probe/env: recorded variables, LD_LIBRARY_PATH entries and
 * their libraries, and the bounds on hostile values (10,000 entries, a
 * megabyte value, duplicates, empty entries). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/opts.h"
#include "probe/probe.h"

static char dir[64];

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void touch(const char *name)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static int setup(void **state)
{
	static const char *const libs[] = {
		"libcudart.so.12.4.127", "libcudart.so.12",
		"libcudart.so",		 "libcudnn_ops.so.9.1.0",
		"libcudnn.so.9",	 "libcuda.so.580.159.04",
		"libcuda.so.1",		 "libcurand.so.10",
		"libcufftw.so.11",	 "libnvrtc-builtins.so.12.4",
		"libcublasLt.so.12",	 "libcupti.so.2025.3.1",
		"libnccl.so.2",		 "libfoo.so.1",
	};
	size_t i;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cd-envprobe-XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		touch(libs[i]);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Run the env probe on envp; the caller frees f. */
static void probe(struct cd_facts *f, struct cd_opts *o, char **envp)
{
	memset(o, 0, sizeof(*o));
	o->envp = envp;
	facts_init(f, o);
	assert_int_equal(root_init(&f->root, NULL, NULL), 0);
	env_probe(f);
}

static void variables(void **state)
{
	char big[] = "TORCH_CUDA_ARCH_LIST=";
	char *huge = malloc((1 << 20) + sizeof(big));
#define S(x) (char *)(x)
	char *envp[] = {S("PATH=/usr/bin"),
			S("NCCL_P2P_DISABLE=1"),
			S("HF_TOKEN=secret"),
			S("NCCL_DEBUG=INFO"),
			S("CUDA_HOME=/opt/cuda"),
			S("NCCL_P2P_DISABLE=0"),
			S("UNRELATED=1"),
			S("=odd"),
			S("noequals"),
			huge,
			NULL};
	struct cd_facts f;
	struct cd_opts o;
	size_t i;

	(void)state;
	memcpy(huge, big, sizeof(big) - 1);
	memset(huge + sizeof(big) - 1, '8', 1 << 20);
	huge[sizeof(big) - 1 + (1 << 20)] = '\0';
	probe(&f, &o, envp);
	assert_int_equal(f.env.n_vars, 5);
	for (i = 1; i < f.env.n_vars; i++) /* sorted by name */
		assert_true(strcmp(f.env.vars[i - 1].name, f.env.vars[i].name) < 0);
	assert_string_equal(facts_env_var(&f, "NCCL_P2P_DISABLE"), "1"); /* first wins */
	assert_null(facts_env_var(&f, "HF_TOKEN"));			 /* never recorded */
	assert_null(facts_env_var(&f, "UNRELATED"));
	assert_int_equal(f.env.vars[4].truncated, 1);
	assert_string_equal(f.env.vars[4].name, "TORCH_CUDA_ARCH_LIST");
	assert_true(strlen(f.env.vars[4].value) < (1 << 20));
	assert_false(f.env.ld_library_path_set);
	facts_free(&f);
	free(huge);
}

static void libraries(void **state)
{
	char ldp[512];
	char *envp[] = {ldp, NULL};
	struct cd_facts f;
	struct cd_opts o;
	const struct cd_ldpath_entry *e;

	(void)state;
	snprintf(ldp, sizeof(ldp), "LD_LIBRARY_PATH=:%s:/nonexistent/cd::%s/;%s//:rel/dir:", dir,
		 dir, dir);
	probe(&f, &o, envp);
	assert_true(f.env.ld_library_path_set);
	assert_int_equal(f.env.n_ld_library_path_total, 8);
	assert_int_equal(f.env.n_ld_library_path_empty, 3);
	assert_int_equal(f.env.n_ld_library_path_duplicate, 2); /* "dir/" and "dir//" */
	assert_int_equal(f.env.n_ld_library_path, 3);
	e = &f.env.ld_library_path[0];
	assert_string_equal(e->path, dir);
	assert_int_equal(e->exists, CD_TRI_YES);
	assert_int_equal(e->n_libs, 7);
	assert_string_equal(e->libs[0], "libcublasLt.so.12");
	assert_string_equal(e->libs[1], "libcuda.so.1");
	assert_string_equal(e->libs[2], "libcudart.so.12");
	assert_string_equal(e->libs[3], "libcudnn.so.9");
	assert_string_equal(e->libs[4], "libcudnn_ops.so.9");
	assert_string_equal(e->libs[5], "libcurand.so.10");
	assert_string_equal(e->libs[6], "libnccl.so.2"); /* not libcupti.so.2025: a file name */
	assert_int_equal(e->n_majors, 1); /* cuDNN 9, NCCL 2, cuRAND 10 are not CUDA majors */
	assert_int_equal(e->cuda_majors[0], 12);
	assert_int_equal(f.env.ld_library_path[1].exists, CD_TRI_NO);
	assert_null(f.env.ld_library_path[1].libs);
	assert_string_equal(f.env.ld_library_path[2].path, "rel/dir");
	facts_free(&f);
}

static void hostile(void **state)
{
	size_t n = 10000, i, len = 0, cap = n * 40 + 64;
	char *ldp = malloc(cap);
	char *envp[] = {ldp, NULL};
	struct cd_facts f;
	struct cd_opts o;
	double t0;

	(void)state;
	/* 10,000 distinct missing directories, with empty entries between. */
	len = (size_t)snprintf(ldp, cap, "LD_LIBRARY_PATH=");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(ldp + len, cap - len, "/nonexistent/cd-%zu:%s", i,
					i % 100 ? "" : ":");
	t0 = now_ms();
	probe(&f, &o, envp);
	assert_true(now_ms() - t0 < 500);
	assert_int_equal(f.env.n_ld_library_path_total, n + n / 100 + 1); /* + the trailing ':' */
	assert_true(f.env.n_ld_library_path <= 256);
	assert_true(f.env.ld_library_path_truncated);
	facts_free(&f);
	/* 10,000 copies of one real directory: read once, recorded once. */
	len = (size_t)snprintf(ldp, cap, "LD_LIBRARY_PATH=");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(ldp + len, cap - len, "%s:", dir);
	ldp[len - 1] = '\0';
	t0 = now_ms();
	probe(&f, &o, envp);
	assert_true(now_ms() - t0 < 500);
	assert_int_equal(f.env.n_ld_library_path, 1);
	assert_int_equal(f.env.n_ld_library_path_duplicate, n - 1);
	assert_false(f.env.ld_library_path_truncated);
	facts_free(&f);
	/* One entry longer than PATH_MAX. */
	len = (size_t)snprintf(ldp, cap, "LD_LIBRARY_PATH=/");
	memset(ldp + len, 'a', 9000);
	ldp[len + 9000] = '\0';
	probe(&f, &o, envp);
	assert_int_equal(f.env.n_ld_library_path, 1);
	assert_int_equal(f.env.ld_library_path[0].exists, CD_TRI_NO);
	assert_true(strlen(f.env.ld_library_path[0].path) < 200);
	facts_free(&f);
	/* Only separators. */
	snprintf(ldp, cap, "LD_LIBRARY_PATH=:::;");
	probe(&f, &o, envp);
	assert_int_equal(f.env.n_ld_library_path, 0);
	assert_int_equal(f.env.n_ld_library_path_empty, 5);
	facts_free(&f);
	free(ldp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(variables),
		cmocka_unit_test(libraries),
		cmocka_unit_test(hostile),
	};
	return cmocka_run_group_tests_name("envprobe", tests, setup, teardown);
}
