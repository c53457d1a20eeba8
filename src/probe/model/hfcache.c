/* hfcache: find ORG/NAME in the Hugging Face hub cache the way huggingface_hub
 * and transformers do. Layout (huggingface_hub file_download.py
 * try_to_load_from_cache; https://huggingface.co/docs/hub/local-cache):
 *   <cache>/models--ORG--NAME/refs/<revision>      the commit hash, as text
 *   <cache>/models--ORG--NAME/snapshots/<commit>/  files, symlinks into blobs/
 *   <cache>/models--ORG--NAME/blobs/<etag>[.incomplete]
 * The cache directory: transformers 4.x reads TRANSFORMERS_CACHE, then
 * PYTORCH_TRANSFORMERS_CACHE, PYTORCH_PRETRAINED_BERT_CACHE (deprecated, "will
 * be removed in v5", transformers utils/hub.py); then huggingface_hub's
 * HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/
 * huggingface/hub, ~/.cache/huggingface/hub (huggingface_hub constants.py). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/fsutil.h"
#include "core/str.h"
#include "probe/model/model.h"

#define MAX_INCOMPLETE 16
#define MAX_DIR_SCAN   100000

/* huggingface_hub validate_repo_id: [A-Za-z0-9_.-], no "--" or "..", no
 * leading/trailing '-' or '.', at most 96 characters, one optional '/'. */
static int part_ok(const char *p, size_t len)
{
	size_t i;

	if (!len || p[0] == '-' || p[0] == '.' || p[len - 1] == '-' || p[len - 1] == '.')
		return 0;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)p[i]) && p[i] != '_' && p[i] != '.' && p[i] != '-')
			return 0;
	return 1;
}

static int repo_id_ok(const char *s)
{
	const char *slash = strchr(s, '/');
	size_t n = strlen(s);

	if (!n || n > 96 || strstr(s, "--") || strstr(s, ".."))
		return 0;
	if (!slash)
		return part_ok(s, n);
	return !strchr(slash + 1, '/') && part_ok(s, (size_t)(slash - s)) &&
	       part_ok(slash + 1, strlen(slash + 1));
}

static int truthy(const char *v)
{
	return v && (!strcasecmp(v, "1") || !strcasecmp(v, "ON") || !strcasecmp(v, "YES") ||
		     !strcasecmp(v, "TRUE"));
}

struct cand {
	const char *var;
	const char *dir;
};

/* ~ and ~/ expand to $HOME, as os.path.expanduser does. */
static const char *expand(struct cd_facts *f, const char *v, const char *suffix)
{
	const char *home = facts_getenv(f, "HOME");

	if (v[0] == '~' && (v[1] == '/' || !v[1]) && home)
		return arena_printf(&f->arena, "%s%s%s", home, v + 1, suffix);
	return arena_printf(&f->arena, "%s%s", v, suffix);
}

static size_t candidates(struct cd_facts *f, const struct cd_model_facts *m, struct cand *c)
{
	static const struct {
		const char *var, *suffix;
		int legacy; /* honoured by transformers 4.x only */
	} vars[] = {
		{"TRANSFORMERS_CACHE", "", 1},
		{"PYTORCH_TRANSFORMERS_CACHE", "", 1},
		{"PYTORCH_PRETRAINED_BERT_CACHE", "", 1},
		{"HF_HUB_CACHE", "", 0},
		{"HUGGINGFACE_HUB_CACHE", "", 0},
		{"HF_HOME", "/hub", 0},
		{"XDG_CACHE_HOME", "/huggingface/hub", 0},
		{"HOME", "/.cache/huggingface/hub", 0},
	};
	int v5 = m->tf.version && ver_cmp(m->tf.version, "5") >= 0;
	size_t i, n = 0;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = facts_getenv(f, vars[i].var);
		if (!v || !*v || (vars[i].legacy && v5))
			continue;
		c[n].var = vars[i].var;
		c[n].dir = expand(f, v, vars[i].suffix);
		if (c[n].dir)
			n++;
	}
	return n;
}

static const char *dir_problem(struct cd_facts *f, const char *dir)
{
	char host[PATH_MAX];
	struct stat st;
	DIR *d;

	if (root_host_path(&f->root, dir, host, sizeof(host)))
		return arena_printf(&f->arena, "%s: path cannot be resolved (symlink loop?)", dir);
	if (stat(host, &st) != 0)
		return arena_printf(&f->arena, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return arena_printf(&f->arena, "%s: not a directory", dir);
	d = opendir(host);
	if (!d)
		return arena_printf(&f->arena, "%s: %s", dir, strerror(errno));
	closedir(d);
	return NULL;
}

/* refs/<revision> holds a commit hash; a 40-hex revision is a commit itself. */
static const char *resolve_commit(struct cd_facts *f, struct cd_model_facts *m)
{
	const char *ref =
		fsu_path(&f->arena, m->repo_dir, arena_printf(&f->arena, "refs/%s", m->revision));
	struct cd_buf b;
	const char *commit = NULL;
	size_t i, n = strlen(m->revision);

	buf_init(&b, 256);
	if (!strstr(m->revision, "..") && file_is_reg(&f->root, ref) &&
	    !file_read(&f->root, ref, 256, &b, NULL)) {
		str_trim(b.p);
		for (i = 0; b.p[i] && isxdigit((unsigned char)b.p[i]); i++)
			;
		if (i >= 5 && !b.p[i]) /* huggingface_hub REGEX_COMMIT_OID: 5-40 hex */
			commit = arena_strdup(&f->arena, b.p);
	}
	buf_free(&b);
	if (commit)
		return commit;
	for (i = 0; i < n && isxdigit((unsigned char)m->revision[i]); i++)
		;
	return n == 40 && i == n ? m->revision : NULL;
}

static const char *list_refs(struct cd_facts *f, const char *repo)
{
	DIR *d = file_opendir(&f->root, fsu_path(&f->arena, repo, "refs"));
	struct dirent *e;
	struct cd_buf b;
	const char *s;
	size_t n = 0;

	if (!d)
		return "none";
	buf_init(&b, 4096);
	while ((e = readdir(d)) && n < 32) {
		if (e->d_name[0] == '.')
			continue;
		if (buf_printf(&b, "%s%s", n ? ", " : "", e->d_name) != 0)
			break; /* the names that fit */
		n++;
	}
	closedir(d);
	s = n ? arena_strdup(&f->arena, b.p) : "none";
	buf_free(&b);
	return s;
}

/* blobs/<etag>.incomplete: downloads that started and did not finish. */
static void find_incomplete(struct cd_facts *f, struct cd_model_facts *m)
{
	const char *blobs = fsu_path(&f->arena, m->repo_dir, "blobs");
	DIR *d = file_opendir(&f->root, blobs);
	struct dirent *e;
	size_t scanned = 0;

	if (!d)
		return;
	m->incomplete = arena_calloc(&f->arena, MAX_INCOMPLETE, sizeof(char *));
	while (m->incomplete && (e = readdir(d)) && scanned++ < MAX_DIR_SCAN) {
		struct stat st;
		const char *p;
		if (!str_has_suffix(e->d_name, ".incomplete") || m->n_incomplete >= MAX_INCOMPLETE)
			continue;
		p = fsu_path(&f->arena, blobs, e->d_name);
		if (file_lstat(&f->root, p, &st))
			st.st_size = 0;
		m->incomplete[m->n_incomplete++] =
			arena_printf(&f->arena, "blobs/%s (%lld bytes so far)", e->d_name,
				     (long long)st.st_size);
	}
	closedir(d);
}

static const char *repo_folder(struct cd_facts *f, const char *cache, const char *id)
{
	const char *slash = strchr(id, '/');

	if (!slash)
		return arena_printf(&f->arena, "%s/models--%s", cache, id);
	return arena_printf(&f->arena, "%s/models--%.*s--%s", cache, (int)(slash - id), id,
			    slash + 1);
}

void hfcache_resolve(struct cd_facts *f, struct cd_model_facts *m)
{
	struct cand c[8];
	struct stat st;
	size_t n, i;
	const char *why, *snap;

	m->offline = truthy(facts_getenv(f, "HF_HUB_OFFLINE")) ||
				     truthy(facts_getenv(f, "TRANSFORMERS_OFFLINE"))
			     ? CD_TRI_YES
			     : CD_TRI_NO;
	if (!repo_id_ok(m->spec)) {
		m->not_found = arena_printf(&f->arena,
					    "'%s' is not a directory and not a valid repo id "
					    "(ORG/NAME of letters, digits, '-', '_', '.')",
					    m->spec);
		return;
	}
	n = candidates(f, m, c);
	if (!n) {
		m->not_found = "no cache directory: HOME, HF_HOME and HF_HUB_CACHE are all unset";
		return;
	}
	m->cache_dir = c[0].dir;
	m->cache_var = c[0].var;
	m->repo_dir = repo_folder(f, c[0].dir, m->spec);
	why = dir_problem(f, c[0].dir);
	if (why && file_lstat(&f->root, c[0].dir, &st))
		m->not_cached = 1; /* no cache yet: a download would create it */
	if (!why && !file_is_dir(&f->root, m->repo_dir)) {
		why = arena_printf(&f->arena, "%s is not in the cache %s", m->spec, c[0].dir);
		m->not_cached = 1;
	}
	if (why) {
		for (i = 1; i < n; i++)
			if (strcmp(c[i].dir, c[0].dir) &&
			    file_is_dir(&f->root, repo_folder(f, c[i].dir, m->spec)))
				m->found_in = c[i].dir;
		m->not_found = why;
		return;
	}
	if (dir_problem(f, m->repo_dir)) {
		m->not_found = dir_problem(f, m->repo_dir);
		return;
	}
	find_incomplete(f, m);
	m->commit = resolve_commit(f, m);
	if (!m->commit) {
		m->not_cached = 1;
		m->not_found = arena_printf(
			&f->arena, "revision '%s' of %s is not in the cache (cached refs: %s)",
			m->revision, m->spec, list_refs(f, m->repo_dir));
		return;
	}
	snap = fsu_path(&f->arena, m->repo_dir, arena_printf(&f->arena, "snapshots/%s", m->commit));
	if (!file_is_dir(&f->root, snap)) {
		m->not_cached = 1;
		m->not_found = arena_printf(
			&f->arena, "snapshot %s (revision '%s') is missing from %s/snapshots",
			m->commit, m->revision, m->repo_dir);
		return;
	}
	m->dir = snap;
	m->source = MD_SRC_CACHE;
}
