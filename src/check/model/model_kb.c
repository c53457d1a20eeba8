/* model_kb: the model tables of the knowledge base (data/model_tasks.tsv,
 * data/model_types.tsv, data/transformers_api.tsv); see model.h. Rows are
 * read from the embedded files on each call: the tables are small and a
 * lookup runs a handful of times. */
#include <string.h>

#include "check/model/model.h"
#include "core/str.h"
#include "kb/kb.h"

/* kb_tsv carries 32 KiB of line buffers: one reader, not on every frame. */
static struct kb_tsv tsv;

static const char *cond_task(const struct md_config *c)
{
	const char *def = NULL, *kind, *key;

	if (kb_tsv_open(&tsv, "model_tasks.tsv"))
		return NULL;
	while (kb_tsv_next(&tsv)) {
		kind = kb_tsv_get(&tsv, "kind");
		key = kb_tsv_get(&tsv, "key");
		if (!kind || strcmp(kind, "cond"))
			continue;
		if (!strcmp(key, "default"))
			def = kb_tsv_get(&tsv, "task");
		else if ((!strcmp(key, "vision") && c->has_vision) ||
			 (c->model_type && !strcmp(key, c->model_type)))
			return kb_tsv_get(&tsv, "task");
	}
	return def;
}

const char *model_task_of(const char *arch, const struct md_config *c, struct cd_arena *a)
{
	char task[64];
	const char *kind, *key, *best = NULL;
	size_t best_len = 0;

	if (!arch)
		return NULL;
	if (str_has_suffix(arch, "ForConditionalGeneration")) {
		best = cond_task(c);
		goto out;
	}
	if (kb_tsv_open(&tsv, "model_tasks.tsv"))
		return NULL;
	while (kb_tsv_next(&tsv)) {
		kind = kb_tsv_get(&tsv, "kind");
		key = kb_tsv_get(&tsv, "key");
		if (kind && key && !strcmp(kind, "suffix") && str_has_suffix(arch, key) &&
		    strlen(key) > best_len && strlen(arch) > strlen(key)) {
			best_len = strlen(key);
			str_copy(task, sizeof(task), kb_tsv_get(&tsv, "task"));
			best = task;
		}
	}
out:
	return best && *best ? arena_strdup(a, best) : NULL;
}

const char *model_type_first(const char *type, int *native, const char **source, struct cd_arena *a)
{
	*native = 1;
	if (!type || kb_tsv_open(&tsv, "model_types.tsv"))
		return NULL;
	while (kb_tsv_next(&tsv)) {
		const char *t = kb_tsv_get(&tsv, "model_type");
		if (!t || strcmp(t, type))
			continue;
		*native = strcmp(kb_tsv_get(&tsv, "native"), "no") != 0;
		if (source)
			*source = arena_strdup(a, kb_tsv_get(&tsv, "source"));
		return arena_strdup(a, kb_tsv_get(&tsv, "first_transformers"));
	}
	return NULL;
}

int model_tf_since(const char *change, char *out, size_t cap)
{
	if (cap)
		out[0] = '\0';
	if (!change || kb_tsv_open(&tsv, "transformers_api.tsv"))
		return CD_ENOENT;
	while (kb_tsv_next(&tsv)) {
		const char *c = kb_tsv_get(&tsv, "change"), *since;
		if (!c || strcmp(c, change))
			continue;
		since = kb_tsv_get(&tsv, "since");
		if (!since || !*since)
			return CD_ENOENT;
		return str_copy(out, cap, since) < cap ? 0 : CD_ERANGE;
	}
	return CD_ENOENT;
}

const char *model_dtype_kw(const char *tf_version)
{
	char since[32];

	return tf_version && model_tf_since("dtype_keyword", since, sizeof(since)) == 0 &&
			       ver_cmp(tf_version, since) < 0
		       ? "torch_dtype"
		       : "dtype";
}
