/* model: the model-* findings (see model.h and docs/model.md). Each names
 * the error the load would raise, the evidence, and the fix to paste. */
#include <string.h>

#include "check/model/model.h"
#include "core/str.h"

#define SECTION "model"

/* python -m pip of the environment that would load the model. */
static const char *pip(const struct cd_model_facts *m, struct cd_arena *a)
{
	return m->tf.prefix ? arena_printf(a, "%s/bin/python -m pip", m->tf.prefix) : "pip";
}

static const char *download_cmd(const struct cd_model_facts *m, struct cd_arena *a)
{
	return arena_printf(a, "hf download %s%s%s", m->spec,
			    strcmp(m->revision, "main") ? " --revision " : "",
			    strcmp(m->revision, "main") ? m->revision : "");
}

/* What the Hub answered (never the token: only where it came from). */
static void hub_evidence(const struct cd_model_facts *m, struct cd_finding *x, struct cd_arena *a)
{
	const struct md_hub *h = &m->hub;

	if (h->state == MD_HUB_NOT_ASKED)
		return;
	finding_evidence(x, a, "the Hub: %s (%s)", h->url, md_hub_state_name(h->state));
	if (h->status)
		finding_evidence(x, a, "HTTP %d%s%s", h->status, h->error_code ? " " : "",
				 h->error_code ? h->error_code : "");
	if (h->error)
		finding_evidence(x, a, "%s", h->error);
	if (h->gated)
		finding_evidence(x, a, "the repository is gated (%s approval)", h->gated);
	finding_evidence(x, a, "token: %s",
			 h->token_source
				 ? arena_printf(a, "sent, from %s", h->token_source)
				 : "none sent (HF_TOKEN is unset and there is no token file)");
}

/* 401/403 from a gated repository: the license must be accepted first. */
static void gated(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x;

	x = findings_add(out, "model-gated", CD_SEV_ERROR, SECTION, "%s is gated: %s", m->spec,
			 m->hub.token_source
				 ? "the token sent has not been granted access"
				 : "access needs a token of an account that was granted it");
	finding_detail(x, a,
		       "from_pretrained() raises GatedRepoError (%d Client Error: Cannot access "
		       "gated repo) before anything is downloaded.",
		       m->hub.status ? m->hub.status : 401);
	hub_evidence(m, x, a);
	finding_fix(x, a, "# open %s, accept the conditions and wait for approval", m->hub.url);
	finding_fix(x, a, "hf auth login   # or: export HF_TOKEN=hf_... of that account");
}

static void not_found(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x;
	enum md_hub_state hs = m->hub.state;
	int online_miss = m->not_cached && m->offline != CD_TRI_YES && !m->found_in &&
			  (hs == MD_HUB_NOT_ASKED || hs == MD_HUB_UNREACHABLE);

	if (online_miss) {
		x = findings_add(out, "model-not-found", CD_SEV_WARNING, SECTION,
				 "%s is not in the local cache; from_pretrained() will download it",
				 m->spec);
		finding_detail(x, a,
			       "Nothing about the weights could be checked before the "
			       "download; download first, then run this again.");
	} else if (hs == MD_HUB_GATED) {
		gated(m, out);
		return;
	} else {
		x = findings_add(
			out, "model-not-found", CD_SEV_ERROR, SECTION, "cannot load %s: %s",
			m->spec,
			hs == MD_HUB_NOT_FOUND
				? (m->hub.error ? m->hub.error : "it is not on the Hub")
			: hs == MD_HUB_DENIED
				? arena_printf(a, "the Hub refused access (HTTP %d)", m->hub.status)
			: m->offline == CD_TRI_YES && m->not_cached
				? "offline mode and nothing usable is cached"
				: "not found");
		if (hs == MD_HUB_NOT_FOUND || hs == MD_HUB_DENIED)
			finding_detail(
				x, a, "from_pretrained() raises %s before anything is downloaded.",
				hs == MD_HUB_DENIED ? "an HTTPError (401/403)"
				: m->hub.error_code &&
						!strcmp(m->hub.error_code, "RevisionNotFound")
					? "RevisionNotFoundError"
					: "RepositoryNotFoundError (OSError: ... is not a "
					  "local folder and is not a valid model identifier)");
		if (m->cache_dir && m->offline == CD_TRI_YES && m->not_cached)
			finding_detail(x, a,
				       "transformers raises OSError: We couldn't connect to "
				       "'https://huggingface.co' to load the files, and couldn't "
				       "find them in the cached files.");
	}
	finding_evidence(x, a, "%s", m->not_found);
	if (m->cache_dir)
		finding_evidence(x, a, "cache: %s (from %s)", m->cache_dir, m->cache_var);
	if (m->offline == CD_TRI_YES)
		finding_evidence(x, a, "HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is set");
	hub_evidence(m, x, a);
	if (hs == MD_HUB_NOT_FOUND || hs == MD_HUB_DENIED) {
		finding_fix(x, a, "# check the name and the revision on %s", m->hub.url);
		if (hs == MD_HUB_DENIED || !m->hub.token_source)
			finding_fix(x, a,
				    "hf auth login   # a private repository: a token of an account "
				    "that may read it");
		return;
	}
	if (hs == MD_HUB_UNREACHABLE && !m->hub.libcurl)
		finding_fix(x, a,
			    "apt-get install libcurl4   # lets cuda-doctor read the Hub's metadata "
			    "without a download");
	if (m->found_in) {
		finding_evidence(x, a, "the model is cached in %s", m->found_in);
		finding_fix(x, a, "export HF_HUB_CACHE=%s", m->found_in);
	} else if (m->cache_dir) {
		finding_fix(x, a, "%s", download_cmd(m, a));
		finding_fix(x, a, "# huggingface_hub < 0.34: huggingface-cli download %s", m->spec);
	}
}

static void config_problems(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	const struct md_config *c = &m->config;
	struct cd_finding *x;

	if (c->present == CD_TRI_NO && !(m->w.format && !strcmp(m->w.format, "gguf"))) {
		x = findings_add(out, "model-not-found", CD_SEV_ERROR, SECTION,
				 "%s has no config.json", m->dir);
		finding_detail(x, a,
			       "transformers raises OSError: %s does not appear to have a file "
			       "named config.json.",
			       m->dir);
		finding_fix(x, a, "%s",
			    m->source == MD_SRC_CACHE || m->source == MD_SRC_HUB
				    ? download_cmd(m, a)
				    : "# point at the directory save_pretrained() "
				      "wrote (it holds config.json)");
	} else if (c->error && c->state == MD_F_OK) {
		x = findings_add(out, "model-config-invalid", CD_SEV_ERROR, SECTION,
				 "config.json cannot be read");
		finding_detail(x, a,
			       "transformers raises OSError: It looks like the config file at "
			       "'%s/config.json' is not a valid JSON file.",
			       m->dir);
		finding_evidence(x, a, "%s", c->error);
		finding_fix(x, a, "%s",
			    m->source == MD_SRC_CACHE
				    ? arena_printf(a, "%s --force-download", download_cmd(m, a))
				    : "# restore config.json from the original checkpoint");
	}
}

static void type_unknown(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	const struct md_config *c = &m->config;
	const char *first, *src = NULL;
	struct cd_finding *x;
	int native;

	if (!c->model_type) {
		if (c->present != CD_TRI_YES || c->error)
			return;
		x = findings_add(out, "model-type-unknown", CD_SEV_ERROR, SECTION,
				 "config.json has no model_type");
		finding_detail(x, a,
			       "AutoConfig raises ValueError: Unrecognized model in %s. Should "
			       "have a `model_type` key in its config.json.",
			       m->dir);
		finding_fix(x, a,
			    "# add \"model_type\" to config.json, or load the concrete class");
		return;
	}
	if (m->tf.knows_type != CD_TRI_NO || c->auto_config_remote == CD_TRI_YES)
		return;
	first = model_type_first(c->model_type, &native, &src, a);
	x = findings_add(out, "model-type-unknown", CD_SEV_ERROR, SECTION,
			 "transformers %s does not know model_type '%s'",
			 m->tf.version ? m->tf.version : "(unknown version)", c->model_type);
	finding_detail(x, a,
		       "The load raises ValueError: The checkpoint you are trying to load has "
		       "model type `%s` but Transformers does not recognize this architecture "
		       "(KeyError: '%s' in older releases).",
		       c->model_type, c->model_type);
	if (strstr(m->tf.knows_via, " and "))
		finding_evidence(
			x, a,
			"not in CONFIG_MAPPING_NAMES of %s/models/auto/configuration_auto.py, "
			"and no directory %s/models/%s",
			m->tf.path, m->tf.path, m->config.model_type);
	else
		finding_evidence(x, a, "no directory %s/models/%s", m->tf.path,
				 m->config.model_type);
	if (first && native) {
		finding_evidence(x, a, "first transformers with '%s': %s (%s)", c->model_type,
				 first, src ? src : "data/model_types.tsv");
		finding_fix(x, a, "%s install -U \"transformers>=%s\"", pip(m, a), first);
	} else if (first && !native) {
		finding_evidence(x, a, "no transformers release ships '%s' natively (%s)",
				 c->model_type, src ? src : "data/model_types.tsv");
		finding_fix(x, a, "# the checkpoint needs its own code: trust_remote_code=True");
	} else {
		finding_fix(x, a, "%s install -U transformers", pip(m, a));
	}
	if (c->transformers_version)
		finding_evidence(x, a, "the checkpoint was saved by transformers %s",
				 c->transformers_version);
}

static void remote_code(const struct cd_model_facts *m, const struct mp_request *r,
			struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	const struct md_config *c = &m->config;
	struct cd_finding *x;
	enum cd_severity sev;
	size_t i;

	if (!c->n_auto_map)
		return;
	/* transformers' resolve_trust_remote_code: native code wins unless
	 * trust_remote_code=True; without native code the load refuses. */
	if (m->tf.knows_type == CD_TRI_YES)
		sev = r->trust_remote_code ? CD_SEV_WARNING : CD_SEV_INFO;
	else
		sev = r->trust_remote_code ? CD_SEV_WARNING : CD_SEV_ERROR;
	x = findings_add(
		out, "model-needs-remote-code", sev, SECTION,
		sev == CD_SEV_INFO     ? "config.json maps Auto classes to repository code; "
					 "the native class is used unless trust_remote_code=True"
		: r->trust_remote_code ? "trust_remote_code=True will run the repository's "
					 "Python code"
				       : "loading %s runs Python code from the repository",
		m->spec);
	if (sev == CD_SEV_ERROR)
		finding_detail(x, a,
			       "Without trust_remote_code=True the load raises ValueError: "
			       "... requires you to execute the configuration file in that repo "
			       "on your local machine.");
	for (i = 0; i < c->n_remote_files; i++)
		finding_evidence(x, a, "would execute %s%s", c->remote_files[i],
				 c->remote_present[i] == CD_TRI_NO ? " (missing: it would be "
								     "downloaded first)"
								   : "");
	for (i = 0; i < c->n_auto_map && i < 6; i++)
		finding_evidence(x, a, "auto_map %s", c->auto_map[i]);
	if (sev == CD_SEV_ERROR) {
		finding_fix(x, a, "# read the files above, then pin the revision you reviewed:");
		finding_fix(x, a,
			    "from_pretrained(\"%s\", trust_remote_code=True, revision=\"%s\")",
			    m->spec, m->commit ? m->commit : m->revision);
	}
}

static void too_old(const struct cd_model_facts *m, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	const char *want = m->config.transformers_version;
	struct cd_finding *x;

	if (!want || !m->tf.version || ver_cmp(want, m->tf.version) <= 0 ||
	    m->tf.knows_type == CD_TRI_NO)
		return;
	x = findings_add(out, "model-transformers-too-old", CD_SEV_WARNING, SECTION,
			 "the checkpoint was saved by transformers %s; %s is installed", want,
			 m->tf.version);
	finding_detail(x, a, "Config keys added after %s are ignored or misread.", m->tf.version);
	finding_evidence(x, a, "config.json transformers_version: %s", want);
	finding_evidence(x, a, "installed: %s (%s)", m->tf.version, m->tf.path);
	/* "4.32.0.dev0" -> "4.32.0": pip compares releases, not dev builds. */
	finding_fix(x, a, "%s install -U \"transformers>=%.*s\"", pip(m, a),
		    (int)(strstr(want, ".dev") ? strstr(want, ".dev") - want
			  : strchr(want, '+')  ? strchr(want, '+') - want
					       : (long)strlen(want)),
		    want);
}

static void task_and_tokenizer(const struct cd_model_facts *m, const struct mp_request *r,
			       const struct cd_model_plan *p, struct cd_findings *out)
{
	struct cd_arena *a = out->arena;
	struct cd_finding *x;
	int text;

	if (!p->task && m->config.present == CD_TRI_YES && !m->config.error) {
		x = findings_add(out, "model-task-unknown", CD_SEV_WARNING, SECTION,
				 "pipeline() cannot infer the task of %s", m->spec);
		if (m->config.n_arch)
			finding_evidence(x, a,
					 "architectures: %s (no pipeline task for this class)",
					 m->config.architectures[0]);
		else
			finding_evidence(x, a, "config.json has no architectures");
		finding_fix(x, a, "pipeline(\"<task>\", model=\"%s\")", m->spec);
		finding_fix(x, a, "cuda-doctor model %s --task <task>", m->spec);
	}
	text = p->task && (strstr(p->task, "text") || strstr(p->task, "fill-mask") ||
			   strstr(p->task, "question") || strstr(p->task, "token"));
	if (!m->tok.n_files && text && m->config.present == CD_TRI_YES && !r->task) {
		x = findings_add(out, "model-tokenizer-missing", CD_SEV_WARNING, SECTION,
				 "no tokenizer files next to the model");
		finding_detail(x, a,
			       "pipeline(\"%s\") loads a tokenizer from the same place and "
			       "fails without one.",
			       p->task);
		finding_evidence(x, a,
				 "none of tokenizer.json, tokenizer.model, vocab.json, "
				 "vocab.txt in %s",
				 m->dir);
		finding_fix(x, a, "pipeline(\"%s\", model=\"%s\", tokenizer=\"<base model>\")",
			    p->task, m->spec);
	}
}

void check_model(const struct cd_facts *f, const struct cd_model_facts *m,
		 const struct mp_request *r, const struct cd_model_plan *p, struct cd_findings *out)
{
	(void)f;
	if (m->not_found) {
		not_found(m, out);
		return;
	}
	config_problems(m, out);
	type_unknown(m, out);
	remote_code(m, r, out);
	too_old(m, out);
	task_and_tokenizer(m, r, p, out);
	mc_transformers(m, out);
	mc_weights(m, out);
	mc_device(p, out);
	mc_memory(m, r, p, out);
	mc_dtype(m, r, p, out);
	mc_attention(m, r, p, out);
}
