/* Unit tests for kb/images: image references, the base-image table, the
 * NVIDIA_REQUIRE_CUDA rows, a family's ENV and the NVML brand table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "core/err.h"
#include "format/nvreq.h"
#include "kb/images.h"

static void references(void **state)
{
	struct img_ref r;

	(void)state;
	assert_int_equal(images_parse_ref("nvidia/cuda:12.4.1-devel-ubuntu22.04", &r), 0);
	assert_string_equal(r.registry, "");
	assert_string_equal(r.repo, "nvidia/cuda");
	assert_string_equal(r.tag, "12.4.1-devel-ubuntu22.04");
	assert_int_equal(images_parse_ref("docker.io/library/Ubuntu:22.04", &r), 0);
	assert_string_equal(r.repo, "ubuntu");
	assert_int_equal(images_parse_ref("nvcr.io/nvidia/pytorch:24.05-py3", &r), 0);
	assert_string_equal(r.registry, "nvcr.io");
	assert_string_equal(r.repo, "nvidia/pytorch");
	assert_int_equal(images_parse_ref("localhost:5000/img@sha256:abcd", &r), 0);
	assert_string_equal(r.registry, "localhost:5000");
	assert_string_equal(r.tag, "");
	assert_string_equal(r.digest, "sha256:abcd");
	assert_int_equal(images_parse_ref("", &r), CD_EFORMAT);
	assert_int_equal(images_parse_ref("docker.io/", &r), CD_EFORMAT);
}

static void lookups(void **state)
{
	struct img_info i;

	(void)state;
	assert_int_equal(images_lookup("nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04", &i), 0);
	assert_true(i.matched && i.pinned && i.gpu);
	assert_string_equal(i.cuda, "12.4.1");
	assert_string_equal(i.flavor, "devel");
	assert_string_equal(i.env_set, "nvidia-cuda");
	assert_int_equal(images_lookup("nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04", &i), 0);
	assert_string_equal(i.flavor, "runtime");
	assert_int_equal(images_lookup("nvidia/cuda:12.1-devel", &i), 0); /* no patch, no OS */
	assert_true(i.matched);
	assert_false(i.pinned);
	assert_string_equal(i.cuda, "12.1");
	assert_int_equal(images_lookup("nvidia/cuda", &i), 0);
	assert_true(i.known && i.latest && !i.pinned && !i.matched);
	assert_int_equal(images_lookup("nvidia/cuda@sha256:0123", &i), 0);
	assert_true(i.pinned);
	assert_int_equal(images_lookup("pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime", &i), 0);
	assert_string_equal(i.torch, "2.3.1");
	assert_string_equal(i.cuda, "12.1");
	assert_string_equal(i.flavor, "runtime");
	assert_string_equal(i.env_set, "pytorch-runtime");
	assert_int_equal(images_lookup("pytorch/pytorch:latest", &i), 0);
	assert_true(i.latest && !i.pinned);
	assert_int_equal(images_lookup("nvcr.io/nvidia/pytorch:24.05-py3", &i), 0);
	assert_true(i.pinned && i.gpu);
	assert_string_equal(i.flavor, "devel");
	assert_string_equal(i.cuda, "");
	assert_int_equal(images_lookup("ubuntu:22.04", &i), CD_ENOENT);
	assert_false(i.known);
	assert_int_equal(images_lookup("nvidia/cuda:weird-tag", &i), 0); /* listed, unmatched */
	assert_true(i.known && !i.matched && !i.latest);
}

static void require_rows(void **state)
{
	const char *req, *row, *src;
	struct nvreq_eval e;
	struct nvreq_host h = {"535.104.05", "12.2", "geforce", NULL};

	(void)state;
	assert_int_equal(images_require_cuda("12.4.1", "amd64", &req, &row, &src), 0);
	assert_string_equal(row, "12.4.1");
	assert_true(!strncmp(req, "cuda>=12.4 brand=tesla,driver>=470", 34));
	assert_non_null(strstr(src, "gitlab.com/nvidia/container-images/cuda"));
	assert_int_equal(nvreq_eval(req, strlen(req), &h, &e), NVREQ_OK);
	assert_string_equal(e.held, "brand=geforce,driver>=535,driver<536");
	assert_int_equal(images_require_cuda("12.8.0", "amd64", &req, &row, NULL), 0);
	assert_string_equal(row, "12.8.1"); /* the newest row of the same X.Y */
	assert_int_equal(nvreq_eval(req, strlen(req), &h, &e), NVREQ_REFUSED);
	assert_int_equal(images_require_cuda("12.1", "arm64", &req, &row, NULL), 0);
	assert_string_equal(req, "cuda>=12.1");
	assert_int_equal(images_require_cuda("10.2", "amd64", &req, &row, NULL), CD_ENOENT);
	assert_int_equal(images_require_cuda("", "amd64", &req, &row, NULL), CD_ENOENT);
}

static void family_env(void **state)
{
	struct cd_arena a;
	struct dfenv env;
	struct img_info i;

	(void)state;
	arena_init(&a);
	dfenv_init(&env);
	assert_int_equal(images_lookup("nvidia/cuda:12.6.3-runtime-ubuntu22.04", &i), 0);
	assert_int_equal(images_env(&i, "amd64", &env, &a), 0);
	assert_string_equal(dfenv_get(&env, "CUDA_VERSION"), "12.6.3");
	assert_string_equal(dfenv_get(&env, "NVIDIA_DRIVER_CAPABILITIES"), "compute,utility");
	assert_true(!strncmp(dfenv_get(&env, "NVIDIA_REQUIRE_CUDA"), "cuda>=12.6 ", 11));
	dfenv_init(&env);
	assert_int_equal(images_lookup("pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime", &i), 0);
	assert_int_equal(images_env(&i, "amd64", &env, &a), 0);
	assert_null(dfenv_get(&env, "NVIDIA_REQUIRE_CUDA")); /* built FROM ubuntu */
	assert_string_equal(dfenv_get(&env, "PYTORCH_VERSION"), "2.3.1");
	dfenv_init(&env);
	assert_int_equal(images_lookup("pytorch/pytorch:2.3.1-cuda12.1-cudnn8-devel", &i), 0);
	assert_int_equal(images_env(&i, "amd64", &env, &a), 0);
	assert_true(!strncmp(dfenv_get(&env, "NVIDIA_REQUIRE_CUDA"), "cuda>=12.1 ", 11));
	arena_free(&a);
}

static void brands(void **state)
{
	(void)state;
	assert_string_equal(images_brand_token(14), "nvidia");
	assert_string_equal(images_brand_token(5), "geforce");
	assert_null(images_brand_token(99));
	assert_string_equal(images_brand_class("nvidia"), "datacenter");
	assert_string_equal(images_brand_class("Tesla"), "datacenter");
	assert_string_equal(images_brand_class("geforcertx"), "geforce");
	assert_string_equal(images_brand_class("nvidiartx"), "workstation");
	assert_null(images_brand_class("nope"));
	assert_null(images_brand_class(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(references),	cmocka_unit_test(lookups),
		cmocka_unit_test(require_rows), cmocka_unit_test(family_env),
		cmocka_unit_test(brands),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
