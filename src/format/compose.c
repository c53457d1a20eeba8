/* compose: see compose.h. Sources: the Compose specification (services,
 * deploy.resources.reservations.devices, gpus, environment, interpolation)
 * at https://github.com/compose-spec/compose-spec (spec.md, deploy.md,
 * interpolation.md) and docs.docker.com/compose/how-tos/gpu-support/. */
#include "format/compose.h"

#include <string.h>

#include "core/buf.h"
#include "format/dfignore.h"
#include "format/yamltree.h"

#define INTERP_DEPTH 16

static int name0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int namec(char c)
{
	return name0(c) || (c >= '0' && c <= '9');
}

/* The '}' closing the "${" at s[0..1], or n. */
static size_t closing(const char *s, size_t n)
{
	size_t i, depth = 0;

	for (i = 2; i < n; i++) {
		if (s[i] == '$' && i + 1 < n && s[i + 1] == '{') {
			depth++;
			i++;
		} else if (s[i] == '}') {
			if (!depth)
				return i;
			depth--;
		}
	}
	return n;
}

static int interp(struct cd_buf *b, const char *s, size_t n, int *unknown, int depth)
{
	size_t i = 0;
	int rc = 0;

	while (!rc && i < n) {
		const char *d = memchr(s + i, '$', n - i);
		size_t k, end, j;
		if (!d) {
			rc = buf_append(b, s + i, n - i);
			break;
		}
		k = (size_t)(d - s);
		if ((rc = buf_append(b, s + i, k - i)))
			break;
		i = k;
		if (i + 1 < n && s[i + 1] == '$') { /* $$ is a literal $ */
			rc = buf_putc(b, '$');
			i += 2;
		} else if (i + 1 < n && name0(s[i + 1])) { /* $NAME: set nowhere */
			for (j = i + 1; j < n && namec(s[j]); j++)
				;
			*unknown = 1;
			rc = buf_append(b, s + i, j - i);
			i = j;
		} else if (i + 1 < n && s[i + 1] == '{') {
			end = closing(s + i, n - i) + i;
			for (j = i + 2; j < end && namec(s[j]); j++)
				;
			if (end == n || j == i + 2 || depth >= INTERP_DEPTH) {
				*unknown = 1; /* Compose: invalid interpolation format */
				rc = buf_append(b, s + i, (end < n ? end + 1 : n) - i);
			} else if (j + 1 < end && s[j] == ':' && s[j + 1] == '-') {
				rc = interp(b, s + j + 2, end - j - 2, unknown, depth + 1);
			} else if (j < end && s[j] == '-') {
				rc = interp(b, s + j + 1, end - j - 1, unknown, depth + 1);
			} else if ((j < end && s[j] == '+') ||
				   (j + 1 < end && s[j] == ':' && s[j + 1] == '+')) {
				; /* unset: the alternative is not used */
			} else {
				*unknown = 1; /* ${VAR}, ${VAR:?err}, ${VAR?err} */
				rc = buf_append(b, s + i, end + 1 - i);
			}
			i = end < n ? end + 1 : n;
		} else {
			rc = buf_putc(b, '$');
			i++;
		}
	}
	return rc;
}

char *compose_interpolate(const char *s, struct cd_arena *a, int *unknown)
{
	struct cd_buf b;
	char *r = NULL;

	*unknown = 0;
	if (!s)
		return NULL;
	if (!strchr(s, '$'))
		return arena_strdup(a, s);
	buf_init(&b, YML_INPUT_MAX);
	if (!interp(&b, s, strlen(s), unknown, 0))
		r = arena_strndup(a, b.p ? b.p : "", b.len);
	buf_free(&b);
	return r;
}

struct ctx {
	struct cd_arena *a;
	struct cmp_file *f;
	struct cd_err *err;
	int nomem;
};

static void str_of(struct ctx *c, const struct yml_node *n, struct cmp_str *out)
{
	const char *t = yml_text(n);

	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	out->line = n->line;
	out->v = compose_interpolate(t, c->a, &out->unknown);
	if (!out->v)
		c->nomem = 1;
}

/* A command as one line: a string as written, a list joined with blanks. */
static void command_of(struct ctx *c, const struct yml_node *n, struct cmp_str *out)
{
	struct cd_buf b;
	size_t i;
	int unk = 0;

	memset(out, 0, sizeof(*out));
	if (!n || n->kind == YML_MAP)
		return;
	if (n->kind == YML_SCALAR) {
		str_of(c, n, out);
		return;
	}
	buf_init(&b, YML_INPUT_MAX);
	for (i = 0; i < n->n; i++) {
		int u = 0;
		char *t = compose_interpolate(yml_text(n->val[i]), c->a, &u);
		unk |= u;
		if ((t && ((i && buf_putc(&b, ' ')) || buf_puts(&b, t))))
			c->nomem = 1;
	}
	out->v = arena_strndup(c->a, b.p ? b.p : "", b.len);
	out->line = n->line;
	out->unknown = unk;
	buf_free(&b);
	if (!out->v)
		c->nomem = 1;
}

static void list_of(struct ctx *c, const struct yml_node *n, struct cmp_str *items, size_t *count)
{
	size_t i;

	*count = 0;
	if (!n)
		return;
	if (n->kind == YML_SCALAR) { /* capabilities: gpu, device_ids: "0" */
		if (yml_text(n))
			str_of(c, n, &items[(*count)++]);
		return;
	}
	if (n->kind != YML_SEQ)
		return;
	for (i = 0; i < n->n; i++) {
		if (*count == CMP_LIST_MAX) {
			c->f->truncated++;
			continue;
		}
		if (yml_text(n->val[i]))
			str_of(c, n->val[i], &items[(*count)++]);
	}
}

static void device_of(struct ctx *c, struct cmp_service *s, const struct yml_node *d, int gpus)
{
	struct cmp_device *x;
	const struct yml_node *caps, *ids;

	if (s->n_devices == CMP_DEVICES_MAX) {
		c->f->truncated++;
		return;
	}
	x = &s->devices[s->n_devices++];
	memset(x, 0, sizeof(*x));
	x->line = d->line;
	x->from_gpus = gpus;
	if (d->kind == YML_SCALAR) { /* gpus: all */
		str_of(c, d, &x->count);
		return;
	}
	str_of(c, yml_get(d, "driver"), &x->driver);
	str_of(c, yml_get(d, "count"), &x->count);
	caps = yml_get(d, "capabilities");
	x->caps_set = caps && !yml_is_null(caps);
	list_of(c, caps, x->caps, &x->n_caps);
	ids = yml_get(d, "device_ids");
	x->ids_set = ids && !yml_is_null(ids);
	list_of(c, ids, x->ids, &x->n_ids);
}

static void env_add(struct ctx *c, struct cmp_service *s, const char *name, size_t nlen,
		    const struct yml_node *val, const char *text, unsigned line)
{
	struct cmp_env *e;
	size_t i;

	for (i = 0; i < s->n_env; i++) /* a later entry wins */
		if (strlen(s->env[i].name) == nlen && !strncmp(s->env[i].name, name, nlen))
			break;
	if (i == s->n_env) {
		if (s->n_env == CMP_ENV_MAX) {
			c->f->truncated++;
			return;
		}
		s->n_env++;
	}
	e = &s->env[i];
	memset(e, 0, sizeof(*e));
	e->name = arena_strndup(c->a, name, nlen);
	if (!e->name)
		c->nomem = 1;
	if (val) {
		str_of(c, val, &e->value);
	} else if (text) {
		e->value.line = line;
		e->value.v = compose_interpolate(text, c->a, &e->value.unknown);
		if (!e->value.v)
			c->nomem = 1;
	}
}

static void environment_of(struct ctx *c, struct cmp_service *s, const struct yml_node *n)
{
	size_t i;

	if (!n)
		return;
	if (n->kind == YML_MAP) {
		for (i = 0; i < n->n; i++) {
			const char *k = yml_text(n->key[i]);
			if (k)
				env_add(c, s, k, strlen(k),
					yml_is_null(n->val[i]) ? NULL : n->val[i], NULL,
					n->key[i]->line);
		}
		return;
	}
	if (n->kind != YML_SEQ)
		return;
	for (i = 0; i < n->n; i++) {
		const char *t = yml_text(n->val[i]), *eq;
		if (!t || !*t)
			continue;
		eq = strchr(t, '=');
		env_add(c, s, t, eq ? (size_t)(eq - t) : strlen(t), NULL, eq ? eq + 1 : NULL,
			n->val[i]->line);
	}
}

static void service_of(struct ctx *c, struct cmp_service *s, const struct yml_node *key,
		       const struct yml_node *v)
{
	const struct yml_node *b, *d, *g;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->name = key->text;
	s->line = key->line;
	if (!v || v->kind != YML_MAP)
		return;
	str_of(c, yml_get(v, "image"), &s->image);
	str_of(c, yml_get(v, "runtime"), &s->runtime);
	str_of(c, yml_get(v, "shm_size"), &s->shm_size);
	str_of(c, yml_get(v, "ipc"), &s->ipc);
	command_of(c, yml_get(v, "command"), &s->command);
	command_of(c, yml_get(v, "entrypoint"), &s->entrypoint);
	if ((b = yml_get(v, "build")) && !yml_is_null(b)) {
		s->has_build = 1;
		if (b->kind == YML_SCALAR) {
			str_of(c, b, &s->build_context);
		} else {
			str_of(c, yml_get(b, "context"), &s->build_context);
			str_of(c, yml_get(b, "dockerfile"), &s->dockerfile);
		}
	}
	s->env_file = yml_get(v, "env_file") && !yml_is_null(yml_get(v, "env_file"));
	s->extends = yml_get(v, "extends") != NULL;
	environment_of(c, s, yml_get(v, "environment"));
	d = yml_get(yml_get(yml_get(yml_get(v, "deploy"), "resources"), "reservations"), "devices");
	for (i = 0; d && d->kind == YML_SEQ && i < d->n; i++)
		if (d->val[i] && d->val[i]->kind == YML_MAP)
			device_of(c, s, d->val[i], 0);
	if ((g = yml_get(v, "gpus")) && !yml_is_null(g)) {
		if (g->kind == YML_SCALAR)
			device_of(c, s, g, 1);
		for (i = 0; g->kind == YML_SEQ && i < g->n; i++)
			if (g->val[i] && g->val[i]->kind == YML_MAP)
				device_of(c, s, g->val[i], 1);
	}
}

static size_t blanks(const char *p, size_t i, size_t e)
{
	while (i < e && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i;
}

/* One comment line (format/dfignore): an ignore comment's ids into *ig;
 * 1 for one, 0 for another comment, CD_ENOMEM. */
static int ignore_line(const char *p, size_t s, size_t e, struct cmp_ignore *ig, int *global,
		       struct cd_arena *a)
{
	struct dfignore d;
	size_t i;
	int rc = dfignore_parse(p + s, e - s, a, &d);

	if (rc <= 0)
		return rc;
	*global = d.global;
	for (i = 0; i < d.n && ig->n < CMP_IGNORE_IDS; i++)
		ig->ids[ig->n++] = d.ids[i];
	return 1;
}

static int ignores(const uint8_t *bytes, size_t n, struct cd_arena *a, struct cmp_file *out)
{
	const char *p = (const char *)bytes;
	size_t s = 0, e, k, pending = 0;
	unsigned line = 0;
	int global = 0, rc;

	for (; s < n; s = e + 1) {
		const char *nl = memchr(p + s, '\n', n - s);
		e = nl ? (size_t)(nl - p) : n;
		line++;
		k = blanks(p, s, e);
		if (k == e || p[k] == '\r') {
			pending = 0; /* a blank line ends what an ignore comment covers */
			continue;
		}
		if (p[k] == '#') {
			struct cmp_ignore ig;
			/* As hadolint: an ignore comment covers the next line only;
			 * another comment line ends it. */
			pending = 0;
			memset(&ig, 0, sizeof(ig));
			if ((rc = ignore_line(p, k, e > k && p[e - 1] == '\r' ? e - 1 : e, &ig,
					      &global, a)) < 0)
				return CD_ENOMEM;
			if (rc && ig.n && out->n_ignores < CMP_IGNORES_MAX) {
				if (!out->ignores &&
				    !(out->ignores = arena_calloc(a, CMP_IGNORES_MAX,
								  sizeof(*out->ignores))))
					return CD_ENOMEM;
				ig.line = global ? 0 : UINT32_MAX; /* set at the next line */
				out->ignores[out->n_ignores++] = ig;
				if (!global)
					pending++;
			}
			continue;
		}
		for (; pending; pending--)
			out->ignores[out->n_ignores - pending].line = line;
	}
	return 0;
}

int compose_ignored(const struct cmp_file *f, const struct cmp_service *s, unsigned line,
		    const char *id)
{
	size_t i;

	for (i = 0; i < f->n_ignores; i++) {
		const struct cmp_ignore *g = &f->ignores[i];
		if (g->line && g->line != line && !(s && g->line == s->line))
			continue;
		if (dfignore_has(g->ids, g->n, id))
			return 1;
	}
	return 0;
}

int compose_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct cmp_file *out,
		  struct cd_err *err)
{
	const struct yml_node *root = NULL, *svc;
	struct ctx c;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = yamltree_load(p, n, a, &root, err)))
		return rc;
	if (!root || root->kind != YML_MAP)
		return err_set(err, CD_EFORMAT,
			       "not a Compose file: the top level is not a mapping");
	svc = yml_get(root, "services");
	if (!svc && !yml_get(root, "include"))
		return err_set(err, CD_EFORMAT, "not a Compose file: no services");
	if (svc && !yml_is_null(svc) && svc->kind != YML_MAP)
		return err_set(err, CD_EFORMAT, "line %u: services must be a mapping", svc->line);
	if (ignores(p, n, a, out))
		return err_set(err, CD_ENOMEM, "out of memory");
	if (!svc || svc->kind != YML_MAP)
		return 0;
	if (svc->n > CMP_SERVICES_MAX)
		return err_set(err, CD_ERANGE, "more than %d services", CMP_SERVICES_MAX);
	out->services = arena_calloc(a, svc->n ? svc->n : 1, sizeof(*out->services));
	if (!out->services)
		return err_set(err, CD_ENOMEM, "out of memory");
	memset(&c, 0, sizeof(c));
	c.a = a;
	c.f = out;
	c.err = err;
	for (i = 0; i < svc->n; i++)
		if (yml_text(svc->key[i]))
			service_of(&c, &out->services[out->n++], svc->key[i], svc->val[i]);
	return c.nomem ? err_set(err, CD_ENOMEM, "out of memory") : 0;
}

const struct cmp_env *compose_env(const struct cmp_service *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_env; i++)
		if (!strcmp(s->env[i].name, name))
			return &s->env[i];
	return NULL;
}
