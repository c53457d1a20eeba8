/* df_pip: pip's command line as pip reads it (pip install's options, the
 * ones that take a value, --index-url / --extra-index-url / --find-links,
 * -e) and each requirement's form (a name with specifiers, name @ URL, a
 * wheel or sdist URL, a VCS URL, a local path), for df_cmd.c; and the CUDA
 * variant of a download.pytorch.org index. Nothing allocates but a PEP 508
 * parse (freed here); a requirement pip would refuse is a name at best. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/dockerfile/df_int.h"
#include "core/str.h"

void dfc_url_variant(const char *url, char *out, size_t cap)
{
	const char *p = strstr(url, "download.pytorch.org/whl/");
	size_t k;

	out[0] = '\0';
	if (!p)
		return;
	p += strlen("download.pytorch.org/whl/");
	if (!strncmp(p, "nightly/", 8) || !strncmp(p, "test/", 5))
		p = strchr(p, '/') + 1;
	k = strcspn(p, "/");
	if ((k >= 4 && !strncmp(p, "cu", 2) && strspn(p + 2, "0123456789") == k - 2) ||
	    (k == 3 && !strncmp(p, "cpu", 3)) || !strncmp(p, "rocm", 4) || !strncmp(p, "xpu", 3))
		str_ncopy(out, cap, p, k);
}

/* "%2B" in a wheel URL is "+". */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '%' && s[1] == '2' && (s[2] == 'B' || s[2] == 'b')) {
			*d = '+';
			s += 2;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

static void version_parts(const char *v, struct dfc_req *r)
{
	const char *plus = strchr(v, '+');

	str_ncopy(r->version, sizeof(r->version), v, plus ? (size_t)(plus - v) : strlen(v));
	if (plus)
		str_copy(r->local, sizeof(r->local), plus + 1);
}

/* A requirement as pip reads it: a name with specifiers, name @ URL, a wheel
 * or sdist URL, a VCS URL, or a local path. */
void dfc_req_classify(const char *text, struct dfc_req *r)
{
	struct pep508_req *pr;
	struct cd_err e = {0};
	char file[256];
	const char *b;

	memset(r, 0, sizeof(*r));
	r->text = text;
	if (strstr(text, "://") || !strncmp(text, "git+", 4) || text[0] == '.' || text[0] == '/') {
		const char *egg = strstr(text, "#egg=");
		str_copy(file, sizeof(file), egg ? egg + 5 : dfc_base(text));
		file[strcspn(file, "@#?&")] = '\0';
		unescape(file);
		r->wheel = str_has_suffix(file, ".whl");
		r->source = !r->wheel;
		if (str_has_suffix(file, ".git"))
			file[strlen(file) - 4] = '\0';
		if (r->wheel || str_has_suffix(file, ".tar.gz") || str_has_suffix(file, ".zip")) {
			char *dash = strchr(file, '-');
			if (dash) {
				char *d2 = strchr(dash + 1, '-');
				*dash = '\0';
				if (r->wheel && d2) {
					*d2 = '\0';
					version_parts(dash + 1, r);
					r->pinned = 1;
				}
			}
		}
		if (!strcmp(file, ".") || !file[0])
			return;
		pep508_normalize(file, strlen(file), r->name, sizeof(r->name));
		return;
	}
	pr = calloc(1, sizeof(*pr));
	if (pr && pep508_parse(text, strlen(text), pr, &e) == 0) {
		str_copy(r->name, sizeof(r->name), pr->key);
		r->source = pr->has_url && !strstr(text, ".whl");
		r->wheel = pr->has_url && strstr(text, ".whl");
		if (pr->spec.n == 1 && (pr->spec.specs[0].op == PEP440_OP_EQ ||
					pr->spec.specs[0].op == PEP440_OP_ARBITRARY)) {
			version_parts(pr->spec.specs[0].text, r);
			r->pinned = !pr->spec.specs[0].wildcard;
			if (!r->pinned) /* ==2.6.0.*: the release is known, not the build */
				r->version[strcspn(r->version, "*")] = '\0';
			while (r->version[0] && r->version[strlen(r->version) - 1] == '.')
				r->version[strlen(r->version) - 1] = '\0';
		}
	} else {
		/* torch==${TORCH} left unexpanded: the name is still known */
		b = text + strcspn(text, "=<>!~[;@ (");
		pep508_normalize(text, (size_t)(b - text), r->name, sizeof(r->name));
	}
	free(pr);
}

static const char *opt_value(const char *const *argv, size_t argc, size_t *i, const char *lng,
			     const char *shrt)
{
	size_t n = strlen(lng);

	if (!strncmp(argv[*i], lng, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (!strcmp(argv[*i], lng) || (shrt && !strcmp(argv[*i], shrt)))
		return *i + 1 < argc ? argv[++*i] : NULL;
	if (shrt && !strncmp(argv[*i], shrt, 2) && argv[*i][2] && shrt[1] != '-')
		return argv[*i] + 2; /* -ihttps://... */
	return NULL;
}

/* Options of pip install that take a value (their value is not a requirement). */
static int takes_value(const char *a)
{
	static const char *const v[] = {"-r",
					"--requirement",
					"-c",
					"--constraint",
					"-t",
					"--target",
					"--prefix",
					"--root",
					"--src",
					"--upgrade-strategy",
					"--progress-bar",
					"--platform",
					"--python-version",
					"--implementation",
					"--abi",
					"-C",
					"--config-settings",
					"--global-option",
					"--install-option",
					"--no-binary",
					"--only-binary",
					"--cache-dir",
					"--log",
					"--trusted-host",
					"--timeout",
					"--retries",
					"--proxy",
					"--cert",
					"--client-cert",
					"--exists-action",
					"--report",
					"--root-user-action",
					"--python",
					"-p"};
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(a, v[i]))
			return 1;
	return 0;
}

void dfc_pip_args(const char *const *argv, size_t argc, struct dfc_pipargs *p)
{
	size_t i;
	const char *v;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < argc; i++) {
		if ((v = opt_value(argv, argc, &i, "--index-url", "-i")))
			p->index = v;
		else if ((v = opt_value(argv, argc, &i, "--extra-index-url", NULL)))
			p->extra = p->extra ? p->extra : v;
		else if ((v = opt_value(argv, argc, &i, "--find-links", "-f")))
			p->find = v;
		else if ((v = opt_value(argv, argc, &i, "--editable", "-e"))) {
			if (p->n_req < DFC_PIP_REQS_MAX) {
				p->editable[p->n_req] = 1;
				p->req[p->n_req++] = v;
			}
		} else if (argv[i][0] == '-') {
			if (!strcmp(argv[i], "-U") || !strcmp(argv[i], "--upgrade") ||
			    !strcmp(argv[i], "--force-reinstall") || !strcmp(argv[i], "-I") ||
			    !strcmp(argv[i], "--ignore-installed"))
				p->upgrade = 1;
			if (takes_value(argv[i]))
				i++;
		} else if (p->n_req < DFC_PIP_REQS_MAX) {
			p->req[p->n_req++] = argv[i];
		}
	}
}
