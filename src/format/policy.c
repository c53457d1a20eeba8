/* policy: see policy.h. A line is split into its subject word and the rest;
 * the subject's kind says how the rest must read. */
#include "format/policy.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "format/pep440.h"
#include "format/pep508.h"

#define VER_PARTS_MAX 8

static const struct {
	const char *name;
	enum policy_subject subject;
	enum policy_kind kind;
} subjects[] = {
	{"driver", POLICY_DRIVER, POLICY_KIND_VERSION},
	{"cuda", POLICY_CUDA, POLICY_KIND_VERSION},
	{"cuda.runtime", POLICY_CUDA_RUNTIME, POLICY_KIND_VERSION},
	{"torch", POLICY_TORCH, POLICY_KIND_PEP440},
	{"torch.cuda", POLICY_TORCH_CUDA, POLICY_KIND_VERSION},
	{"cudnn", POLICY_CUDNN, POLICY_KIND_VERSION},
	{"nccl", POLICY_NCCL, POLICY_KIND_VERSION},
	{"nvcc", POLICY_NVCC, POLICY_KIND_VERSION},
	{"python", POLICY_PYTHON, POLICY_KIND_VERSION},
	{"gpu.count", POLICY_GPU_COUNT, POLICY_KIND_COUNT},
	{"gpu.cc", POLICY_GPU_CC, POLICY_KIND_VERSION},
	{"gpu.memory", POLICY_GPU_MEMORY, POLICY_KIND_BYTES},
	{"header", POLICY_HEADER, POLICY_KIND_NONE},
	{"package", POLICY_PACKAGE, POLICY_KIND_PEP440},
	{"no-errors", POLICY_NO_ERRORS, POLICY_KIND_NONE},
	{"no-warnings", POLICY_NO_WARNINGS, POLICY_KIND_NONE},
	{"probe", POLICY_PROBE, POLICY_KIND_NONE},
	{"allow", POLICY_ALLOW, POLICY_KIND_NONE},
};

#define N_SUBJECTS (sizeof(subjects) / sizeof(subjects[0]))

const char *policy_subject_name(enum policy_subject s)
{
	size_t i;

	for (i = 0; i < N_SUBJECTS; i++)
		if (subjects[i].subject == s)
			return subjects[i].name;
	return "?";
}

enum policy_kind policy_subject_kind(enum policy_subject s)
{
	size_t i;

	for (i = 0; i < N_SUBJECTS; i++)
		if (subjects[i].subject == s)
			return subjects[i].kind;
	return POLICY_KIND_NONE;
}

const char *policy_op_str(enum policy_op op)
{
	static const char *const s[] = {">=", ">", "<=", "<", "==", "!="};

	return op <= POLICY_NE ? s[op] : "?";
}

/* "line N: " before the reason, nothing for a command-line requirement. */
static int fail(struct cd_err *err, size_t line, const char *reason)
{
	if (line)
		return err_set(err, CD_EFORMAT, "line %zu: %s", line, reason);
	return err_set(err, CD_EFORMAT, "%s", reason);
}

/* Dotted numbers from the start of s: 0 and the count, or -1 when s does not
 * start with a digit or a part overflows. *end gets what follows. */
static int ver_parts(const char *s, uint64_t *parts, size_t *n, const char **end)
{
	*n = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	while (isdigit((unsigned char)*s) && *n < VER_PARTS_MAX) {
		uint64_t v = 0;
		while (isdigit((unsigned char)*s)) {
			if (v > (UINT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (uint64_t)(*s++ - '0');
		}
		parts[(*n)++] = v;
		if (*s != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	*end = s;
	return 0;
}

int policy_version_holds(const char *found, const struct policy_cmp *c, int *res)
{
	uint64_t a[VER_PARTS_MAX], b[VER_PARTS_MAX];
	size_t na, nb, i;
	const char *end;
	int d = 0;

	if (!found || ver_parts(found, a, &na, &end) || ver_parts(c->value, b, &nb, &end))
		return CD_EFORMAT;
	/* On as many parts as the requirement writes: "<= 12.4" holds for 12.4.1. */
	for (i = 0; i < nb && !d; i++) {
		uint64_t x = i < na ? a[i] : 0;
		d = x < b[i] ? -1 : x > b[i];
	}
	switch (c->op) {
	case POLICY_GE: *res = d >= 0; break;
	case POLICY_GT: *res = d > 0; break;
	case POLICY_LE: *res = d <= 0; break;
	case POLICY_LT: *res = d < 0; break;
	case POLICY_EQ: *res = d == 0; break;
	default: *res = d != 0; break;
	}
	return 0;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* One clause "OP VALUE" of [s, e). */
static int parse_clause(const char *s, const char *e, enum policy_kind kind, size_t line,
			struct policy_cmp *c, struct cd_err *err)
{
	static const char *const ops[] = {">=", ">", "<=", "<", "==", "!="};
	char msg[POLICY_LINE_MAX + 128], val[POLICY_LINE_MAX];
	const char *vend;
	uint64_t parts[VER_PARTS_MAX];
	size_t i, n = 0;
	int64_t bytes;

	s = skip_ws(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	for (i = 0; i < 6; i++) /* ">=" before ">": the longer operator first */
		if (!strncmp(s, ops[i], strlen(ops[i])))
			break;
	if (i == 6 || (s[strlen(ops[i])] == '=')) {
		snprintf(msg, sizeof(msg), "'%.*s': expected an operator (>=, >, <=, <, ==, !=)",
			 (int)(e - s), s);
		return fail(err, line, msg);
	}
	c->op = (enum policy_op)i;
	s = skip_ws(s + strlen(ops[i]));
	if (s >= e)
		return fail(err, line, "a value must follow the operator");
	if ((size_t)(e - s) >= POLICY_VAL_MAX)
		return fail(err, line, "the value is too long");
	str_ncopy(c->value, sizeof(c->value), s, (size_t)(e - s));
	str_ncopy(val, sizeof(val), s, (size_t)(e - s));
	if (kind == POLICY_KIND_VERSION) {
		if (ver_parts(val, parts, &n, &vend) || *vend) {
			snprintf(msg, sizeof(msg),
				 "'%s' is not a version (dotted numbers, like 535 or 12.1)", val);
			return fail(err, line, msg);
		}
	} else if (kind == POLICY_KIND_COUNT) {
		if (str_to_u64(val, &c->num)) {
			snprintf(msg, sizeof(msg), "'%s' is not a whole number", val);
			return fail(err, line, msg);
		}
	} else if (str_parse_bytes(val, &bytes)) {
		snprintf(msg, sizeof(msg), "'%s' is not a size (80GiB, 80GB, 81920MiB, bytes)",
			 val);
		return fail(err, line, msg);
	} else
		c->num = (uint64_t)bytes;
	return 0;
}

static int parse_cmps(const char *s, enum policy_kind kind, size_t line, struct policy_rule *r,
		      struct cd_err *err)
{
	r->n_cmp = 0;
	if (!*s)
		return 0;
	for (;;) {
		const char *comma = strchr(s, ',');
		const char *e = comma ? comma : s + strlen(s);
		int rc;
		if (r->n_cmp == POLICY_CMP_MAX)
			return fail(err, line, "more than 4 comparisons");
		rc = parse_clause(s, e, kind, line, &r->cmp[r->n_cmp], err);
		if (rc)
			return rc;
		r->n_cmp++;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

/* A token of [A-Za-z0-9._+-] (file names, package names, finding ids). */
static size_t name_len(const char *s)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || (s[n] && strchr("._+-", s[n])))
		n++;
	return s[n] && s[n] != ' ' && s[n] != '\t' ? 0 : n;
}

static int parse_named(const char *rest, size_t line, struct policy_rule *r, struct cd_err *err)
{
	const char *what = r->subject == POLICY_HEADER	  ? "a header file name (cusparse.h)"
			   : r->subject == POLICY_PACKAGE ? "a package name (flash-attn)"
							  : "a finding id (driver-too-old)";
	char msg[POLICY_LINE_MAX + 128];
	size_t n = name_len(rest);
	struct pep440_specset set;
	const char *tail;

	if (!n || n >= POLICY_NAME_MAX) {
		snprintf(msg, sizeof(msg), "%s needs %s", policy_subject_name(r->subject), what);
		return fail(err, line, msg);
	}
	if (r->subject == POLICY_PACKAGE)
		pep508_normalize(rest, n, r->name, sizeof(r->name));
	else
		str_ncopy(r->name, sizeof(r->name), rest, n);
	tail = skip_ws(rest + n);
	if (r->subject != POLICY_PACKAGE) {
		if (!*tail)
			return 0;
		snprintf(msg, sizeof(msg), "'%s': %s takes one name", tail,
			 policy_subject_name(r->subject));
		return fail(err, line, msg);
	}
	str_copy(r->spec, sizeof(r->spec), tail);
	if (pep440_specset_parse(tail, strlen(tail), &set)) {
		snprintf(msg, sizeof(msg), "'%s' is not a PEP 440 version specifier (>= 2.5, < 3)",
			 tail);
		return fail(err, line, msg);
	}
	return 0;
}

static int parse_rule(const char *s, size_t line, struct policy_rule *r, struct cd_err *err)
{
	char word[32], msg[POLICY_LINE_MAX + 160];
	struct pep440_specset set;
	size_t n = 0, i;
	const char *rest;

	while (s[n] && !strchr(" \t<>=!,", s[n]))
		n++;
	str_ncopy(word, sizeof(word), s, n);
	for (i = 0; i < N_SUBJECTS; i++)
		if (n < sizeof(word) && !strcmp(word, subjects[i].name))
			break;
	if (i == N_SUBJECTS) {
		snprintf(msg, sizeof(msg),
			 "unknown requirement '%.*s' (expected driver, cuda, cuda.runtime, torch, "
			 "torch.cuda, cudnn, nccl, nvcc, python, gpu.count, gpu.cc, gpu.memory, "
			 "header, package, no-errors, no-warnings, probe or allow)",
			 (int)(n > 64 ? 64 : n), s);
		return fail(err, line, msg);
	}
	r->subject = subjects[i].subject;
	r->kind = subjects[i].kind;
	rest = skip_ws(s + n);
	if (r->subject == POLICY_HEADER || r->subject == POLICY_PACKAGE ||
	    r->subject == POLICY_ALLOW)
		return parse_named(rest, line, r, err);
	if (r->kind == POLICY_KIND_NONE) {
		if (!*rest)
			return 0;
		snprintf(msg, sizeof(msg), "'%s': %s takes nothing after it", rest, word);
		return fail(err, line, msg);
	}
	if (r->kind == POLICY_KIND_PEP440) { /* torch */
		str_copy(r->spec, sizeof(r->spec), rest);
		if (!pep440_specset_parse(rest, strlen(rest), &set))
			return 0;
		snprintf(msg, sizeof(msg),
			 "'%s' is not a PEP 440 version specifier (>= 2.3, < 2.6)", rest);
		return fail(err, line, msg);
	}
	return parse_cmps(rest, r->kind, line, r, err);
}

int policy_parse_line(const uint8_t *p, size_t n, size_t line, struct policy_rule *out,
		      struct cd_err *err)
{
	char text[POLICY_LINE_MAX];
	size_t i, len = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->line = line;
	if (n >= POLICY_LINE_MAX)
		return fail(err, line, "longer than 1023 bytes");
	for (i = 0; i < n && p[i] != '#'; i++) {
		if (p[i] == '\r' && i + 1 == n)
			break;
		if (p[i] >= 0x80 || (p[i] < 0x20 && p[i] != '\t'))
			return fail(err, line,
				    "a byte that is not printable ASCII (outside a comment)");
		text[len++] = (char)p[i];
	}
	text[len] = '\0';
	str_trim(text);
	if (!*text)
		return 0;
	str_copy(out->text, sizeof(out->text), text);
	rc = parse_rule(text, line, out, err);
	return rc ? rc : 1;
}

int policy_parse(const uint8_t *p, size_t n, struct policy_rule *rules, size_t cap, size_t *n_out,
		 struct cd_err *err)
{
	size_t pos = 0, line = 0;

	*n_out = 0;
	while (pos < n) {
		const uint8_t *nl = memchr(p + pos, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - (p + pos)) : n - pos;
		struct policy_rule tmp;
		int rc;
		line++;
		rc = policy_parse_line(p + pos, len, line, *n_out < cap ? &rules[*n_out] : &tmp,
				       err);
		if (rc < 0)
			return rc;
		if (rc == 1 && *n_out == cap)
			return err_set(err, CD_ERANGE, "line %zu: more than %zu requirements", line,
				       cap);
		*n_out += (size_t)rc;
		pos += len + (nl != NULL);
	}
	return 0;
}
