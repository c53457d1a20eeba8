/* distinfo: see distinfo.h. Formats read:
 * - Core metadata (packaging.python.org/specifications/core-metadata): an
 *   RFC 822 header block ended by a blank line; continuation lines start with
 *   white space; a line that is not "Name: value" also ends the block, as in
 *   Python's email parser. Single-valued fields keep their first occurrence.
 * - requires.txt of setuptools' egg-info: "[extra:marker]" sections.
 * - conda-meta/NAME.json: one JSON object per installed conda package, named
 *   <name>-<version>-<build>.json (conda forbids '-' in version and build). */
#include "format/distinfo.h"

#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/span.h"
#include "core/str.h"

struct lines {
	const char *p;
	size_t n, pos;
};

/* The next line without its "\n" / "\r\n"; 0 when none is left. A last line
 * without '\n' counts only when `last_ok`. */
static int next_line(struct lines *l, int last_ok, const char **s, size_t *len)
{
	size_t pos = l->pos;
	struct cd_span ln;
	int rc = span_line((const uint8_t *)l->p, l->n, &pos, 1, &ln);

	if (!rc || (rc == 2 && !last_ok))
		return 0;
	l->pos = pos;
	*s = (const char *)ln.p;
	*len = ln.n;
	return 1;
}

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

/* The header being collected: its name and (possibly folded) value. */
struct field {
	const char *name;
	size_t name_len;
	struct cd_buf value;
	int open;
};

struct collect {
	const char *req[DISTINFO_REQUIRES_MAX];
	const char *extra[DISTINFO_EXTRAS_MAX];
};

static int is_name(const struct field *f, const char *want)
{
	return f->name_len == strlen(want) && !strncasecmp(f->name, want, f->name_len);
}

static int flush(struct field *f, struct cd_arena *a, struct distinfo_meta *m, struct collect *c)
{
	const char *v, **slot = NULL;
	char *s;
	size_t n;

	if (!f->open)
		return 0;
	f->open = 0;
	v = f->value.p ? f->value.p : "";
	n = f->value.len;
	trim(&v, &n);
	if (is_name(f, "Name"))
		slot = &m->name;
	else if (is_name(f, "Version"))
		slot = &m->version;
	else if (is_name(f, "Metadata-Version"))
		slot = &m->metadata_version;
	else if (is_name(f, "Requires-Python"))
		slot = &m->requires_python;
	else if (!is_name(f, "Requires-Dist") && !is_name(f, "Provides-Extra"))
		return 0;
	if (slot && *slot)
		return 0; /* first occurrence wins */
	if (!(s = arena_strndup(a, v, n)))
		return CD_ENOMEM;
	if (slot)
		*slot = s;
	else if (is_name(f, "Requires-Dist") && m->n_requires < DISTINFO_REQUIRES_MAX)
		c->req[m->n_requires++] = s;
	else if (is_name(f, "Provides-Extra") && m->n_extras < DISTINFO_EXTRAS_MAX)
		c->extra[m->n_extras++] = s;
	else
		m->truncated = 1;
	return 0;
}

/* A header line "Name: value" with a printable, colon-free name. */
static int header_line(const char *s, size_t len, struct field *f)
{
	const char *colon = memchr(s, ':', len);
	size_t k;

	if (!colon || colon == s)
		return 0;
	for (k = 0; k < (size_t)(colon - s); k++)
		if ((unsigned char)s[k] <= ' ' || (unsigned char)s[k] > '~')
			return 0;
	f->name = s;
	f->name_len = (size_t)(colon - s);
	buf_reset(&f->value);
	f->open = 1;
	return 1;
}

static int add_value(struct field *f, const char *s, size_t len, int continuation,
		     struct distinfo_meta *m)
{
	if (continuation)
		trim(&s, &len); /* folded: one space stands for the line break */
	if (continuation && buf_putc(&f->value, ' '))
		goto capped;
	if (buf_append(&f->value, s, len))
		goto capped;
	return 0;
capped:
	m->truncated = 1; /* keep what fits of an over-long value */
	return 0;
}

static const char **publish(struct cd_arena *a, const char **items, size_t n)
{
	const char **v;

	if (!n)
		return NULL;
	v = arena_calloc(a, n, sizeof(*v));
	if (v)
		memcpy(v, items, n * sizeof(*v));
	return v;
}

int distinfo_parse_metadata(const uint8_t *p, size_t n, int at_eof, struct cd_arena *a,
			    struct distinfo_meta *out)
{
	struct lines l = {(const char *)p, p ? n : 0, 0};
	struct field f;
	struct collect *c;
	const char *s;
	size_t len;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	c = arena_alloc(a, sizeof(*c));
	if (!c)
		return CD_ENOMEM;
	memset(&f, 0, sizeof(f));
	buf_init(&f.value, DISTINFO_VALUE_MAX);
	while (!rc && next_line(&l, at_eof, &s, &len)) {
		if (len && (s[0] == ' ' || s[0] == '\t')) {
			if (f.open)
				rc = add_value(&f, s, len, 1, out);
			continue;
		}
		if ((rc = flush(&f, a, out, c)))
			break;
		if (!len || !header_line(s, len, &f)) {
			out->complete = 1; /* blank line, or the body began without one */
			break;
		}
		rc = add_value(&f, f.name + f.name_len + 1, len - f.name_len - 1, 0, out);
	}
	/* A field is complete once the next line starts without white space,
	 * even when that line itself was cut short by the caller's cap. */
	if (!rc &&
	    (at_eof || out->complete || (l.pos < l.n && l.p[l.pos] != ' ' && l.p[l.pos] != '\t')))
		rc = flush(&f, a, out, c);
	if (at_eof)
		out->complete = 1;
	out->header_end = l.pos;
	buf_free(&f.value);
	out->requires = publish(a, c->req, out->n_requires);
	out->extras = publish(a, c->extra, out->n_extras);
	if ((out->n_requires && !out->requires) || (out->n_extras && !out->extras))
		return CD_ENOMEM;
	return rc;
}

/* ---- requires.txt ------------------------------------------------------- */

static int add_requirement(struct cd_arena *a, struct distinfo_meta *m, const char **list,
			   const char *req, size_t rn, const char *extra, size_t en,
			   const char *marker, size_t mn)
{
	const char *semi = memchr(req, ';', rn), *own = "";
	size_t on = 0;
	struct cd_buf b;
	char *s;
	int bad = 0;

	if (m->n_requires >= DISTINFO_REQUIRES_MAX) {
		m->truncated = 1;
		return 0;
	}
	if (semi) { /* a requirement with its own marker: combine with "and" */
		own = semi + 1;
		on = rn - (size_t)(own - req);
		rn = (size_t)(semi - req);
		trim(&own, &on);
		trim(&req, &rn);
	}
	buf_init(&b, DISTINFO_VALUE_MAX);
	bad |= buf_append(&b, req, rn);
	if (mn || on || en)
		bad |= buf_puts(&b, "; ");
	if (mn)
		bad |= buf_printf(&b, "(%.*s)%s", (int)mn, marker, on || en ? " and " : "");
	if (on)
		bad |= buf_printf(&b, "(%.*s)%s", (int)on, own, en ? " and " : "");
	if (en)
		bad |= buf_printf(&b, "extra == \"%.*s\"", (int)en, extra);
	s = bad ? NULL : arena_strndup(a, b.p, b.len);
	buf_free(&b);
	if (!s) {
		m->truncated = 1;
		return bad ? 0 : CD_ENOMEM;
	}
	list[m->n_requires++] = s;
	return 0;
}

int distinfo_parse_requires_txt(const uint8_t *p, size_t n, struct cd_arena *a,
				struct distinfo_meta *out)
{
	struct lines l = {(const char *)p, p ? n : 0, 0};
	const char **list, *s, *extra = "", *marker = "";
	size_t len, en = 0, mn = 0;
	int rc = 0;

	list = arena_calloc(a, DISTINFO_REQUIRES_MAX, sizeof(*list));
	if (!list)
		return CD_ENOMEM;
	if (out->n_requires)
		memcpy(list, out->requires, out->n_requires * sizeof(*list));
	while (!rc && next_line(&l, 1, &s, &len)) {
		trim(&s, &len);
		if (!len || s[0] == '#')
			continue;
		if (s[0] == '[' && s[len - 1] == ']' && len >= 2) {
			const char *colon = memchr(s, ':', len);
			extra = s + 1;
			en = colon ? (size_t)(colon - extra) : len - 2;
			marker = colon ? colon + 1 : "";
			mn = colon ? (size_t)(s + len - 1 - marker) : 0;
			trim(&extra, &en);
			trim(&marker, &mn);
			continue;
		}
		rc = add_requirement(a, out, list, s, len, extra, en, marker, mn);
	}
	out->requires = list;
	return rc;
}

/* ---- torch/version.py --------------------------------------------------- */

/* Value of `NAME[: TYPE] = VALUE` when the line assigns NAME at top level. */
static int assignment(const char *s, size_t len, const char *name, const char **v, size_t *vn)
{
	size_t k = strlen(name), i;

	if (len <= k || memcmp(s, name, k) || !(s[k] == ' ' || s[k] == ':' || s[k] == '='))
		return 0;
	for (i = k; i < len && s[i] != '='; i++)
		;
	if (i + 1 >= len || s[i + 1] == '=')
		return 0;
	*v = s + i + 1;
	*vn = len - i - 1;
	trim(v, vn);
	return 1;
}

/* 'text' / "text" -> string; None -> NULL; True/False -> "1"/"0". */
static int py_value(const char *v, size_t n, struct cd_arena *a, const char **out)
{
	const char *end;

	*out = NULL;
	if (n >= 4 && !memcmp(v, "None", 4))
		return 0;
	if (n >= 4 && !memcmp(v, "True", 4))
		return (*out = "1"), 0;
	if (n >= 5 && !memcmp(v, "False", 5))
		return (*out = "0"), 0;
	if (!n || (v[0] != '\'' && v[0] != '"'))
		return CD_EFORMAT;
	end = memchr(v + 1, v[0], n - 1);
	if (!end || memchr(v + 1, '\\', (size_t)(end - v - 1)) || end - v - 1 > 256)
		return CD_EFORMAT;
	*out = arena_strndup(a, v + 1, (size_t)(end - v - 1));
	return *out ? 0 : CD_ENOMEM;
}

int distinfo_parse_torch_version(const uint8_t *p, size_t n, struct cd_arena *a,
				 struct torch_version_py *out)
{
	static const struct {
		const char *name;
		size_t off;
	} keys[] = {
		{"__version__", offsetof(struct torch_version_py, version)},
		{"cuda", offsetof(struct torch_version_py, cuda)},
		{"hip", offsetof(struct torch_version_py, hip)},
		{"xpu", offsetof(struct torch_version_py, xpu)},
		{"git_version", offsetof(struct torch_version_py, git_version)},
	};
	struct lines l = {(const char *)p, p ? n : 0, 0};
	const char *s, *v, *val;
	size_t len, vn, k;
	int rc;

	memset(out, 0, sizeof(*out));
	out->debug = -1;
	while (next_line(&l, 1, &s, &len)) {
		if (assignment(s, len, "debug", &v, &vn)) {
			if (py_value(v, vn, a, &val) == 0 && val &&
			    (val[0] == '0' || val[0] == '1'))
				out->debug = val[0] == '1';
			continue;
		}
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			const char **slot = (const char **)((char *)out + keys[k].off);
			if (!assignment(s, len, keys[k].name, &v, &vn))
				continue;
			rc = py_value(v, vn, a, &val);
			if (rc == CD_ENOMEM)
				return rc;
			if (rc == 0) {
				*slot = val;
				if (k == 0)
					out->found = val != NULL;
			}
		}
	}
	return out->found ? 0 : CD_EFORMAT;
}

/* ---- conda-meta ----------------------------------------------------------- */

int distinfo_conda_filename(const char *file, struct cd_arena *a, struct conda_record *out)
{
	size_t n = strlen(file);
	const char *b, *v;

	memset(out, 0, sizeof(*out));
	if (!str_has_suffix(file, ".json"))
		return CD_EFORMAT;
	n -= 5;
	for (b = file + n; b > file && b[-1] != '-'; b--)
		;
	if (b <= file + 1 || b == file + n)
		return CD_EFORMAT;
	for (v = b - 1; v > file && v[-1] != '-'; v--)
		;
	if (v <= file + 1 || v == b - 1)
		return CD_EFORMAT;
	out->name = arena_strndup(a, file, (size_t)(v - 1 - file));
	out->version = arena_strndup(a, v, (size_t)(b - 1 - v));
	out->build = arena_strndup(a, b, (size_t)(file + n - b));
	return out->name && out->version && out->build ? 0 : CD_ENOMEM;
}

static const char *json_field(json_t *o, const char *key, struct cd_arena *a)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? arena_strndup(a, json_string_value(v), json_string_length(v))
				 : NULL;
}

int distinfo_parse_conda_json(const uint8_t *p, size_t n, struct cd_arena *a,
			      struct conda_record *out)
{
	json_error_t jerr;
	json_t *root;

	memset(out, 0, sizeof(*out));
	if (!p)
		return CD_EFORMAT;
	root = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return CD_EFORMAT;
	if (!json_is_object(root)) {
		json_decref(root);
		return CD_EFORMAT;
	}
	out->name = json_field(root, "name", a);
	out->version = json_field(root, "version", a);
	out->build = json_field(root, "build", a);
	out->channel = json_field(root, "channel", a);
	json_decref(root);
	return 0;
}

/* ---- directory names ------------------------------------------------------ */

enum distinfo_kind distinfo_dirname(const char *dir, struct cd_arena *a, const char **name,
				    const char **version)
{
	enum distinfo_kind kind;
	size_t n = strlen(dir), base;
	const char *dash, *end;

	*name = *version = NULL;
	if (str_has_suffix(dir, ".dist-info"))
		kind = DISTINFO_DIST, base = n - 10;
	else if (str_has_suffix(dir, ".egg-info"))
		kind = DISTINFO_EGG, base = n - 9;
	else
		return DISTINFO_NONE;
	dash = memchr(dir, '-', base);
	if (dash == dir || base == 0)
		return DISTINFO_NONE;
	*name = arena_strndup(a, dir, dash ? (size_t)(dash - dir) : base);
	if (dash && (size_t)(dash + 1 - dir) < base) {
		end = kind == DISTINFO_EGG ? memchr(dash + 1, '-', base - (size_t)(dash + 1 - dir))
					   : NULL;
		*version = arena_strndup(a, dash + 1,
					 end ? (size_t)(end - dash - 1)
					     : base - (size_t)(dash + 1 - dir));
	}
	return *name ? kind : DISTINFO_NONE;
}

/* ---- pyvenv.cfg and patchlevel.h ------------------------------------------ */

int distinfo_cfg_get(const uint8_t *p, size_t n, const char *key, struct cd_arena *a,
		     const char **out)
{
	struct lines l = {(const char *)p, p ? n : 0, 0};
	const char *s, *eq, *k, *v;
	size_t len, kn, vn;

	*out = NULL;
	while (next_line(&l, 1, &s, &len)) {
		eq = memchr(s, '=', len);
		if (!eq)
			continue;
		k = s;
		kn = (size_t)(eq - s);
		v = eq + 1;
		vn = len - kn - 1;
		trim(&k, &kn);
		trim(&v, &vn);
		if (kn != strlen(key) || strncasecmp(k, key, kn))
			continue;
		*out = arena_strndup(a, v, vn);
		return *out ? 0 : CD_ENOMEM;
	}
	return CD_ENOENT;
}

int distinfo_patchlevel(const uint8_t *p, size_t n, struct cd_arena *a, const char **out)
{
	struct lines l = {(const char *)p, p ? n : 0, 0};
	const char *s, *q, *end;
	size_t len;

	*out = NULL;
	while (next_line(&l, 1, &s, &len)) {
		trim(&s, &len);
		if (len < 19 || memcmp(s, "#define PY_VERSION", 18) ||
		    (s[18] != ' ' && s[18] != '\t'))
			continue;
		q = memchr(s, '"', len);
		end = q ? memchr(q + 1, '"', len - (size_t)(q + 1 - s)) : NULL;
		if (!end || end - q - 1 > 64 || end == q + 1)
			return CD_EFORMAT;
		*out = arena_strndup(a, q + 1, (size_t)(end - q - 1));
		return *out ? 0 : CD_ENOMEM;
	}
	return CD_ENOENT;
}
