/* facts: see facts.h. */
#include "facts/facts.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/opts.h"

const char *probe_status_name(enum cd_probe_status s)
{
	switch (s) {
	case CD_PROBE_OK: return "ok";
	case CD_PROBE_LIB_MISSING: return "library-missing";
	case CD_PROBE_INIT_FAILED: return "init-failed";
	case CD_PROBE_TIMEOUT: return "timeout";
	case CD_PROBE_CRASHED: return "crashed";
	default: return "not-run";
	}
}

static void driver_lib_init(struct cd_driver_lib *l)
{
	memset(l, 0, sizeof(*l));
	l->rc = CD_UNK;
	l->is_stub = CD_TRI_UNKNOWN;
	l->query_us = CD_UNK;
}

void facts_init(struct cd_facts *f, const struct cd_opts *opts)
{
	memset(f, 0, sizeof(*f));
	arena_init(&f->arena);
	f->opts = opts;
	f->driver.cuda_version_int = CD_UNK;
	f->driver.timeout_ms = CD_UNK;
	f->driver.signal = CD_UNK;
	f->driver.gpu_count = CD_UNK;
	driver_lib_init(&f->driver.nvml);
	driver_lib_init(&f->driver.cuda);
	f->toolkit.selected = CD_UNK;
	f->host.shm_size_bytes = CD_UNK;
}

void facts_free(struct cd_facts *f)
{
	if (!f)
		return;
	arena_free(&f->arena);
}

const char *facts_getenv(const struct cd_facts *f, const char *name)
{
	size_t n = strlen(name);
	char *const *e;

	if (!f->opts || !f->opts->envp)
		return getenv(name);
	for (e = f->opts->envp; *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

const char *facts_env_var(const struct cd_facts *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->env.n_vars; i++)
		if (!strcmp(f->env.vars[i].name, name))
			return f->env.vars[i].value;
	return NULL;
}

int64_t facts_clock_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000 + (int64_t)t.tv_nsec / 1000;
}

int64_t facts_stage(struct cd_facts *f, const char *name, int64_t since_us)
{
	int64_t now = facts_clock_us();

	if (f->n_stages < CD_STAGES_MAX)
		f->stages[f->n_stages++] = (struct cd_stage_time){name, now - since_us};
	return now;
}
