/* model_weights: the checkpoint's files, headers only. The file transformers
 * would load is chosen in its order (modeling_utils: safetensors before
 * pickle, an index before a single file): model.safetensors.index.json,
 * model.safetensors, pytorch_model.bin.index.json, pytorch_model.bin; else
 * *.gguf. Each safetensors shard is checked against the index: present,
 * complete, and holding every tensor the index assigns to it. */
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "core/vec.h"
#include "format/gguf.h"
#include "format/safetensors.h"
#include "format/stindex.h"
#include "probe/model/model.h"

#define INDEX_MAX	((size_t)64 << 20)
#define PREFIX_FIRST	((size_t)16 << 10)	 /* most shard headers; larger ones are re-read */
#define FILES_MAX	(2 * STINDEX_SHARDS_MAX) /* the shards, the index, dangling links */
#define DTYPES_MAX	48
#define GGUF_PREFIX_MAX ((size_t)256 << 20)

/* The tensors of every file, gathered in a heap vector (struct md_tensor
 * each; every file's own count is capped by its parser) and copied into the
 * arena by finish(). */
static void acc_init(struct cd_vec *acc)
{
	vec_init(acc, sizeof(struct md_tensor), 1024, 0, NULL);
}

static void dtype_add(struct cd_facts *f, struct md_weights *w, const char *dtype, uint64_t params,
		      uint64_t bytes)
{
	size_t i;

	if (!w->dtypes)
		w->dtypes = arena_calloc(&f->arena, DTYPES_MAX, sizeof(*w->dtypes));
	if (!w->dtypes)
		return;
	for (i = 0; i < w->n_dtypes; i++)
		if (!strcmp(w->dtypes[i].dtype, dtype))
			break;
	if (i == w->n_dtypes) {
		if (i == DTYPES_MAX)
			return;
		w->dtypes[w->n_dtypes++].dtype = arena_strdup(&f->arena, dtype);
	}
	w->dtypes[i].params += params;
	w->dtypes[i].bytes += bytes;
}

/* The file entry for name (added once). */
static struct md_file *file_get(struct cd_facts *f, struct cd_model_facts *m, const char *name)
{
	struct md_weights *w = &m->w;
	struct md_file *mf;
	size_t i;

	for (i = 0; i < w->n_files; i++)
		if (!strcmp(w->files[i].name, name))
			return &w->files[i];
	if (!w->files)
		w->files = arena_calloc(&f->arena, FILES_MAX, sizeof(*w->files));
	if (!w->files || w->n_files == FILES_MAX)
		return NULL;
	mf = &w->files[w->n_files++];
	mf->name = arena_strdup(&f->arena, name);
	mf->path = fsu_path(&f->arena, m->dir, name);
	mf->state = md_check_file(f, m, mf->path, &mf->size, &mf->blob, &mf->problem);
	if (mf->size != CD_UNK)
		w->disk_bytes += (uint64_t)mf->size;
	return mf;
}

static void set_bad(struct cd_facts *f, struct md_file *mf, int rc, const char *msg)
{
	mf->state = rc == CD_ERANGE ? MD_F_TRUNCATED
		    : rc == CD_EIO  ? MD_F_UNREADABLE
				    : MD_F_CORRUPT;
	mf->problem = arena_strdup(&f->arena, msg);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_shard(const void *a, const void *b)
{
	return strcmp((*(const struct stindex_shard *const *)a)->name,
		      (*(const struct stindex_shard *const *)b)->name);
}

/* bsearch: a name of the index (not NUL-terminated) against a C string. */
static int cmp_ref(const void *key, const void *elt)
{
	const struct stindex_tensor *t = key;
	const char *s = *(const char *const *)elt;
	int c = strncmp(t->name, s, t->len);

	return c ? c : s[t->len] ? -1 : 0;
}

/* The first tensor the index assigns to shard that the file lacks. */
static void missing_example(struct cd_facts *f, struct md_weights *w, const struct st_file *st,
			    const struct stindex *x, uint32_t shard)
{
	const char **have = calloc(st->n_tensors + 1, sizeof(*have));
	size_t i;

	for (i = 0; have && i < st->n_tensors; i++)
		have[i] = st->tensors[i].name;
	if (have && st->n_tensors > 1)
		qsort(have, st->n_tensors, sizeof(*have), cmp_str);
	for (i = 0; have && i < x->n_tensors; i++) {
		const struct stindex_tensor *t = &x->tensors[i];
		if (t->shard == shard && !bsearch(t, have, st->n_tensors, sizeof(*have), cmp_ref)) {
			w->index_missing_example =
				arena_printf(&f->arena, "%.*s (index: %s; not in that file)",
					     (int)t->len, t->name, x->shards[shard].name);
			break;
		}
	}
	free(have);
}

/* Check the shard's tensors against the index's weight_map. */
static void index_check(struct cd_facts *f, struct md_weights *w, const struct st_file *st,
			const struct stindex *x, uint32_t shard)
{
	size_t i, found = 0, expected = x->shards[shard].n_tensors;

	for (i = 0; i < st->n_tensors; i++) {
		if (stindex_shard_of(x, st->tensors[i].name) == shard)
			found++;
		else
			w->n_index_extra++;
	}
	if (found >= expected)
		return;
	w->n_index_missing += expected - found;
	if (!w->index_missing_example)
		missing_example(f, w, st, x, shard);
}

static void keep_tensors(struct cd_facts *f, struct md_weights *w, const struct st_file *st,
			 struct cd_vec *acc)
{
	size_t i;

	for (i = 0; i < st->n_tensors; i++) {
		const struct st_tensor *t = &st->tensors[i];
		struct md_tensor *x = vec_push(acc);
		if (!x)
			return;
		x->name = t->name;
		x->nelem = t->nelem;
		x->rows = t->ndim ? t->shape[0] : 1;
		x->bytes = t->end - t->begin;
		x->bits = (uint16_t)t->bits;
		x->ndim = (uint8_t)(t->ndim > 255 ? 255 : t->ndim);
		x->is_float = (uint8_t)t->is_float;
		dtype_add(f, w, t->dtype, t->nelem, x->bytes);
	}
	w->n_params += st->n_params;
}

/* x and shard: the index and the shard this file is, to check it against;
 * x NULL for a single file. */
static void read_safetensors(struct cd_facts *f, struct cd_model_facts *m, struct md_file *mf,
			     struct cd_vec *acc, const struct stindex *x, uint32_t shard)
{
	struct cd_buf b;
	struct cd_err err = {0};
	struct st_file st;
	uint64_t size = 0, hlen;
	int rc;

	if (!mf || mf->state != MD_F_OK)
		return;
	buf_init(&b, (size_t)ST_HEADER_MAX + 16);
	rc = md_read_prefix(f, m, mf->path, PREFIX_FIRST, &b, &size, &err);
	if (!rc)
		rc = st_header_len((const uint8_t *)b.p, b.len, size, &hlen, &err);
	if (!rc && 8 + hlen > b.len)
		rc = md_read_prefix(f, m, mf->path, (size_t)(8 + hlen), &b, &size, &err);
	if (!rc)
		rc = st_parse((const uint8_t *)b.p, b.len, size, &f->arena, &st, &err);
	if (rc) {
		set_bad(f, mf, rc, err.msg);
	} else {
		mf->n_tensors = st.n_tensors;
		mf->n_params = st.n_params;
		keep_tensors(f, &m->w, &st, acc);
		if (x)
			index_check(f, &m->w, &st, x, shard);
	}
	buf_free(&b);
}

/* weight_map values: plain file names next to the index. */
static int shard_name_ok(const char *s)
{
	return *s && s[0] != '/' && !strstr(s, "..") && !strchr(s, '\\');
}

/* Why the index cannot be used, or NULL. */
static const char *index_problem(struct cd_facts *f, const char *name, int rc,
				 const struct stindex *x, const struct cd_err *err)
{
	if (rc == CD_ERANGE && x->over_cap == 1)
		return arena_printf(&f->arena,
				    "%s names more than %u shard files: cuda-doctor checks at most "
				    "%u (a real checkpoint has at most a few thousand)",
				    name, STINDEX_SHARDS_MAX, STINDEX_SHARDS_MAX);
	if (rc == CD_ERANGE && x->over_cap == 2)
		return arena_printf(&f->arena,
				    "%s lists more than %u tensors: cuda-doctor reads at most %u",
				    name, STINDEX_TENSORS_MAX, STINDEX_TENSORS_MAX);
	if (rc == CD_ENOMEM)
		return arena_printf(&f->arena, "%s: %s", name, err->msg);
	if (rc)
		return arena_printf(&f->arena, "%s is not valid JSON: %s", name,
				    str_has_prefix(err->msg, "JSON: ") ? err->msg + 6 : err->msg);
	if (!x->has_map)
		return arena_printf(&f->arena, "%s has no weight_map object", name);
	return NULL;
}

/* Read and parse the index into x (its names point into b). 0 when it can
 * be used; else the index file is marked corrupt with the reason. */
static int read_index(struct cd_facts *f, struct cd_model_facts *m, struct md_file *mf,
		      struct cd_buf *b, struct stindex *x)
{
	struct cd_err err = {0};

	memset(x, 0, sizeof(*x));
	if (md_read_file(f, m, mf->path, INDEX_MAX, b, &err))
		m->w.index_error = arena_printf(&f->arena, "%s: %s", mf->name, err.msg);
	else
		m->w.index_error = index_problem(
			f, mf->name,
			stindex_parse((const uint8_t *)b->p, b->len, &f->arena, x, &err), x, &err);
	if (!m->w.index_error)
		return 0;
	mf->state = MD_F_CORRUPT;
	mf->problem = m->w.index_error;
	return CD_EFORMAT;
}

/* The last tensor (in the file's order) mapped to something that is not a
 * plain file name marks the index corrupt; the shards with good names are
 * still read. good[i]: shard i has a plain file name. */
static void judge_names(struct cd_facts *f, struct cd_model_facts *m, struct md_file *mf,
			const struct stindex *x, unsigned char *good)
{
	const struct stindex_tensor *bad = NULL;
	size_t i;

	for (i = 0; i < x->n_shards; i++)
		good[i] = (unsigned char)shard_name_ok(x->shards[i].name);
	for (i = 0; i < x->n_tensors; i++)
		if (x->tensors[i].shard == STINDEX_NONE || !good[x->tensors[i].shard])
			bad = &x->tensors[i];
	if (!bad)
		return;
	m->w.index_error = arena_printf(&f->arena, "%s: tensor %.*s maps to an invalid file name",
					mf->name, (int)bad->len, bad->name);
	mf->state = MD_F_CORRUPT;
	mf->problem = m->w.index_error;
}

/* An index: {"metadata": {...}, "weight_map": {tensor: shard}}; every shard it
 * names, in name order. */
static void sharded(struct cd_facts *f, struct cd_model_facts *m, const char *index, int st,
		    struct cd_vec *acc)
{
	struct md_file *mf = file_get(f, m, index);
	struct stindex x;
	struct cd_buf b;
	const struct stindex_shard **order = NULL;
	unsigned char *good = NULL;
	size_t n = 0, i;

	m->w.format = st ? "safetensors-sharded" : "pytorch-sharded";
	m->w.index = index;
	if (!mf || mf->state != MD_F_OK)
		return;
	buf_init(&b, INDEX_MAX);
	if (read_index(f, m, mf, &b, &x))
		goto out;
	good = calloc(x.n_shards + 1, 1);
	order = calloc(x.n_shards + 1, sizeof(*order));
	if (!good || !order)
		goto out;
	judge_names(f, m, mf, &x, good);
	for (i = 0; i < x.n_shards; i++)
		if (good[i] && x.shards[i].n_tensors) /* 0: every tensor named again elsewhere */
			order[n++] = &x.shards[i];
	if (n > 1)
		qsort(order, n, sizeof(*order), cmp_shard);
	for (i = 0; i < n; i++) {
		struct md_file *sf = file_get(f, m, order[i]->name);
		if (!sf) { /* the file table is full (dangling links): said, not dropped */
			m->w.index_error = arena_printf(
				&f->arena,
				"%s: %zu of its %zu shards not checked (more than %u files)", index,
				n - i, n, FILES_MAX);
			mf->problem = m->w.index_error;
			mf->state = MD_F_CORRUPT;
			break;
		}
		if (st)
			read_safetensors(f, m, sf, acc, &x, (uint32_t)(order[i] - x.shards));
	}
	if (!st && x.total_size > 0)
		m->w.disk_bytes = (uint64_t)x.total_size;
out:
	free(order);
	free(good);
	stindex_free(&x);
	buf_free(&b);
}

/* Dangling links and loops anywhere at the top of the snapshot. */
static void scan_broken(struct cd_facts *f, struct cd_model_facts *m)
{
	DIR *d = file_opendir(&f->root, m->dir);
	struct dirent *e;
	size_t seen = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && seen++ < 100000) {
		const char *problem;
		int64_t size;
		enum md_fstate s;
		if (e->d_type != DT_LNK && e->d_type != DT_UNKNOWN)
			continue;
		s = md_check_file(f, m, fsu_path(&f->arena, m->dir, e->d_name), &size, NULL,
				  &problem);
		if (s == MD_F_DANGLING || s == MD_F_LOOP)
			file_get(f, m, e->d_name);
	}
	closedir(d);
}

/* The first *.gguf by name, the others counted. */
static const char *first_gguf(struct cd_facts *f, struct cd_model_facts *m)
{
	DIR *d;
	struct dirent *e;
	const char *best = NULL;
	size_t i;

	if (m->source == MD_SRC_HUB) {
		for (i = 0; i < m->hub.n_files; i++) {
			const char *n = m->hub.files[i].name;
			if (!str_has_suffix(n, ".gguf") || strchr(n, '/'))
				continue;
			if (best)
				m->w.n_other_gguf++;
			if (!best || strcmp(n, best) < 0)
				best = n;
		}
		return best;
	}
	d = file_opendir(&f->root, m->dir);
	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (str_has_suffix(e->d_name, ".gguf")) {
			if (best)
				m->w.n_other_gguf++;
			if (!best || strcmp(e->d_name, best) < 0)
				best = arena_strdup(&f->arena, e->d_name);
		}
	closedir(d);
	return best;
}

static int present(struct cd_facts *f, struct cd_model_facts *m, const char *name)
{
	int64_t size;
	const char *problem;

	return md_check_file(f, m, fsu_path(&f->arena, m->dir, name), &size, NULL, &problem) !=
	       MD_F_MISSING;
}

static void finish(struct cd_facts *f, struct md_weights *w, struct cd_vec *acc)
{
	if (acc->n) {
		w->tensors = arena_calloc(&f->arena, acc->n, sizeof(*w->tensors));
		if (w->tensors) {
			memcpy(w->tensors, acc->p, acc->n * sizeof(*w->tensors));
			w->n_tensors = acc->n;
		}
	}
	vec_free(acc);
	w->params_exact = w->n_tensors > 0;
	for (size_t i = 0; i < w->n_files; i++)
		if (w->files[i].state != MD_F_OK && !str_has_suffix(w->files[i].name, ".json"))
			w->params_exact = 0;
}

void weights_probe(struct cd_facts *f, struct cd_model_facts *m)
{
	struct cd_vec acc;
	const char *g;

	acc_init(&acc);
	if (m->source == MD_SRC_FILE) {
		if (str_has_suffix(m->file, ".gguf")) {
			gguf_probe_file(f, m, m->file);
			return;
		}
		m->w.format = "safetensors";
		read_safetensors(f, m, file_get(f, m, m->file), &acc, NULL, STINDEX_NONE);
		finish(f, &m->w, &acc);
		return;
	}
	if (m->source != MD_SRC_HUB)
		scan_broken(f, m);
	if (present(f, m, "model.safetensors.index.json")) {
		sharded(f, m, "model.safetensors.index.json", 1, &acc);
	} else if (present(f, m, "model.safetensors")) {
		m->w.format = "safetensors";
		read_safetensors(f, m, file_get(f, m, "model.safetensors"), &acc, NULL,
				 STINDEX_NONE);
	} else if (present(f, m, "pytorch_model.bin.index.json")) {
		sharded(f, m, "pytorch_model.bin.index.json", 0, &acc);
		m->w.has_pickle = 1;
	} else if (present(f, m, "pytorch_model.bin")) {
		m->w.format = "pytorch";
		file_get(f, m, "pytorch_model.bin");
		m->w.has_pickle = 1;
	} else if ((g = first_gguf(f, m))) {
		gguf_probe_file(f, m, g);
		return;
	}
	finish(f, &m->w, &acc);
}

/* Keep the facts of a parsed GGUF header the report and the plan use. */
static void gguf_keep(struct cd_facts *f, struct cd_model_facts *m, const struct gguf_file *g)
{
	struct md_gguf *x = &m->w.gguf;
	const struct gguf_kv *kv = gguf_get(g, "general.architecture");
	uint64_t i, v;
	struct cd_vec acc;
	static const struct {
		const char *suffix;
		size_t off;
	} keys[] = {
		{"context_length", offsetof(struct md_gguf, context_length)},
		{"block_count", offsetof(struct md_gguf, block_count)},
		{"attention.head_count", offsetof(struct md_gguf, head_count)},
		{"attention.head_count_kv", offsetof(struct md_gguf, head_count_kv)},
		{"embedding_length", offsetof(struct md_gguf, embedding_length)},
		{"attention.key_length", offsetof(struct md_gguf, key_length)},
	};

	acc_init(&acc);
	x->version = g->version;
	x->architecture = kv && kv->str ? kv->str : NULL;
	kv = gguf_get(g, "general.name");
	x->name = kv && kv->str ? kv->str : NULL;
	if (!gguf_get_u64(g, "general.file_type", &v))
		x->file_type = (int64_t)v;
	for (i = 0; x->architecture && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!gguf_get_u64(g,
				  arena_printf(&f->arena, "%s.%s", x->architecture, keys[i].suffix),
				  &v) &&
		    v <= INT64_MAX)
			*(int64_t *)((char *)x + keys[i].off) = (int64_t)v;
	x->n_unknown_types = g->n_unknown_types;
	for (i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		struct md_tensor *mt = vec_push(&acc);
		if (!mt)
			break;
		mt->name = t->name;
		mt->nelem = t->nelem;
		mt->rows = t->ndim > 1 ? t->dims[1] : t->dims[0];
		mt->bytes = t->nbytes;
		mt->ndim = (uint8_t)t->ndim;
		mt->is_float = 1;
		dtype_add(f, &m->w, t->type_name ? t->type_name : "unknown", t->nelem, t->nbytes);
	}
	m->w.n_params = g->n_params;
	finish(f, &m->w, &acc);
	m->w.params_exact = 1;
}

void gguf_probe_file(struct cd_facts *f, struct cd_model_facts *m, const char *name)
{
	struct md_file *mf = file_get(f, m, name);
	struct cd_buf b;
	struct cd_err err = {0};
	struct gguf_file g;
	uint64_t size = 0;
	size_t want = (size_t)1 << 20;
	int rc;

	memset(&g, 0, sizeof(g));
	m->w.format = "gguf";
	m->w.gguf.file = name;
	if (!mf || mf->state != MD_F_OK)
		return;
	buf_init(&b, GGUF_PREFIX_MAX + 16);
	/* The header's size is unknown: read more until it fits (or the cap). */
	for (;;) {
		rc = md_read_prefix(f, m, mf->path, want, &b, &size, &err);
		if (!rc)
			rc = gguf_parse((const uint8_t *)b.p, b.len, size, &f->arena, &g, &err);
		if (rc != CD_ERANGE || !g.need_more || want >= GGUF_PREFIX_MAX)
			break;
		want *= 4;
	}
	if (rc) {
		set_bad(f, mf, rc, err.msg);
		if (rc == CD_ERANGE && g.need_more) {
			mf->state = MD_F_CORRUPT;
			mf->problem = "the GGUF header is larger than 256 MiB";
		}
	} else {
		mf->n_tensors = (size_t)g.n_tensors;
		mf->n_params = g.n_params;
		gguf_keep(f, m, &g);
	}
	buf_free(&b);
}
