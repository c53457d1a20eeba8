/* model_text: the human and Markdown reports of `cuda-doctor model`: four
 * blocks (location, config, weights, memory), each marked by the worst
 * finding that belongs to it, then the findings with evidence and fixes. */
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "report/color.h"
#include "report/model_render.h"

enum block { B_LOCATION, B_CONFIG, B_WEIGHTS, B_MEMORY };

/* Which block a finding id belongs to. */
static enum block block_of(const char *id)
{
	if (!strcmp(id, "model-not-found"))
		return B_LOCATION;
	if (!strncmp(id, "model-weights", 13))
		return B_WEIGHTS;
	if (!strcmp(id, "model-too-large") || !strcmp(id, "model-device-unavailable") ||
	    !strcmp(id, "model-dtype-unsupported") || !strcmp(id, "model-attn-unsupported"))
		return B_MEMORY;
	return B_CONFIG;
}

static const char *unk(const char *s)
{
	return s ? s : "unknown";
}

/* 68976648192 -> "68,976,648,192" */
static const char *grouped(char *buf, size_t cap, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v), i, k = 0;

	for (i = 0; i < n && (size_t)k + 2 < cap; i++) {
		buf[k++] = tmp[i];
		if ((n - i - 1) % 3 == 0 && i + 1 < n)
			buf[k++] = ',';
	}
	buf[k] = '\0';
	return buf;
}

static void heading(const struct cd_render *r, const struct cd_findings *fs, enum block b,
		    const char *title)
{
	enum cd_severity w = CD_SEV_INFO;
	int any = 0;
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (block_of(fs->items[i]->id) == b && fs->items[i]->severity > CD_SEV_INFO) {
			any = 1;
			if (fs->items[i]->severity > w)
				w = fs->items[i]->severity;
		}
	fprintf(r->out, "\n%s%s%s %s%s%s\n",
		!any		    ? col(r, C_GRN)
		: w == CD_SEV_ERROR ? col(r, C_RED)
				    : col(r, C_YEL),
		!any		    ? "✓"
		: w == CD_SEV_ERROR ? "✗"
				    : "!",
		col(r, C_OFF), col(r, C_BOLD), title, col(r, C_OFF));
}

static void location(const struct cd_render *r, const struct cd_model_facts *m)
{
	FILE *o = r->out;

	if (m->cache_dir)
		fprintf(o, "    cache %s (%s)%s\n", m->cache_dir, m->cache_var,
			m->offline == CD_TRI_YES ? ", offline" : "");
	if (m->commit)
		fprintf(o, "    revision %s -> %s\n", m->revision, m->commit);
	if (m->dir)
		fprintf(o, "    %s%s%s\n", m->dir, m->file ? "/" : "", m->file ? m->file : "");
	if (m->not_found)
		fprintf(o, "    %s\n", m->not_found);
	if (m->source == MD_SRC_HUB) {
		char dl[32], rd[32];
		fprintf(o,
			"    not cached: planned from the Hub's metadata (%zu files, %s to "
			"download; "
			"%zu requests, %s read)%s\n",
			m->hub.n_files, str_bytes(dl, sizeof(dl), (int64_t)m->hub.download_bytes),
			m->hub.n_requests, str_bytes(rd, sizeof(rd), (int64_t)m->hub.bytes_read),
			m->hub.limited ? ", stopped at a bound" : "");
		if (m->hub.api_parameters && m->hub.api_parameters != m->w.n_params)
			fprintf(o, "    the Hub's API counts %llu safetensors parameters%s\n",
				(unsigned long long)m->hub.api_parameters,
				m->w.params_exact ? ", the headers another number" : "");
	}
}

static void config(const struct cd_render *r, const struct cd_model_facts *m,
		   const struct cd_model_plan *p)
{
	const struct md_config *c = &m->config;
	const struct md_transformers *t = &m->tf;
	FILE *o = r->out;
	size_t i;

	if (c->error)
		fprintf(o, "    %s\n", c->error);
	else if (c->present == CD_TRI_YES)
		fprintf(o, "    model_type %s, %s, saved by transformers %s, dtype %s\n",
			unk(c->model_type), c->n_arch ? c->architectures[0] : "no architectures",
			unk(c->transformers_version), unk(c->dtype));
	if (t->path)
		fprintf(o, "    transformers %s at %s (%s %s): %s\n", unk(t->version), t->path,
			t->found_via, unk(t->prefix),
			t->knows_type == CD_TRI_YES  ? "knows this model_type"
			: t->knows_type == CD_TRI_NO ? "does NOT know this model_type"
						     : "model_type not checked");
	else
		fprintf(o, "    transformers: %s\n", unk(t->error));
	if (p->task)
		fprintf(o, "    task %s (from %s)\n", p->task, p->task_source);
	if (m->tok.n_files || c->present == CD_TRI_YES) {
		fprintf(o, "    tokenizer:");
		for (i = 0; i < m->tok.n_files; i++)
			fprintf(o, "%s %s", i ? "," : "", m->tok.files[i]);
		fprintf(o, "%s%s%s\n", m->tok.n_files ? "" : " none",
			m->tok.tokenizer_class ? " -> " : "",
			m->tok.tokenizer_class ? m->tok.tokenizer_class : "");
	}
}

static void weights(const struct cd_render *r, const struct cd_model_facts *m)
{
	const struct md_weights *w = &m->w;
	char a[32], b[32];
	size_t i, bad = 0;

	for (i = 0; i < w->n_files; i++)
		bad += w->files[i].state != MD_F_OK;
	fprintf(r->out, "    %s: %zu file%s (%zu with problems), %s %s, %zu tensors\n",
		unk(w->format), w->n_files, w->n_files == 1 ? "" : "s", bad,
		str_bytes(a, sizeof(a), (int64_t)w->disk_bytes),
		m->source == MD_SRC_HUB ? "on the Hub" : "on disk", w->n_tensors);
	if (w->n_params)
		fprintf(r->out, "    %s parameters%s\n", grouped(a, sizeof(a), w->n_params),
			w->params_exact ? "" : " (incomplete or estimated)");
	for (i = 0; i < w->n_dtypes && i < 8; i++)
		fprintf(r->out, "      %-12s %s parameters, %s\n", w->dtypes[i].dtype,
			grouped(a, sizeof(a), w->dtypes[i].params),
			str_bytes(b, sizeof(b), (int64_t)w->dtypes[i].bytes));
	if (w->gguf.file)
		fprintf(r->out, "    GGUF v%u %s (%s), %lld layers, context %lld\n",
			w->gguf.version, unk(w->gguf.architecture), unk(w->gguf.name),
			(long long)w->gguf.block_count, (long long)w->gguf.context_length);
}

static void memory(const struct cd_render *r, const struct mp_request *q,
		   const struct cd_model_plan *p)
{
	char a[32], b[32], c[32], d[32];
	FILE *o = r->out;
	size_t i;

	fprintf(o, "    %s weights %s", p->dtype,
		str_bytes(a, sizeof(a), (int64_t)p->weights_bytes));
	if (p->kv_known)
		fprintf(o, " + KV cache %s", str_bytes(b, sizeof(b), (int64_t)p->kv_bytes));
	if (p->overhead)
		fprintf(o, " + %s CUDA overhead per GPU",
			str_bytes(c, sizeof(c), (int64_t)p->overhead));
	fprintf(o, " = %s\n", str_bytes(d, sizeof(d), (int64_t)p->required));
	fprintf(o, "    %s(%s)%s\n", col(r, C_DIM), p->dtype_reason, col(r, C_OFF));
	if (p->kv_note)
		fprintf(o, "    KV cache not counted: %s\n", p->kv_note);
	for (i = 0; i < p->n_devices; i++) {
		const struct mp_device *x = &p->devices[i];
		fprintf(o, "    %s %s: %s %s x %.2f = %s usable; %s placed", x->name, unk(x->model),
			x->free_is_total ? "total" : "free",
			x->free == CD_UNK ? "unknown"
					  : str_bytes(a, sizeof(a), (int64_t)(uint64_t)x->free),
			q->headroom,
			x->usable == CD_UNK ? "unknown"
					    : str_bytes(b, sizeof(b), (int64_t)(uint64_t)x->usable),
			str_bytes(c, sizeof(c), (int64_t)x->assigned));
		if (x->first_unit && p->n_devices > 1)
			fprintf(o, " (%s .. %s)", x->first_unit, x->last_unit);
		fprintf(o, "\n");
	}
	if (!p->device)
		fprintf(o,
			"    no GPU facts: give --gpu-memory BYTES (and --gpu-cc X.Y) to plan\n");
	fprintf(o, "    verdict: %s\n",
		p->fits == CD_TRI_YES  ? "fits"
		: p->fits == CD_TRI_NO ? "does not fit"
		: p->partial	       ? "unknown: weights missing or unreadable"
				       : "unknown");
}

static void text(const struct cd_render *r, const struct cd_facts *f,
		 const struct cd_model_facts *m, const struct mp_request *q,
		 const struct cd_model_plan *p, const struct cd_findings *fs)
{
	if (!r->quiet) {
		fprintf(r->out, "cuda-doctor %s model %s%s\n", CD_VERSION, m->spec,
			f->root.is_host ? "" : "  (--root)");
		heading(r, fs, B_LOCATION, "Location");
		location(r, m);
		if (m->dir) {
			heading(r, fs, B_CONFIG, "Config");
			config(r, m, p);
			heading(r, fs, B_WEIGHTS, "Weights");
			weights(r, m);
			heading(r, fs, B_MEMORY, p->device ? "Memory" : "Memory (no device)");
			memory(r, q, p);
		}
	}
	text_findings(r, fs);
}

static int markdown(const struct cd_render *r, const struct cd_facts *f,
		    const struct cd_model_facts *m, const struct mp_request *q,
		    const struct cd_model_plan *p, const struct cd_findings *fs)
{
	struct cd_render plain = *r;
	json_t *j;
	int rc;

	plain.color = 0;
	plain.quiet = 0;
	fprintf(r->out, "### cuda-doctor %s model `%s`\n\n```text\n", CD_VERSION, m->spec);
	text(&plain, f, m, q, p, fs);
	fprintf(r->out, "```\n\n<details><summary>Full report (JSON)</summary>\n\n```json\n");
	j = model_json(f, m, q, p, fs);
	rc = json_print(r->out, j);
	json_decref(j);
	fprintf(r->out, "```\n\n</details>\n");
	return rc;
}

int model_render(const struct cd_render *rd, const struct cd_facts *f,
		 const struct cd_model_facts *m, const struct mp_request *r,
		 const struct cd_model_plan *p, const struct cd_findings *fs)
{
	json_t *j;
	int rc;

	switch (rd->format) {
	case CD_FMT_JSON:
		j = model_json(f, m, r, p, fs);
		rc = json_print(rd->out, j);
		json_decref(j);
		return rc;
	case CD_FMT_HTML:
		j = model_json(f, m, r, p, fs);
		rc = html_print(rd->out, j, "model");
		json_decref(j);
		return rc;
	case CD_FMT_MARKDOWN: return markdown(rd, f, m, r, p, fs);
	default: text(rd, f, m, r, p, fs); return 0;
	}
}
