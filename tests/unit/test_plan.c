/* Unit tests for check/fix/plan: findings into one ordered plan - causes
 * before effects (data/fix_causes.tsv), errors before warnings, steps merged
 * and commands not repeated, notes left out, and what --apply may do (cache
 * folders and stale locks to move, cuda-doctor.env lines). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "check/fix/plan.h"
#include "facts/facts.h"
#include "facts/finding.h"
#include "facts/jit.h"
#include "kb/fixkb.h"

static struct cd_facts F;
static struct cd_findings FS;
static struct cd_plan P;

static int setup(void **state)
{
	(void)state;
	facts_init(&F, NULL);
	findings_init(&FS, &F.arena);
	memset(&P, 0, sizeof(P));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	facts_free(&F);
	return 0;
}

static struct cd_finding *add(const char *id, enum cd_severity s, const char *section,
			      const char *fix0, const char *fix1)
{
	struct cd_finding *x = findings_add(&FS, id, s, section, "title of %s", id);

	if (fix0)
		finding_fix(x, &F.arena, "%s", fix0);
	if (fix1)
		finding_fix(x, &F.arena, "%s", fix1);
	return x;
}

static void build(const struct cd_jit_facts *jf)
{
	struct plan_input in = {&FS, jf, NULL, 0};

	findings_sort(&FS);
	plan_build(&F, &in, &F.arena, &P);
}

static void table(void **state)
{
	(void)state;
	assert_true(fixkb_causes("cuda-visible-devices-invalid", "gpu-none-visible"));
	/* closed transitively: through lib-shadowed */
	assert_true(fixkb_causes("ld-library-path-invalid", "extension-abi-mismatch"));
	assert_false(fixkb_causes("gpu-none-visible", "cuda-visible-devices-invalid"));
	assert_false(fixkb_causes("no-such-id", "gpu-none-visible"));
	assert_non_null(fixkb_verify("lib-shadowed"));
	assert_null(fixkb_verify("shm-too-small"));
}

static void cause_before_effect(void **state)
{
	(void)state;
	add("gpu-none-visible", CD_SEV_ERROR, "gpus", "nvidia-smi", NULL);
	add("cuda-visible-devices-invalid", CD_SEV_WARNING, "gpus",
	    "unset CUDA_VISIBLE_DEVICES   # every GPU (1)", NULL);
	add("shm-too-small", CD_SEV_WARNING, "container", "docker run --shm-size=16g ...", NULL);
	add("python-not-found", CD_SEV_INFO, "python", "cuda-doctor --env X check", NULL);
	build(NULL);
	assert_int_equal(P.n, 3); /* the note is not a step */
	assert_string_equal(P.steps[0].ids[0], "cuda-visible-devices-invalid");
	assert_string_equal(P.steps[1].ids[0], "gpu-none-visible");
	assert_string_equal(P.steps[2].ids[0], "shm-too-small");
	assert_string_equal(P.steps[0].verify[1], "cuda-doctor check");
	assert_non_null(strstr(P.steps[0].verify[0], "nvidia-smi -L"));
}

static void merged_and_not_repeated(void **state)
{
	(void)state;
	/* the same first command (comments aside): one step */
	add("lib-shadowed", CD_SEV_ERROR, "python",
	    "unset LD_LIBRARY_PATH   # its only entries shadow torch's libraries",
	    "python3 -m pip install --force-reinstall --no-deps 'nvidia-cudnn-cu13==9.19.0.56'");
	add("ld-library-path-invalid", CD_SEV_WARNING, "env", "unset LD_LIBRARY_PATH", NULL);
	/* the install line of driver-too-old again in arch-unsupported: no second step */
	add("driver-too-old", CD_SEV_ERROR, "python", "# install NVIDIA driver 580.65.06 or newer",
	    "pip install 'torch==2.11.0' --index-url https://download.pytorch.org/whl/cu126   # "
	    "CUDA 12.6");
	add("arch-unsupported", CD_SEV_ERROR, "python",
	    "pip install 'torch==2.11.0' --index-url https://download.pytorch.org/whl/cu126", NULL);
	build(NULL);
	assert_int_equal(P.n, 2);
	assert_int_equal(P.steps[0].n_ids + P.steps[1].n_ids, 4);
	for (size_t i = 0; i < P.n; i++) {
		const struct plan_step *s = &P.steps[i];
		if (!strcmp(s->ids[0], "driver-too-old")) {
			assert_int_equal(s->n_ids, 2);
			assert_string_equal(s->ids[1], "arch-unsupported");
			assert_int_equal(s->n_cmds, 2);
		} else {
			assert_string_equal(s->ids[0], "lib-shadowed");
			assert_string_equal(s->ids[1], "ld-library-path-invalid");
			assert_int_equal(s->n_cmds, 2);
			assert_int_equal(s->n_env, 1);
			assert_string_equal(s->env[0], "unset LD_LIBRARY_PATH");
			assert_non_null(strstr(s->verify[0], "python3 -c"));
		}
	}
}

static void env_lines(void **state)
{
	(void)state;
	add("toolkit-headers-missing", CD_SEV_ERROR, "toolkit",
	    "export CUDA_HOME=/usr/local/cuda-13.0   # CUDA 13.0: nvcc and every header",
	    "export CUDA_HOMEX=1");
	add("torch-arch-list-invalid", CD_SEV_ERROR, "jit", "export TORCH_CUDA_ARCH_LIST=\"9.0\"",
	    NULL);
	add("nvcc-torch-mismatch", CD_SEV_ERROR, "jit", "export CUDA_HOME=/opt/other", NULL);
	build(NULL);
	assert_int_equal(P.n, 3);
	/* errors all: in the findings' order (section jit before toolkit); the
	 * first step that sets a variable gives the file its value */
	assert_string_equal(P.steps[0].ids[0], "nvcc-torch-mismatch");
	assert_int_equal(P.steps[0].n_env, 1);
	assert_string_equal(P.steps[0].env[0], "export CUDA_HOME=/opt/other");
	assert_string_equal(P.steps[0].verify[1], "cuda-doctor jit");
	assert_string_equal(P.steps[1].ids[0], "torch-arch-list-invalid");
	assert_string_equal(P.steps[1].env[0], "export TORCH_CUDA_ARCH_LIST=\"9.0\"");
	assert_string_equal(P.steps[2].ids[0], "toolkit-headers-missing");
	assert_int_equal(P.steps[2].n_env, 0); /* CUDA_HOMEX is not CUDA_HOME */
}

static void cache_moves(void **state)
{
	static struct cd_jit_facts jf;

	(void)state;
	memset(&jf, 0, sizeof(jf));
	jf.cache.n = 4;
	jf.cache.items[0] = (struct jit_cache_item){JIT_C_HALF_BUILT, "/c/py312_cu130/fused_adam",
						    "build.ninja without the .so", CD_UNK};
	jf.cache.items[1] =
		(struct jit_cache_item){JIT_C_OTHER_BUILD, "/c/py311_cu121", "", CD_UNK};
	jf.cache.items[2] =
		(struct jit_cache_item){JIT_C_LOCK, "/c/py312_cu130/x/lock", "", 4 * 3600};
	jf.cache.items[3] = (struct jit_cache_item){JIT_C_LOCK, "/c/py312_cu130/y/lock", "", 60};
	add("jit-cache-stale", CD_SEV_WARNING, "jit", "rm -rf /c/py312_cu130/fused_adam", NULL);
	add("jit-cache-stale", CD_SEV_INFO, "jit", "rm -rf /c/py311_cu121", NULL);
	add("jit-cache-lock", CD_SEV_ERROR, "jit", "rm -f /c/py312_cu130/x/lock",
	    "rm -f /c/py312_cu130/y/lock");
	build(&jf);
	assert_int_equal(P.n, 2);
	assert_string_equal(P.steps[0].ids[0], "jit-cache-lock");
	assert_int_equal(P.steps[0].n_moves, 1); /* the 1-minute lock may be a live build */
	assert_string_equal(P.steps[0].moves[0].path, "/c/py312_cu130/x/lock");
	assert_int_equal(P.steps[1].n_moves, 1); /* the other Python's folder is a note */
	assert_string_equal(P.steps[1].moves[0].path, "/c/py312_cu130/fused_adam");
}

static void empty(void **state)
{
	(void)state;
	add("lib-duplicate", CD_SEV_INFO, "python", "python3 -c ...", NULL);
	build(NULL);
	assert_int_equal(P.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table),
		cmocka_unit_test_setup_teardown(cause_before_effect, setup, teardown),
		cmocka_unit_test_setup_teardown(merged_and_not_repeated, setup, teardown),
		cmocka_unit_test_setup_teardown(env_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(cache_moves, setup, teardown),
		cmocka_unit_test_setup_teardown(empty, setup, teardown),
	};
	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
