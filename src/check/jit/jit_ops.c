/* jit_ops: the per-op readiness table and the knowledge-base lookups.
 * An op is judged in the order its build would fail: a prebuilt DeepSpeed
 * op first (validate_torch_version / validate_torch_op_version), then the
 * toolkit, torch's CUDA, the compilers, ninja, Python.h, the op's headers and
 * libraries, the builder's own gates (is_compatible), and for the generic
 * extension the arch flags. The first failure is the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/jit/jit.h"
#include "core/err.h"
#include "core/str.h"
#include "kb/kb.h"

const char *jit_op_state_name(enum jit_op_state s)
{
	switch (s) {
	case JIT_OP_READY: return "ready";
	case JIT_OP_PREBUILT: return "prebuilt";
	case JIT_OP_NOT_READY: return "not-ready";
	default: return "unknown";
	}
}

static int add_row(struct cd_arena *a, struct jit_ops *ops, const struct kb_tsv *t)
{
	struct jit_op_row *r;
	const char *cc;

	if (ops->n >= JIT_OPS_MAX)
		return CD_ERANGE;
	r = &ops->rows[ops->n++];
	memset(r, 0, sizeof(*r));
	r->name = arena_strdup(a, kb_tsv_get(t, "op"));
	r->builder = arena_strdup(a, kb_tsv_get(t, "builder"));
	r->headers = arena_strdup(a, kb_tsv_get(t, "headers"));
	r->libraries = arena_strdup(a, kb_tsv_get(t, "libraries"));
	r->requires = arena_strdup(a, kb_tsv_get(t, "requires"));
	r->cuda_sources = !strcmp(kb_tsv_get(t, "cuda_sources"), "yes");
	r->cpu_capable = strstr(kb_tsv_get(t, "builder_class"), "TorchCPUOpBuilder") != NULL;
	cc = kb_tsv_get(t, "min_cc");
	r->min_cc10 = cc && *cc ? ver_cuda_int(cc) / 100 : 0;
	r->min_cuda_major = kb_cell_int(kb_tsv_get(t, "min_cuda_major"));
	if (r->min_cuda_major < 0)
		r->min_cuda_major = 0;
	r->state = JIT_OP_UNKNOWN;
	return r->name ? 0 : CD_ENOMEM;
}

static int select_name(struct jit_ops *ops, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ops->n; i++)
		if (strlen(ops->rows[i].name) == len && !strncmp(ops->rows[i].name, name, len)) {
			ops->rows[i].selected = 1;
			ops->any_selected = 1;
			return 0;
		}
	return CD_EUSAGE;
}

int jit_ops_load(struct cd_arena *a, struct jit_ops *ops, const char *const *sel, size_t nsel,
		 const char **bad)
{
	struct kb_tsv *t = malloc(sizeof(*t));
	size_t i;
	int rc = 0;

	memset(ops, 0, sizeof(*ops));
	if (!t)
		return CD_ENOMEM;
	if (kb_tsv_open(t, "deepspeed_ops.tsv")) {
		free(t);
		return CD_EINTERNAL;
	}
	while (rc == 0 && kb_tsv_next(t))
		rc = add_row(a, ops, t);
	free(t);
	for (i = 0; rc == 0 && i < nsel; i++) {
		const char *s = sel[i];
		while (rc == 0) {
			size_t len = strcspn(s, ",");
			if (len && select_name(ops, s, len)) {
				*bad = arena_strndup(a, s, len);
				rc = CD_EUSAGE;
			}
			if (!s[len])
				break;
			s += len + 1;
		}
	}
	return rc;
}
