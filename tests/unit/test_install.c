/* Unit tests for check/install: the torch wheel for this machine (driver,
 * every visible GPU, the fatbin on disk, the data) and the command for the
 * environment's installer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "check/install.h"
#include "core/err.h"
#include "facts/facts.h"
#include "facts/libs.h"
#include "facts/stack.h"
#include "format/fatbin.h"

struct fx {
	struct cd_facts f;
	struct cd_stack_facts st;
	struct cd_libs_facts L;
	struct cd_package pk[4];
	struct cd_gpu gpus[4];
	struct install_choice c;
};

static struct fx X;

static int setup(void **state)
{
	(void)state;
	memset(&X, 0, sizeof(X));
	facts_init(&X.f, NULL);
	assert_int_equal(root_init(&X.f.root, NULL, NULL), 0);
	X.f.driver.cuda_version_int = CD_UNK;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	facts_free(&X.f);
	return 0;
}

static void driver(const char *version, int cuda)
{
	X.f.driver.version = version;
	X.f.driver.version_source = "nvml";
	X.f.driver.cuda_version_int = cuda > 0 ? cuda : CD_UNK;
}

static void gpu(int major, int minor)
{
	struct cd_gpu *g = &X.gpus[X.f.n_gpus];

	g->index = (int64_t)X.f.n_gpus;
	g->cc_major = major;
	g->cc_minor = minor;
	g->uuid = X.f.n_gpus ? "GPU-bbbb" : "GPU-aaaa";
	X.f.gpus = X.gpus;
	X.f.n_gpus++;
	X.f.gpus_known = 1;
}

/* A Python environment of kind at prefix; packages by name (sorted). */
static void env(const char *kind, const char *prefix)
{
	X.st.python.kind = kind;
	X.st.python.prefix = prefix;
	X.st.python.executable = prefix ? "/env/bin/python3" : NULL;
	X.st.packages = X.pk;
	X.f.stack = &X.st;
}

static void pkg(const char *name, const char *version, unsigned sources)
{
	struct cd_package *p = &X.pk[X.st.n_packages++];

	p->name = name;
	p->version = version;
	p->sources = sources;
}

static void torch(const char *version, const char *cuda)
{
	X.st.torch.installed = 1;
	X.st.torch.version = version;
	X.st.torch.cuda = cuda;
}

/* The installed libtorch_cuda.so holds these SASS keys. */
static void torch_fatbin(const uint32_t *sass, size_t n)
{
	X.L.torch = 1;
	X.L.torch_cuda_lib = "/env/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so";
	X.L.torch_arch.known = 1;
	X.L.torch_arch.sass = (uint32_t *)sass;
	X.L.torch_arch.n_sass = n;
	X.st.libraries = &X.L;
}

static const struct install_variant *var(const struct install_pick *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->variants[i].v.variant, name))
			return &p->variants[i];
	return NULL;
}

static const char *chosen(const struct install_pick *p)
{
	return p->chosen >= 0 ? p->variants[p->chosen].v.variant : "none";
}

static void choose(const struct install_req *req)
{
	assert_int_equal(install_choose(&X.f, req, &X.f.arena, &X.c), 0);
}

static void t4_on_470(void **state)
{
	(void)state;
	driver("470.256.02", 11040);
	gpu(7, 5);
	choose(NULL);
	assert_string_equal(X.c.release_from, "newest");
	assert_string_equal(X.c.pick.release, "2.14");
	assert_int_equal(X.c.status, INSTALL_NEEDS_DRIVER);
	/* every 2.14 variant has sm_75; the smallest driver upgrade is cu126's */
	assert_string_equal(chosen(&X.c.pick), "cu126");
	assert_string_equal(X.c.driver_needed, "560.28.03");
	assert_int_equal(var(&X.c.pick, "cu132")->verdict, INSTALL_REJ_DRIVER);
	assert_non_null(strstr(var(&X.c.pick, "cu126")->why, ">= 525.60.13 through minor"));
	/* what runs on it now: 2.5.1's CUDA 11.8, through minor-version compatibility
	 * (2.6 and 2.7 have no arch list in the data) */
	assert_string_equal(X.c.alt.release, "2.5");
	assert_string_equal(chosen(&X.c.alt), "cu118");
	assert_int_equal(X.c.alt.variants[X.c.alt.chosen].verdict, INSTALL_MINOR);
	assert_string_equal(X.c.line,
			    "python3 -m pip install 'torch==2.14.1' 'torchvision==0.29.1' "
			    "'torchaudio==2.11.0' --index-url "
			    "https://download.pytorch.org/whl/cu126");
	assert_string_equal(
		X.c.alt_line,
		"python3 -m pip install 'torch==2.5.1' 'torchvision==0.20.1' "
		"'torchaudio==2.5.1' --index-url https://download.pytorch.org/whl/cu118");
}

static void h100_on_550(void **state)
{
	(void)state;
	driver("550.54.15", 12040);
	gpu(9, 0);
	choose(NULL);
	assert_int_equal(X.c.status, INSTALL_CHOSEN);
	assert_string_equal(chosen(&X.c.pick), "cu126");
	assert_int_equal(var(&X.c.pick, "cu126")->verdict, INSTALL_MINOR);
	assert_non_null(X.c.label);
	assert_non_null(strstr(X.c.label, "PTX"));
	assert_non_null(strstr(X.c.label, "driver >= 560.28.03 runs it directly"));
	assert_int_equal(var(&X.c.pick, "cu130")->verdict, INSTALL_REJ_DRIVER);
}

static void pascal_on_580(void **state)
{
	(void)state;
	driver("580.95.05", 13000);
	gpu(6, 1);
	choose(NULL);
	assert_int_equal(X.c.status, INSTALL_CHOSEN);
	assert_string_equal(chosen(&X.c.pick), "cu126"); /* sm_60 SASS runs on 6.1 */
	assert_int_equal(var(&X.c.pick, "cu126")->verdict, INSTALL_DIRECT);
	assert_int_equal(var(&X.c.pick, "cu130")->verdict, INSTALL_REJ_ARCH);
	assert_non_null(strstr(var(&X.c.pick, "cu132")->why, "compute capability 6.1"));
	assert_null(X.c.label);
}

static void mixed_node(void **state)
{
	(void)state;
	driver("580.95.05", 13000);
	gpu(9, 0);
	gpu(8, 6);
	choose(NULL);
	assert_int_equal(X.c.n_gpus, 2);
	assert_int_equal(X.c.low_major, 8);
	assert_int_equal(X.c.low_minor, 6);
	/* cu132 (PyPI's) only through minor-version compatibility: cu130 runs directly */
	assert_int_equal(var(&X.c.pick, "cu132")->verdict, INSTALL_MINOR);
	assert_string_equal(chosen(&X.c.pick), "cu130");
	/* CUDA_VISIBLE_DEVICES=1 leaves the A40 alone */
	X.f.driver.cuda_visible_devices = "1";
	X.f.driver.cuda_visible_devices_set = 1;
	choose(NULL);
	assert_int_equal(X.c.n_gpus, 1);
	assert_int_equal(X.c.low_major, 8);
}

static void pairs_not_decimals(void **state)
{
	(void)state;
	driver("580.95.05", 13000);
	gpu(10, 0);
	gpu(9, 0);
	choose(NULL);
	assert_int_equal(X.c.low_major, 9);
	assert_int_equal(X.c.low_minor, 0);
	assert_int_equal(X.c.n_ccs, 2);
}

static void old_gpu(void **state)
{
	(void)state;
	driver("470.256.02", 11040);
	gpu(3, 7);
	choose(NULL);
	assert_int_equal(X.c.status, INSTALL_NO_VARIANT);
	assert_null(X.c.line);
	assert_string_equal(X.c.alt.patch.torch, "2.5.1"); /* the newest with sm_37 */
	assert_string_equal(chosen(&X.c.alt), "cu118");
}

static void no_driver(void **state)
{
	(void)state;
	choose(NULL);
	assert_int_equal(X.c.driver_cuda, -1);
	assert_int_equal(X.c.status, INSTALL_CHOSEN);
	assert_string_equal(chosen(&X.c.pick), "cu132"); /* PyPI's default */
	assert_int_equal(var(&X.c.pick, "cu132")->verdict, INSTALL_DRIVER_UNKNOWN);
}

static void driver_version_only(void **state)
{
	(void)state;
	X.f.driver.version = "580.95.05"; /* /sys/module/nvidia/version, no libcuda */
	X.f.driver.version_source = "sys-module";
	gpu(9, 0);
	choose(NULL);
	assert_int_equal(X.c.driver_cuda, 13000);
	assert_string_equal(X.c.driver_source, "sys-module");
	assert_string_equal(chosen(&X.c.pick), "cu130");
}

static void asked_release(void **state)
{
	struct install_req r = {.torch = "2.9"};

	(void)state;
	driver("580.95.05", 13000);
	gpu(9, 0);
	choose(&r);
	assert_string_equal(X.c.release_from, "--torch");
	assert_string_equal(X.c.pick.patch.torch, "2.9.1");
	assert_string_equal(chosen(&X.c.pick), "cu128"); /* all direct: PyPI's default */
	r.torch = "2.9.0";
	choose(&r);
	assert_string_equal(X.c.pick.patch.torch, "2.9.0");
	r.torch = "1.2";
	assert_int_equal(install_choose(&X.f, &r, &X.f.arena, &X.c), CD_ENOENT);
}

static void installed_fatbin(void **state)
{
	static const uint32_t sass[] = {FATBIN_KEY(80, 0), FATBIN_KEY(90, 0)};

	(void)state;
	driver("580.95.05", 13000);
	gpu(7, 5);
	env("venv", "/env");
	pkg("torch", "2.11.0+cu130", CD_PKG_DIST);
	torch("2.11.0+cu130", "13.0");
	torch_fatbin(sass, 2);
	choose(NULL);
	assert_string_equal(X.c.release_from, "installed");
	assert_string_equal(X.c.pick.patch.torch, "2.11.0");
	assert_int_equal(X.c.pick.installed, 2);
	/* its own fatbin, not the table, judges the installed variant */
	assert_int_equal(var(&X.c.pick, "cu130")->verdict, INSTALL_REJ_ARCH);
	assert_non_null(strstr(var(&X.c.pick, "cu130")->arch_from, "installed"));
	assert_string_equal(chosen(&X.c.pick), "cu128");
	assert_string_equal(X.c.line, "/env/bin/python3 -m pip install --force-reinstall "
				      "'torch==2.11.0' --index-url "
				      "https://download.pytorch.org/whl/cu128");
	/* --newest: the newest release */
	{
		struct install_req r = {.newest = 1};
		choose(&r);
		assert_string_equal(X.c.pick.release, "2.14");
	}
}

static void wheel_fatbin(void **state)
{
	static const uint32_t sass[] = {FATBIN_KEY(90, 0)};
	struct cd_torch_wheel w = {
		.path = "/w/torch.whl", .version = "2.14.1+cu130", .variant = "cu130"};
	struct install_req r = {.wheel = &w};

	(void)state;
	driver("580.95.05", 13000);
	gpu(8, 6);
	w.arch.known = 1;
	w.arch.sass = (uint32_t *)sass;
	w.arch.n_sass = 1;
	choose(&r);
	assert_string_equal(X.c.release_from, "--wheel");
	assert_int_equal(var(&X.c.pick, "cu130")->verdict, INSTALL_REJ_ARCH);
	assert_non_null(strstr(var(&X.c.pick, "cu130")->arch_from, "/w/torch.whl"));
	assert_string_equal(chosen(&X.c.pick), "cu126");
}

static void nvcc_cuda(void **state)
{
	struct install_req r = {.cuda_major = 12, .cuda_minor = 4};

	(void)state;
	choose(&r);
	/* 2.6 is the newest release with cu124 */
	assert_string_equal(X.c.release_from, "nvcc's CUDA");
	assert_string_equal(chosen(&X.c.pick), "cu124");
	assert_int_equal(var(&X.c.pick, "cu126")->verdict, INSTALL_REJ_CUDA);
	/* with a GPU, 2.6's unknown arch list rules it out: 2.5.1 has it */
	gpu(9, 0);
	driver("580.95.05", 13000);
	choose(&r);
	assert_int_equal(X.c.status, INSTALL_NO_VARIANT);
	assert_string_equal(X.c.alt.patch.torch, "2.5.1");
	assert_string_equal(chosen(&X.c.alt), "cu124");
	/* no torch for CUDA 12.5: the newest minor below it */
	r.cuda_minor = 5;
	X.f.gpus_known = 0;
	choose(&r);
	assert_string_equal(chosen(&X.c.pick), "cu124");
}

static void installers(void **state)
{
	(void)state;
	driver("580.95.05", 13000);
	gpu(9, 0);
	env("uv", "/p/.venv");
	pkg("torch", "2.11.0", CD_PKG_DIST);
	pkg("torchvision", "0.26.0", CD_PKG_DIST);
	torch("2.11.0", "13.0");
	choose(NULL);
	assert_int_equal(X.c.tool, INSTALL_UV);
	assert_string_equal(X.c.line,
			    "uv pip install --python /env/bin/python3 --reinstall-package "
			    "torch --reinstall-package torchvision 'torch==2.11.0' "
			    "'torchvision==0.26.0' --default-index "
			    "https://download.pytorch.org/whl/cu130");
	X.st.python.uv_project = "/p";
	choose(NULL);
	assert_int_equal(X.c.tool, INSTALL_UV_ADD);
	assert_string_equal(X.c.line,
			    "cd /p && uv add 'torch==2.11.0' 'torchvision==0.26.0' --index "
			    "pytorch-cu130=https://download.pytorch.org/whl/cu130");
	/* a conda prefix whose torch came from conda */
	X.st.python.kind = "conda";
	X.st.python.prefix = "/opt/conda/envs/t";
	X.pk[0].sources = CD_PKG_CONDA;
	choose(NULL);
	assert_int_equal(X.c.tool, INSTALL_CONDA);
	assert_string_equal(X.c.line, "conda install -p /opt/conda/envs/t -c conda-forge "
				      "'pytorch=2.11.0=cuda*' 'torchvision=0.26.0' "
				      "'cuda-version=13.0'");
	X.st.python.pixi_workspace = "/w";
	choose(NULL);
	assert_string_equal(X.c.line,
			    "cd /w && pixi add 'pytorch=2.11.0=cuda*' 'torchvision=0.26.0' "
			    "'cuda-version=13.0'");
	/* torch pip-installed into the conda prefix: that pip */
	X.pk[0].sources = CD_PKG_DIST;
	choose(NULL);
	assert_int_equal(X.c.tool, INSTALL_PIP);
	assert_true(!strncmp(X.c.line, "/env/bin/python3 -m pip install --force-reinstall", 49));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t4_on_470, setup, teardown),
		cmocka_unit_test_setup_teardown(h100_on_550, setup, teardown),
		cmocka_unit_test_setup_teardown(pascal_on_580, setup, teardown),
		cmocka_unit_test_setup_teardown(mixed_node, setup, teardown),
		cmocka_unit_test_setup_teardown(pairs_not_decimals, setup, teardown),
		cmocka_unit_test_setup_teardown(old_gpu, setup, teardown),
		cmocka_unit_test_setup_teardown(no_driver, setup, teardown),
		cmocka_unit_test_setup_teardown(driver_version_only, setup, teardown),
		cmocka_unit_test_setup_teardown(asked_release, setup, teardown),
		cmocka_unit_test_setup_teardown(installed_fatbin, setup, teardown),
		cmocka_unit_test_setup_teardown(wheel_fatbin, setup, teardown),
		cmocka_unit_test_setup_teardown(nvcc_cuda, setup, teardown),
		cmocka_unit_test_setup_teardown(installers, setup, teardown),
	};
	return cmocka_run_group_tests_name("install", tests, NULL, NULL);
}
