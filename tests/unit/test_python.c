/* Unit tests for probe/python_dirs.c on a fixture root made at test time:
 * python_module_dir follows import's order (a regular package anywhere on
 * sys.path beats an earlier namespace directory), and python_probe finds
 * Python.h where a build looks for it and lists what it searched. */
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
#include "probe/stack/python.h"
#include "probe/stack/stack.h"

static char dir[64];

/* Make path (and its parents) under the fixture root: a directory when it
 * ends with '/', else an empty file (or one holding text). */
static void make(const char *path, const char *text)
{
	char p[512];
	size_t i, n;
	int fd;

	n = (size_t)snprintf(p, sizeof(p), "%s%s", dir, path);
	assert_true(n < sizeof(p));
	for (i = strlen(dir) + 1; i < n; i++)
		if (p[i] == '/') {
			p[i] = '\0';
			mkdir(p, 0755);
			p[i] = '/';
		}
	if (p[n - 1] == '/')
		return;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	if (text)
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/cd-python-XXXXXX");
	assert_non_null(mkdtemp(dir));
	make("/opt/venv/pyvenv.cfg", "home = /usr/bin\nversion_info = 3.12.3.final.0\n");
	make("/opt/venv/bin/python3", "");
	make("/usr/bin/python3", "");
	make("/opt/venv/lib/python3.12/site-packages/torch/__init__.py", "");
	make("/opt/venv/lib/python3.12/site-packages/ninja/__init__.py", "");
	make("/opt/venv/lib/python3.12/site-packages/nsonly/", NULL);
	make("/opt/venv/lib/python3.12/site-packages/afile", "");
	make("/pp/torch/", NULL);  /* a namespace portion earlier on sys.path */
	make("/pp/nsonly/", NULL); /* namespace only: the first one wins */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void probe(struct cd_facts *f, struct cd_opts *o, struct cd_python_facts *py)
{
	static char *envp[] = {(char *)"VIRTUAL_ENV=/opt/venv", (char *)"PYTHONPATH=/pp",
			       (char *)"PATH=/usr/bin", (char *)"HOME=/nohome", NULL};

	memset(o, 0, sizeof(*o));
	o->root = dir;
	o->envp = envp;
	facts_init(f, o);
	assert_int_equal(root_init(&f->root, dir, NULL), 0);
	python_probe(f, py);
}

static void module_dir(void **state)
{
	struct cd_facts f;
	struct cd_opts o;
	struct cd_python_facts py;
	size_t site = 99;
	const char *d;

	(void)state;
	probe(&f, &o, &py);
	assert_string_equal(py.prefix, "/opt/venv");
	assert_int_equal(py.n_site, 2);
	assert_string_equal(py.site[0].path, "/pp");
	d = python_module_dir(&f, &py, "torch", &site);
	assert_string_equal(d, "/opt/venv/lib/python3.12/site-packages/torch");
	assert_int_equal(site, 1);
	d = python_module_dir(&f, &py, "nsonly", &site);
	assert_string_equal(d, "/pp/nsonly");
	assert_int_equal(site, 0);
	assert_string_equal(python_module_dir(&f, &py, "ninja", NULL),
			    "/opt/venv/lib/python3.12/site-packages/ninja");
	assert_null(python_module_dir(&f, &py, "afile", NULL)); /* not a directory */
	assert_null(python_module_dir(&f, &py, "deepspeed", NULL));
	assert_null(python_module_dir(&f, &py, "../venv", NULL));
	assert_null(python_module_dir(&f, &py, "", NULL));
	facts_free(&f);
}

static void header(void **state)
{
	struct cd_facts f;
	struct cd_opts o;
	struct cd_python_facts py;

	(void)state;
	/* None anywhere: the environment, its base (/usr, once) and /usr/local. */
	probe(&f, &o, &py);
	assert_null(py.python_h);
	assert_int_equal(py.n_python_h_searched, 3);
	assert_string_equal(py.python_h_searched[0], "/opt/venv/include/python3.12/Python.h");
	assert_string_equal(py.python_h_searched[1], "/usr/include/python3.12/Python.h");
	assert_string_equal(py.python_h_searched[2], "/usr/local/include/python3.12/Python.h");
	facts_free(&f);
	/* The base interpreter's: the search stops there. */
	make("/usr/include/python3.12/Python.h", "");
	probe(&f, &o, &py);
	assert_string_equal(py.python_h, "/usr/include/python3.12/Python.h");
	assert_int_equal(py.n_python_h_searched, 2);
	facts_free(&f);
	/* A directory named Python.h is not the header. */
	make("/opt/venv/include/python3.12/Python.h/", NULL);
	probe(&f, &o, &py);
	assert_string_equal(py.python_h, "/usr/include/python3.12/Python.h");
	facts_free(&f);
}

static void no_environment(void **state)
{
	static char *envp[] = {(char *)"PATH=/nowhere", NULL};
	struct cd_facts f;
	struct cd_opts o;
	struct cd_python_facts py;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.root = dir;
	o.envp = envp;
	facts_init(&f, &o);
	assert_int_equal(root_init(&f.root, dir, NULL), 0);
	python_probe(&f, &py);
	assert_null(py.prefix);
	assert_null(py.python_h);
	assert_int_equal(py.n_python_h_searched, 0);
	assert_null(python_module_dir(&f, &py, "torch", NULL));
	facts_free(&f);
}

/* An environment without a site directory: known to hold no packages (and
 * no undefined behaviour on the way: this runs under UBSan in make test). */
static void empty_environment(void **state)
{
	static char *envp[] = {(char *)"PATH=/nowhere", NULL};
	struct cd_facts f;
	struct cd_opts o;

	(void)state;
	make("/empty/", NULL);
	memset(&o, 0, sizeof(o));
	o.root = dir;
	o.env = "/empty";
	o.envp = envp;
	facts_init(&f, &o);
	assert_int_equal(root_init(&f.root, dir, NULL), 0);
	stack_probe(&f);
	assert_non_null(f.stack);
	assert_string_equal(f.stack->python.prefix, "/empty");
	assert_int_equal(f.stack->python.n_site, 0);
	assert_true(f.stack->packages_known);
	assert_int_equal(f.stack->n_packages, 0);
	assert_null(stack_find(f.stack, "torch"));
	assert_false(f.stack->torch.installed);
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(module_dir),
		cmocka_unit_test(header),
		cmocka_unit_test(no_environment),
		cmocka_unit_test(empty_environment),
	};
	return cmocka_run_group_tests_name("python", tests, setup, teardown);
}
