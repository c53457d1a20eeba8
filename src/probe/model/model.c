/* model: the model probe (see model.h): locate the model as transformers
 * would (an existing directory wins over a repo id, as os.path.isdir does in
 * cached_files), then read config.json and the tokenizer files; the weights
 * are in model_weights.c, the cache in hfcache.c, the package in
 * transformers.c. config.json is parsed by jansson (depth-limited to 2048)
 * from a buffer capped at CONFIG_MAX. */
#include <jansson.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "probe/model/model.h"

#define CONFIG_MAX ((size_t)16 << 20)

static void locate(struct cd_facts *f, struct cd_model_facts *m)
{
	const char *s = m->spec, *abs = s, *home = facts_getenv(f, "HOME");
	int pathlike = s[0] == '/' || s[0] == '.' || s[0] == '~';
	char cwd[PATH_MAX];
	struct stat st;

	if (s[0] == '~' && (s[1] == '/' || !s[1]) && home)
		abs = arena_printf(&f->arena, "%s%s", home, s + 1);
	else if (s[0] != '/' && getcwd(cwd, sizeof(cwd)))
		abs = fsu_path(&f->arena, cwd, s);
	if (abs && !file_stat(&f->root, abs, &st)) {
		if (S_ISDIR(st.st_mode)) {
			m->source = MD_SRC_LOCAL;
			m->dir = abs;
			return;
		}
		if (str_has_suffix(abs, ".gguf") || str_has_suffix(abs, ".safetensors")) {
			const char *slash = strrchr(abs, '/');
			m->source = MD_SRC_FILE;
			m->dir = slash == abs
					 ? "/"
					 : arena_strndup(&f->arena, abs, (size_t)(slash - abs));
			m->file = slash + 1;
			return;
		}
		m->not_found = arena_printf(&f->arena,
					    "%s is a file; give the model directory, or a .gguf or "
					    ".safetensors file",
					    s);
		return;
	}
	if (pathlike) {
		m->not_found = arena_printf(&f->arena, "%s: no such file or directory", s);
		return;
	}
	hfcache_resolve(f, m);
}

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The first key of keys[] holding a positive integer, else CD_UNK. */
static int64_t jint(json_t *o, const char *const *keys)
{
	size_t i;

	for (i = 0; keys[i]; i++) {
		json_t *v = json_object_get(o, keys[i]);
		if (json_is_integer(v) && json_integer_value(v) > 0)
			return (int64_t)json_integer_value(v);
	}
	return CD_UNK;
}

static void geometry(struct md_config *c, json_t *o)
{
	static const char *const layers[] = {"num_hidden_layers", "n_layer", "num_layers",
					     "n_layers", NULL};
	static const char *const heads[] = {"num_attention_heads", "n_head", "num_heads", NULL};
	static const char *const kv[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv",
					 "multi_query_group_num", NULL};
	static const char *const hidden[] = {"hidden_size", "n_embd", "d_model", NULL};
	static const char *const hdim[] = {"head_dim", NULL};
	static const char *const ctx[] = {"max_position_embeddings", "n_positions", "seq_length",
					  NULL};

	c->num_hidden_layers = jint(o, layers);
	c->num_attention_heads = jint(o, heads);
	c->num_key_value_heads = jint(o, kv);
	c->hidden_size = jint(o, hidden);
	c->head_dim = jint(o, hdim);
	c->max_position_embeddings = jint(o, ctx);
	if (c->num_key_value_heads == CD_UNK && json_is_true(json_object_get(o, "multi_query")))
		c->num_key_value_heads = 1; /* Falcon's older configs */
}

static void add_remote(struct cd_facts *f, struct md_config *c, const char *ref)
{
	const char *dot = ref ? strrchr(ref, '.') : NULL, *sep, *file;
	size_t i;

	if (!dot || dot == ref)
		return;
	/* "org/repo--module.Class" names code in another repository. */
	sep = strstr(ref, "--");
	if (sep && sep < dot)
		file = arena_printf(&f->arena, "%.*s: %.*s.py", (int)(sep - ref), ref,
				    (int)(dot - sep - 2), sep + 2);
	else
		file = arena_printf(&f->arena, "%.*s.py", (int)(dot - ref), ref);
	for (i = 0; i < c->n_remote_files; i++)
		if (!strcmp(c->remote_files[i], file))
			return;
	if (file && c->n_remote_files < 16)
		c->remote_files[c->n_remote_files++] = file;
}

static void auto_map(struct cd_facts *f, const struct cd_model_facts *m, struct md_config *c,
		     json_t *am, const char *dir)
{
	const char *k;
	json_t *v, *x;
	size_t i;

	c->auto_config_remote = CD_TRI_NO;
	if (!json_is_object(am))
		return;
	c->auto_map = arena_calloc(&f->arena, 32, sizeof(char *));
	c->remote_files = arena_calloc(&f->arena, 16, sizeof(char *));
	c->remote_present = arena_calloc(&f->arena, 16, sizeof(enum cd_tri));
	if (!c->auto_map || !c->remote_files || !c->remote_present)
		return;
	json_object_foreach(am, k, v)
	{
		if (!strcmp(k, "AutoConfig"))
			c->auto_config_remote = CD_TRI_YES;
		if (json_is_string(v)) {
			add_remote(f, c, json_string_value(v));
			if (c->n_auto_map < 32)
				c->auto_map[c->n_auto_map++] =
					arena_printf(&f->arena, "%s=%s", k, json_string_value(v));
		}
		json_array_foreach(v, i, x) if (json_is_string(x)) /* tokenizers: [slow, fast] */
			add_remote(f, c, json_string_value(x));
	}
	for (i = 0; i < c->n_remote_files; i++) {
		int64_t size;
		const char *problem;
		c->remote_present[i] =
			strchr(c->remote_files[i], ':') ? CD_TRI_UNKNOWN
			: md_check_file(f, m, fsu_path(&f->arena, dir, c->remote_files[i]), &size,
					NULL, &problem) == MD_F_OK
				? CD_TRI_YES
				: CD_TRI_NO;
	}
}

static void config_fields(struct cd_facts *f, const struct cd_model_facts *m, struct md_config *c,
			  json_t *o, const char *dir)
{
	json_t *a = json_object_get(o, "architectures"), *v, *text, *q;
	size_t i;

	c->model_type = arena_strdup(&f->arena, jstr(o, "model_type"));
	c->transformers_version = arena_strdup(&f->arena, jstr(o, "transformers_version"));
	c->dtype = arena_strdup(&f->arena,
				jstr(o, "dtype") ? jstr(o, "dtype") : jstr(o, "torch_dtype"));
	c->attn_implementation = arena_strdup(&f->arena, jstr(o, "attn_implementation")
								 ? jstr(o, "attn_implementation")
								 : jstr(o, "_attn_implementation"));
	q = json_object_get(o, "quantization_config");
	c->quant_method = arena_strdup(&f->arena, jstr(q, "quant_method"));
	c->has_vision = json_is_object(json_object_get(o, "vision_config"));
	c->has_audio = json_is_object(json_object_get(o, "audio_config"));
	if (json_is_array(a) && json_array_size(a)) {
		c->architectures = arena_calloc(&f->arena, json_array_size(a), sizeof(char *));
		json_array_foreach(a, i, v) if (c->architectures && json_is_string(v))
			c->architectures[c->n_arch++] =
			arena_strdup(&f->arena, json_string_value(v));
	}
	geometry(c, o);
	text = json_object_get(o, "text_config");
	if (json_is_object(text) && c->num_hidden_layers == CD_UNK) {
		geometry(c, text);
		if (!c->dtype)
			c->dtype = arena_strdup(&f->arena, jstr(text, "dtype")
								   ? jstr(text, "dtype")
								   : jstr(text, "torch_dtype"));
	}
	auto_map(f, m, c, json_object_get(o, "auto_map"), dir);
}

static void config_probe(struct cd_facts *f, struct cd_model_facts *m)
{
	struct md_config *c = &m->config;
	const char *path = fsu_path(&f->arena, m->dir, "config.json"), *problem;
	struct cd_buf b;
	struct cd_err err = {0};
	json_error_t je;
	json_t *o;
	int64_t size;
	enum md_fstate s = md_check_file(f, m, path, &size, NULL, &problem);

	c->state = s;
	if (s != MD_F_OK) {
		c->present = s == MD_F_MISSING ? CD_TRI_NO : CD_TRI_YES;
		c->error = arena_printf(&f->arena, "config.json: %s (%s)", md_fstate_name(s),
					problem ? problem : "?");
		return;
	}
	c->present = CD_TRI_YES;
	buf_init(&b, CONFIG_MAX);
	if (md_read_file(f, m, path, CONFIG_MAX, &b, &err)) {
		c->error = arena_printf(&f->arena, "config.json: %s", err.msg);
		buf_free(&b);
		return;
	}
	o = json_loadb(b.p, b.len, 0, &je);
	buf_free(&b);
	if (!o) {
		c->error = arena_printf(&f->arena,
					"config.json is not valid JSON: %s (line %d, column %d)",
					je.text, je.line, je.column);
		return;
	}
	if (!json_is_object(o))
		c->error = "config.json is not a JSON object";
	else
		config_fields(f, m, c, o, m->dir);
	json_decref(o);
}

/* Tokenizer files transformers' tokenizer classes read (tokenization_utils
 * *_FILE_NAMES / vocab_files_names of the common tokenizers). */
static void tokenizer_probe(struct cd_facts *f, struct cd_model_facts *m)
{
	static const char *const names[] = {
		"tokenizer.json",  "tokenizer_config.json",
		"tokenizer.model", "vocab.json",
		"merges.txt",	   "vocab.txt",
		"spiece.model",	   "sentencepiece.bpe.model",
		"tekken.json",	   "special_tokens_map.json",
	};
	struct md_tokenizer *t = &m->tok;
	struct cd_buf b;
	size_t i;

	t->files = arena_calloc(&f->arena, sizeof(names) / sizeof(names[0]), sizeof(char *));
	for (i = 0; t->files && i < sizeof(names) / sizeof(names[0]); i++) {
		int64_t size;
		const char *problem;
		if (md_check_file(f, m, fsu_path(&f->arena, m->dir, names[i]), &size, NULL,
				  &problem) == MD_F_OK)
			t->files[t->n_files++] = names[i];
	}
	buf_init(&b, CONFIG_MAX);
	if (!md_read_file(f, m, fsu_path(&f->arena, m->dir, "tokenizer_config.json"), CONFIG_MAX,
			  &b, NULL)) {
		json_t *o = json_loadb(b.p, b.len, 0, NULL);
		t->tokenizer_class = arena_strdup(&f->arena, jstr(o, "tokenizer_class"));
		json_decref(o);
	}
	buf_free(&b);
}

void model_probe(struct cd_facts *f, const struct md_request *req, struct cd_model_facts *m)
{
	struct md_config *c = &m->config;

	memset(m, 0, sizeof(*m));
	m->spec = req->spec;
	m->revision = req->revision && *req->revision ? req->revision : "main";
	m->offline = CD_TRI_UNKNOWN;
	c->present = CD_TRI_UNKNOWN;
	c->auto_config_remote = CD_TRI_UNKNOWN;
	c->num_hidden_layers = c->num_attention_heads = c->num_key_value_heads = CD_UNK;
	c->hidden_size = c->head_dim = c->max_position_embeddings = CD_UNK;
	m->w.gguf.file_type = m->w.gguf.context_length = m->w.gguf.block_count = CD_UNK;
	m->w.gguf.head_count = m->w.gguf.head_count_kv = CD_UNK;
	m->w.gguf.embedding_length = m->w.gguf.key_length = CD_UNK;
	tf_probe(f, m);
	locate(f, m);
	if (!m->dir && m->not_cached)
		hub_probe(f, m);
	if (!m->dir)
		return;
	if (m->source == MD_SRC_FILE) {
		weights_probe(f, m);
		return;
	}
	config_probe(f, m);
	tf_check_type(f, m);
	tokenizer_probe(f, m);
	weights_probe(f, m);
}
