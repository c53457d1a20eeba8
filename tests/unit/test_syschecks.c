/* Unit tests for the system checks on hand-built facts: shm-too-small
 * (check/container.c) and the edges of nccl-transport-disabled and
 * toolkit-missing that the end-to-end tests do not reach. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "check/check.h"
#include "facts/facts.h"

static const struct cd_finding *shm(const char *kind, int64_t size, struct cd_facts *f,
				    struct cd_findings *fs)
{
	facts_init(f, NULL);
	f->container.kind = kind;
	f->container.evidence = "/.dockerenv exists";
	f->host.shm_size_bytes = size;
	findings_init(fs, &f->arena);
	check_container(f, fs);
	return findings_find(fs, "shm-too-small");
}

static void shm_too_small(void **state)
{
	struct cd_facts f;
	struct cd_findings fs;
	const struct cd_finding *x;

	(void)state;
	x = shm("docker", 64 << 20, &f, &fs);
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_WARNING);
	assert_non_null(strstr(x->title, "64 MiB"));
	assert_string_equal(x->fix[0], "docker run --ipc=host ...   # share the host's /dev/shm");
	assert_non_null(strstr(x->fix[1], "--shm-size=16g"));
	facts_free(&f);
	x = shm("podman", 512 << 20, &f, &fs);
	assert_non_null(x);
	assert_non_null(strstr(x->fix[0], "podman run --ipc=host"));
	facts_free(&f);
	x = shm("kubernetes", 64 << 20, &f, &fs);
	assert_non_null(x);
	assert_non_null(strstr(x->fix[1], "medium: Memory"));
	facts_free(&f);
	/* Not a container, size unknown, or large enough: nothing. */
	assert_null(shm("none", 64 << 20, &f, &fs));
	facts_free(&f);
	assert_null(shm(NULL, 64 << 20, &f, &fs));
	facts_free(&f);
	assert_null(shm("docker", CD_UNK, &f, &fs));
	facts_free(&f);
	assert_null(shm("docker", (int64_t)1 << 30, &f, &fs));
	facts_free(&f);
}

static void nccl_values(void **state)
{
	struct cd_env_var vars[2] = {{"NCCL_NET_GDR_LEVEL", "LOC", 0},
				     {"NCCL_NVLS_ENABLE", "0", 0}};
	struct cd_facts f;
	struct cd_findings fs;
	const struct cd_finding *x;

	(void)state;
	facts_init(&f, NULL);
	f.env.vars = vars;
	f.env.n_vars = 2;
	findings_init(&fs, &f.arena);
	check_env(&f, &fs);
	x = findings_find(&fs, "nccl-transport-disabled");
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_INFO); /* neither is P2P or SHM */
	assert_int_equal(x->n_evidence, 2);
	/* Values NCCL reads as zero or unset do not count. */
	vars[0].name = "NCCL_P2P_DISABLE";
	vars[0].value = "no";
	vars[1].value = "1";
	findings_init(&fs, &f.arena);
	check_env(&f, &fs);
	assert_null(findings_find(&fs, "nccl-transport-disabled"));
	facts_free(&f);
}

static void toolkit_without_nvcc(void **state)
{
	struct cd_toolkit t[2];
	struct cd_facts f;
	struct cd_findings fs;
	const struct cd_finding *x;

	(void)state;
	facts_init(&f, NULL);
	memset(t, 0, sizeof(t));
	t[0].root = "/usr/local/cuda";
	t[0].exists = CD_TRI_YES;
	t[1].root = "/usr/local/cuda-12.8";
	t[1].exists = CD_TRI_YES;
	t[1].version = "12.8";
	t[1].nvcc_path = "/usr/local/cuda-12.8/bin/nvcc";
	f.toolkit.items = t;
	f.toolkit.n = 2;
	f.toolkit.selected = 0;
	f.toolkit.cuda_home = "/usr/local/cuda";
	f.toolkit.selected_reason = "test";
	findings_init(&fs, &f.arena);
	check_toolkit(&f, &fs);
	x = findings_find(&fs, "toolkit-missing");
	assert_non_null(x);
	assert_int_equal(x->severity, CD_SEV_INFO);
	assert_non_null(strstr(x->title, "has no nvcc"));
	assert_non_null(strstr(x->fix[0], "export CUDA_HOME=/usr/local/cuda-12.8"));
	facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shm_too_small),
		cmocka_unit_test(nccl_values),
		cmocka_unit_test(toolkit_without_nvcc),
	};
	return cmocka_run_group_tests_name("syschecks", tests, NULL, NULL);
}
