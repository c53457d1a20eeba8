/* Unit tests for probe/toolkit's inventory (tkscan.c): every file of
 * data/cuda_dev_files.tsv looked for in every layout, with its scope; link
 * libraries in torch's -L directory, under targets/, as versioned copies
 * only, and as the linker finds them (LIBRARY_PATH); the wheels of a site
 * directory. Fixture trees are made under /tmp at test time. */
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
#include <unistd.h>

#include "core/opts.h"
#include "kb/devfiles.h"
#include "probe/probe.h"
#include "probe/toolkit/tkscan.h"

static char dir[64];

/* An empty file at dir/rel, its parents made. */
static void touch(const char *rel)
{
	char p[512], *s;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cd-tkscan-XXXXXX");
	assert_non_null(mkdtemp(dir));
	touch("usr/local/cuda-12.4/bin/nvcc");
	{
		char p[512];
		snprintf(p, sizeof(p), "%s/usr/local/cuda-12.4/bin/nvcc", dir);
		chmod(p, 0755);
	}
	touch("usr/local/cuda-12.4/include/cusparse.h");
	touch("usr/local/cuda-12.4/targets/x86_64-linux/include/curand.h");
	touch("usr/local/cuda-12.4/lib64/libcudart.so");
	touch("usr/local/cuda-12.4/lib64/libcurand.so.10");
	touch("usr/local/cuda-12.4/targets/x86_64-linux/lib/libcublas.so");
	touch("opt/ld/libcusparse.so");
	touch("venv/lib/python3.12/site-packages/nvidia/cu13/include/cufft.h");
	touch("venv/lib/python3.12/site-packages/nvidia/curand/include/curand.h");
	touch("venv/lib/python3.12/site-packages/nvidia/curand/lib/libcurand.so.10");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static const struct cd_header *file_of(const struct cd_toolkit *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n_headers; i++)
		if (!strcmp(t->headers[i].name, name))
			return &t->headers[i];
	fail_msg("%s is not in the inventory", name);
	return NULL;
}

static void probe_with(struct cd_facts *f, struct cd_opts *o, char **envp)
{
	memset(o, 0, sizeof(*o));
	o->envp = envp;
	facts_init(f, o);
	assert_int_equal(root_init(&f->root, dir, NULL), 0);
	toolkit_probe(f);
}

/* The selected toolkit: one entry per data row, in its order. */
static void inventory(void **state)
{
#define S(x) (char *)(x)
	char *envp[] = {S("CUDA_HOME=/usr/local/cuda-12.4"), S("LIBRARY_PATH=rel:/opt/ld"),
			S("PATH=/usr/bin"), NULL};
	struct cd_facts f;
	struct cd_opts o;
	const struct cd_toolkit *t;
	const struct cd_header *h;
	size_t i;

	(void)state;
	probe_with(&f, &o, envp);
	assert_true(f.toolkit.selected >= 0);
	t = &f.toolkit.items[f.toolkit.selected];
	assert_string_equal(t->lib_dir, "/usr/local/cuda-12.4/lib64");
	assert_int_equal(t->n_headers, devfiles_count());
	for (i = 0; i < t->n_headers; i++)
		assert_string_equal(t->headers[i].name, devfiles_at(i)->file);
	h = file_of(t, "cusparse.h");
	assert_int_equal(h->present, CD_TRI_YES);
	assert_string_equal(h->scope, "include");
	assert_true(h->required && h->listed && !h->is_lib);
	h = file_of(t, "curand.h"); /* nvcc finds it, the C++ compiler does not */
	assert_int_equal(h->present, CD_TRI_NO);
	assert_string_equal(h->scope, "targets");
	assert_string_equal(h->path, "/usr/local/cuda-12.4/targets/x86_64-linux/include/curand.h");
	h = file_of(t, "cuda_fp16.h"); /* absent; only jit's ops need it */
	assert_int_equal(h->present, CD_TRI_NO);
	assert_null(h->path);
	assert_null(h->scope);
	assert_false(h->listed);
	h = file_of(t, "libcudart.so");
	assert_true(h->is_lib);
	assert_int_equal(h->present, CD_TRI_YES);
	assert_string_equal(h->scope, "lib");
	h = file_of(t, "libcurand.so"); /* -lcurand cannot use libcurand.so.10 */
	assert_int_equal(h->present, CD_TRI_NO);
	assert_null(h->path);
	assert_string_equal(h->versioned, "/usr/local/cuda-12.4/lib64/libcurand.so.10");
	assert_string_equal(h->scope, "lib");
	h = file_of(t, "libcublas.so");
	assert_int_equal(h->present, CD_TRI_NO);
	assert_string_equal(h->scope, "targets");
	h = file_of(t, "libcusparse.so"); /* LIBRARY_PATH: the link finds it */
	assert_int_equal(h->present, CD_TRI_YES);
	assert_string_equal(h->scope, "linker");
	assert_string_equal(h->path, "/opt/ld/libcusparse.so");
	facts_free(&f);
}

/* Every wheel of a site directory, nvidia/cu13 included. */
static void wheels(void **state)
{
	char *envp[] = {S("PATH=/usr/bin"), NULL};
	const char *site = "/venv/lib/python3.12/site-packages";
	struct cd_facts f;
	struct cd_opts o;
	struct cd_toolkit t;
	const struct cd_header *h;

	(void)state;
	probe_with(&f, &o, envp);
	tkscan_wheels(&f, site, &t);
	assert_int_equal(t.exists, CD_TRI_YES);
	h = file_of(&t, "cufft.h");
	assert_string_equal(h->path,
			    "/venv/lib/python3.12/site-packages/nvidia/cu13/include/cufft.h");
	assert_string_equal(h->scope, "wheel");
	assert_int_equal(h->present, CD_TRI_NO);
	h = file_of(&t, "libcurand.so");
	assert_null(h->path);
	assert_string_equal(h->versioned,
			    "/venv/lib/python3.12/site-packages/nvidia/curand/lib/libcurand.so.10");
	tkscan_wheels(&f, "/nonexistent", &t);
	assert_int_equal(t.exists, CD_TRI_NO);
	assert_null(file_of(&t, "cufft.h")->path);
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inventory),
		cmocka_unit_test(wheels),
	};
	return cmocka_run_group_tests_name("tkscan", tests, setup, teardown);
}
