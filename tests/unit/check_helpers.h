/* Helpers shared by the check unit tests: build facts by hand, look at the
 * findings a check produced. */
#ifndef CD_TEST_CHECK_HELPERS_H
#define CD_TEST_CHECK_HELPERS_H

#include <string.h>
/* cmocka.h comes first, with the headers it needs, in every test file. */

#include "check/check.h"
#include "facts/facts.h"
#include "facts/finding.h"

struct ctx {
	struct cd_facts f;
	struct cd_findings fs;
	struct cd_env_var vars[4];
};

static inline void ctx_init(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	facts_init(&c->f, NULL);
	assert_int_equal(root_init(&c->f.root, NULL, NULL), 0);
	findings_init(&c->fs, &c->f.arena);
}

static inline void ctx_free(struct ctx *c)
{
	facts_free(&c->f);
}

/* A driver whose NVML and CUDA answered, with n GPUs. */
static inline void ctx_healthy(struct ctx *c, size_t n)
{
	static const char *const uuids[] = {"GPU-5a3f9c1e-7b2d-4e8a-9c61-0f2b8d4e7a13",
					    "GPU-c81e2a47-3d95-4b0f-8e26-71a9f5d0b3c4"};
	struct cd_driver_facts *d = &c->f.driver;
	size_t i;

	d->status = d->nvml.status = d->cuda.status = CD_PROBE_OK;
	d->nvml.requested = "libnvidia-ml.so.1";
	d->cuda.requested = "libcuda.so.1";
	d->nvml.path = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.570.124.06";
	d->cuda.path = "/usr/lib/x86_64-linux-gnu/libcuda.so.570.124.06";
	d->nvml.rc = d->cuda.rc = 0;
	d->nvml.is_stub = d->cuda.is_stub = CD_TRI_NO;
	d->version = "570.124.06";
	d->version_source = "nvml";
	d->kernel_module_version = "570.124.06";
	d->timeout_ms = 10000;
	c->f.gpus_known = 1;
	c->f.n_gpus = n;
	c->f.gpus = arena_calloc(&c->f.arena, n ? n : 1, sizeof(*c->f.gpus));
	for (i = 0; i < n; i++) {
		struct cd_gpu *g = &c->f.gpus[i];
		g->index = (int64_t)i;
		g->name = "NVIDIA H100 80GB HBM3";
		g->uuid = uuids[i % 2];
		g->pci_bus_id = i ? "00000000:2A:00.0" : "00000000:18:00.0";
		g->ecc_volatile_uncorrected = g->ecc_aggregate_uncorrected = 0;
		g->retired_pages_pending = CD_TRI_UNKNOWN;
		g->row_remap_pending = g->row_remap_failure = CD_TRI_NO;
	}
}

/* Record an environment variable the way the env probe does. */
static inline void ctx_env(struct ctx *c, const char *name, const char *value)
{
	c->vars[c->f.env.n_vars].name = name;
	c->vars[c->f.env.n_vars].value = value;
	c->f.env.vars = c->vars;
	c->f.env.n_vars++;
}

static inline const struct cd_finding *only(const struct ctx *c, const char *id)
{
	assert_int_equal(c->fs.n, 1);
	assert_string_equal(c->fs.items[0]->id, id);
	return c->fs.items[0];
}

static inline int has_fix(const struct cd_finding *x, const char *needle)
{
	size_t i;

	for (i = 0; i < x->n_fix; i++)
		if (strstr(x->fix[i], needle))
			return 1;
	return 0;
}

static inline int has_evidence(const struct cd_finding *x, const char *needle)
{
	size_t i;

	for (i = 0; i < x->n_evidence; i++)
		if (strstr(x->evidence[i], needle))
			return 1;
	return 0;
}

#endif
