/* df_cmd: what one simple command of a RUN does to its stage: pip / uv pip
 * installs (torch and its index, CUDA toolkit wheels, packages that compile
 * CUDA code by data/cuda_builds.tsv), conda / mamba installs (pytorch with
 * pytorch-cuda or cudatoolkit, CUDA toolkits), apt / dnf installs of NVIDIA's
 * cuda-* packages, CUDA runfiles, nvcc, setup.py builds, ldconfig and
 * library installs after it, and `export` for the rest of the RUN. pip's
 * own command line and requirement forms are read by df_pip.c. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check/dockerfile/df_int.h"
#include "core/str.h"

const char *dfc_base(const char *w)
{
	const char *s = strrchr(w, '/');

	return s ? s + 1 : w;
}

/* sudo, env, exec, nohup, time, command and `conda run -n X` in front of a
 * command; env's and the prefix assignments go into env. */
static size_t unwrap(const struct sh_cmd *cmd, struct dfenv *env, struct cd_arena *a)
{
	size_t i = 0, k;

	for (k = 0; k < cmd->n_assign; k++) {
		const char *eq = strchr(cmd->assign[k], '=');
		const char *n = arena_strndup(a, cmd->assign[k], (size_t)(eq - cmd->assign[k]));
		if (n) /* past DFENV_MAX variables an assignment is not recorded */
			(void)!dfenv_set(env, n, eq + 1);
	}
	while (i < cmd->argc) {
		const char *b = dfc_base(cmd->argv[i]);
		if (!strcmp(b, "sudo") || !strcmp(b, "exec") || !strcmp(b, "nohup") ||
		    !strcmp(b, "time") || !strcmp(b, "command")) {
			for (i++; i < cmd->argc && cmd->argv[i][0] == '-'; i++)
				;
		} else if (!strcmp(b, "env")) {
			for (i++;
			     i < cmd->argc && (strchr(cmd->argv[i], '=') || cmd->argv[i][0] == '-');
			     i++) {
				const char *eq = strchr(cmd->argv[i], '=');
				const char *n;
				if (cmd->argv[i][0] == '-' || !eq)
					continue;
				n = arena_strndup(a, cmd->argv[i], (size_t)(eq - cmd->argv[i]));
				if (n) /* past DFENV_MAX: not recorded */
					(void)!dfenv_set(env, n, eq + 1);
			}
		} else if ((!strcmp(b, "conda") || !strcmp(b, "mamba") ||
			    !strcmp(b, "micromamba")) &&
			   i + 1 < cmd->argc && !strcmp(cmd->argv[i + 1], "run")) {
			for (i += 2; i < cmd->argc && cmd->argv[i][0] == '-'; i++)
				if (!strcmp(cmd->argv[i], "-n") || !strcmp(cmd->argv[i], "-p") ||
				    !strcmp(cmd->argv[i], "--name") ||
				    !strcmp(cmd->argv[i], "--prefix"))
					i++;
		} else {
			break;
		}
	}
	return i;
}

static int env_is(const struct dfenv *env, const char *name, const char *value)
{
	size_t i, n = strlen(name);

	if (n && name[n - 1] == '*') { /* DS_BUILD_*=1: any variable of the prefix */
		for (i = 0; i < env->n; i++)
			if (!strncmp(env->v[i].name, name, n - 1) &&
			    !strcasecmp(env->v[i].value, value))
				return 1;
		return 0;
	}
	return dfenv_get(env, name) && !strcasecmp(dfenv_get(env, name), value);
}

/* One condition of data/cuda_builds.tsv (alternatives split by '|'). */
static int condition(const char *cond, const struct dfc_req *r, const struct dfenv *env,
		     const char *const *argv, size_t argc)
{
	char one[128], name[64];
	const char *p = cond;
	size_t i;

	while (*p) {
		size_t k = strcspn(p, "|");
		str_ncopy(one, sizeof(one), p, k);
		p += k + (p[k] == '|');
		if (!strcmp(one, "always"))
			return 1;
		if (!strcmp(one, "source") && r && r->source)
			return 1;
		if (!strncmp(one, "arg:", 4))
			for (i = 0; i < argc; i++)
				if (strstr(argv[i], one + 4))
					return 1;
		if (!strncmp(one, "env:", 4) || !strncmp(one, "unless-env:", 11)) {
			int unless = one[0] == 'u';
			const char *nv = one + (unless ? 11 : 4), *eq = strchr(nv, '=');
			int is;
			if (!eq)
				continue;
			str_ncopy(name, sizeof(name), nv, (size_t)(eq - nv));
			is = env_is(env, name, eq + 1);
			if (unless ? !is : is)
				return 1;
		}
	}
	return 0;
}

static int has_value(const struct dfenv *env, const char *name)
{
	const char *v = dfenv_get(env, name);

	return v && *v;
}

static void add_build(struct dfc_ctx *x, const struct cudabuild_row *row, const char *what,
		      const struct dfenv *env)
{
	struct dfc_stage *s = x->s;
	struct dfc_build *b;
	size_t i;

	for (i = 0; i < s->n_builds; i++)
		if (s->builds[i].in == x->in && s->builds[i].row == row)
			return; /* once per instruction and kind */
	if (s->n_builds == DFC_BUILD_MAX)
		return;
	b = &s->builds[s->n_builds++];
	memset(b, 0, sizeof(*b));
	b->in = x->in;
	b->row = row;
	str_copy(b->what, sizeof(b->what), what);
	b->arch_list_set = has_value(env, "TORCH_CUDA_ARCH_LIST");
	b->cuda_home_set = has_value(env, "CUDA_HOME") || has_value(env, "CUDA_PATH");
}

static void add_install(struct dfc_ctx *x, enum dfc_tk_kind kind, const char *what,
			const char *cuda, int nvcc)
{
	struct dfc_stage *s = x->s;
	struct dfc_install *t;

	if (s->n_installs == DFC_INSTALL_MAX)
		return;
	t = &s->installs[s->n_installs++];
	memset(t, 0, sizeof(*t));
	t->in = x->in;
	t->kind = kind;
	str_copy(t->what, sizeof(t->what), what);
	str_copy(t->cuda, sizeof(t->cuda), cuda ? cuda : "");
	t->nvcc = nvcc;
}

/* The argv joined, for the evidence. */
static void joined(const char *const *argv, size_t argc, char *out, size_t cap)
{
	size_t i, k = 0;

	out[0] = '\0';
	for (i = 0; i < argc && k + 1 < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? " " : "", argv[i]);
}

static void torch_pip(struct dfc_ctx *x, const struct dfc_req *r, const struct dfc_pipargs *p)
{
	struct dfc_torch *t;

	if (x->s->n_torch == DFC_TORCH_MAX)
		return;
	t = &x->s->torch[x->s->n_torch++];
	memset(t, 0, sizeof(*t));
	t->in = x->in;
	t->spec = r->text;
	str_copy(t->version, sizeof(t->version), r->version);
	str_copy(t->local, sizeof(t->local), r->local);
	t->pinned = r->pinned;
	t->index_url = p->index;
	t->extra_url = p->extra;
	t->find_links = p->find;
	if (p->index)
		dfc_url_variant(p->index, t->index_variant, sizeof(t->index_variant));
	if (p->extra)
		dfc_url_variant(p->extra, t->extra_variant, sizeof(t->extra_variant));
	if (p->find)
		dfc_url_variant(p->find, t->find_variant, sizeof(t->find_variant));
	if (r->wheel && strstr(r->text, "download.pytorch.org/whl/")) /* a wheel URL pins itself */
		t->index_url = r->text;
	t->stage = (int)x->s->st->index;
}

/* The CUDA toolkit wheels: nvidia-cuda-nvcc-cu12 and CUDA 13's cuda-toolkit[nvcc]. */
static void toolkit_wheel(struct dfc_ctx *x, const struct dfc_req *r)
{
	const char *cu = strstr(r->name, "-cu");
	char cuda[8] = "";

	if (strcmp(r->name, "cuda-toolkit") && !str_has_prefix(r->name, "nvidia-cuda-nvcc"))
		return;
	if (cu && cu[3])
		snprintf(cuda, sizeof(cuda), "%s", cu + 3);
	else if (!strcmp(r->name, "cuda-toolkit") && r->version[0])
		snprintf(cuda, sizeof(cuda), "%.*s", (int)strcspn(r->version, ".") + 2, r->version);
	if (!strcmp(r->name, "cuda-toolkit") && !strstr(r->text, "nvcc"))
		return; /* the metapackage without its nvcc extra */
	add_install(x, DFC_TK_PIP, r->text, strchr(cuda, '.') ? cuda : "", 1);
}

static void pip_install(struct dfc_ctx *x, const char *const *argv, size_t argc,
			const struct dfenv *env)
{
	struct dfc_pipargs p;
	size_t i, k, nrows;
	const struct cudabuild_row *rows = cudabuild_rows(&nrows);
	char line[192];

	dfc_pip_args(argv, argc, &p);
	joined(argv, argc, line, sizeof(line));
	for (i = 0; i < p.n_req; i++) {
		struct dfc_req r;
		int matched = 0;
		dfc_req_classify(p.req[i], &r);
		if (p.editable[i] && !r.wheel)
			r.source = 1;
		if (r.source && !x->s->source)
			x->s->source = x->in;
		/* an unpinned torch where torch is installed: pip keeps that one */
		if (!strcmp(r.name, "torch") &&
		    (r.version[0] || p.upgrade || !dfc_has_torch(x->c, x->s)))
			torch_pip(x, &r, &p);
		if (!strcmp(r.name, "deepspeed") && !x->s->jit)
			x->s->jit = x->in; /* ops not pre-built are compiled at run time */
		toolkit_wheel(x, &r);
		for (k = 0; k < nrows; k++) {
			if (rows[k].kind != CUDABUILD_PIP || strcmp(rows[k].name, r.name) ||
			    r.wheel)
				continue;
			matched = 1;
			if (condition(rows[k].condition, &r, env, argv, argc))
				add_build(x, &rows[k], line, env);
		}
		for (k = 0; !matched && r.source && k < nrows; k++)
			if (rows[k].kind == CUDABUILD_SETUP &&
			    condition(rows[k].condition, &r, env, argv, argc))
				add_build(x, &rows[k], line, env);
	}
}

/* conda install / create: pytorch with pytorch-cuda, cudatoolkit or cpuonly;
 * the CUDA toolkit packages. Channels -c nvidia/label/cuda-X.Y.Z pin them. */
static void conda_install(struct dfc_ctx *x, const char *const *argv, size_t argc)
{
	char cuda[16] = "", label[16] = "", name[64], ver[32], line[192];
	struct dfc_torch *torch = NULL;
	int cpu = 0;
	size_t i;

	joined(argv, argc, line, sizeof(line));
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *chan = strstr(a, "nvidia/label/cuda-");
		size_t nl;
		if (chan)
			snprintf(label, sizeof(label), "%.*s", (int)strcspn(chan + 18, "./") + 2,
				 chan + 18);
		if (a[0] == '-') {
			if (!strcmp(a, "-c") || !strcmp(a, "-n") || !strcmp(a, "-p") ||
			    !strcmp(a, "--channel") || !strcmp(a, "--name") ||
			    !strcmp(a, "--prefix"))
				i++;
			continue;
		}
		if (strstr(a, "::"))
			a = strstr(a, "::") + 2;
		nl = strcspn(a, "=<>! ");
		str_ncopy(name, sizeof(name), a, nl);
		a += nl;
		a += strspn(a, "=<>!");
		str_ncopy(ver, sizeof(ver), a, strcspn(a, "=*, "));
		if (strspn(ver, "0123456789.") != strlen(ver))
			ver[0] = '\0'; /* $(echo ...) and the like: not known */
		if (!strcmp(name, "pytorch") && x->s->n_torch < DFC_TORCH_MAX) {
			torch = &x->s->torch[x->s->n_torch++];
			memset(torch, 0, sizeof(*torch));
			torch->in = x->in;
			torch->spec = argv[i];
			torch->conda = 1;
			torch->stage = (int)x->s->st->index;
			str_copy(torch->version, sizeof(torch->version), ver);
			torch->pinned = ver[0] != '\0' && strchr(ver, '.') != NULL;
			if (strstr(argv[i], "cuda") && strstr(argv[i], "_cuda"))
				snprintf(cuda, sizeof(cuda), "%.*s",
					 (int)strcspn(strstr(argv[i], "_cuda") + 5, "_"),
					 strstr(argv[i], "_cuda") + 5);
			if (strstr(argv[i], "_cpu"))
				cpu = 1;
		} else if (!strcmp(name, "pytorch-cuda")) {
			str_copy(cuda, sizeof(cuda), ver);
		} else if (!strcmp(name, "cpuonly")) {
			cpu = 1;
		} else if (!strcmp(name, "cudatoolkit")) {
			if (!cuda[0])
				str_copy(cuda, sizeof(cuda), ver);
			add_install(x, DFC_TK_CONDA_RUNTIME, line, ver, 0);
		} else if (!strcmp(name, "cudatoolkit-dev") || !strcmp(name, "cuda-nvcc") ||
			   !strcmp(name, "cuda-toolkit") || !strcmp(name, "cuda")) {
			add_install(x, DFC_TK_CONDA, line, ver[0] ? ver : label, 1);
		}
	}
	if (torch) {
		char *dot = strchr(cuda, '.');
		if (dot && strchr(dot + 1, '.'))
			*strchr(dot + 1, '.') = '\0'; /* X.Y */
		str_copy(torch->conda_cuda, sizeof(torch->conda_cuda), cuda);
		torch->conda_cpu = cpu;
	}
}

/* cuda-toolkit-12-4, cuda-nvcc-12-4, cuda-12-4, nvidia-cuda-toolkit, ... */
static void apt_install(struct dfc_ctx *x, const char *const *argv, size_t argc)
{
	static const char *const nvcc_pkgs[] = {"cuda-toolkit-", "cuda-nvcc-", "cuda-compiler-",
						"cuda-minimal-build-", "cuda-"};
	static const char *const rt_pkgs[] = {"cuda-runtime-", "cuda-libraries-", "cuda-cudart-"};
	char pkg[96], cuda[16];
	size_t i, k;

	for (i = 0; i < argc; i++) {
		int nvcc = -1;
		str_ncopy(pkg, sizeof(pkg), argv[i], strcspn(argv[i], "="));
		if (!strcmp(pkg, "nvidia-cuda-toolkit")) {
			add_install(x, DFC_TK_DISTRO, pkg, "", 1);
			continue;
		}
		if (!strcmp(pkg, "cuda-toolkit") || !strcmp(pkg, "cuda")) {
			add_install(x, DFC_TK_APT, pkg, "", 1);
			continue;
		}
		for (k = 0; k < sizeof(rt_pkgs) / sizeof(rt_pkgs[0]) && nvcc < 0; k++)
			if (str_has_prefix(pkg, rt_pkgs[k]) && !strstr(pkg, "-dev")) {
				nvcc = 0;
				snprintf(cuda, sizeof(cuda), "%s", pkg + strlen(rt_pkgs[k]));
			}
		for (k = 0; k < sizeof(nvcc_pkgs) / sizeof(nvcc_pkgs[0]) && nvcc < 0; k++)
			if (str_has_prefix(pkg, nvcc_pkgs[k])) {
				/* cuda-cudart-dev-12-4 and other -dev packages: headers, no nvcc */
				nvcc = strstr(pkg, "-dev-") ? 0 : 1;
				snprintf(cuda, sizeof(cuda), "%s", pkg + strlen(nvcc_pkgs[k]));
			}
		/* "12-4" -> "12.4": only a version number counts (cuda-compat-12-4 does not) */
		if (nvcc < 0 || strlen(cuda) < 3 || strspn(cuda, "0123456789-") != strlen(cuda) ||
		    !strchr(cuda, '-'))
			continue;
		*strchr(cuda, '-') = '.';
		add_install(x, DFC_TK_APT, pkg, cuda, nvcc);
	}
}

static int is_pip(const char *const *argv, size_t argc, size_t *sub)
{
	const char *b = dfc_base(argv[0]);

	if (!strncmp(b, "pip", 3) && (!b[3] || strspn(b + 3, "0123456789.") == strlen(b + 3))) {
		*sub = 1;
		return 1;
	}
	if (!strncmp(b, "python", 6) && argc >= 3 && !strcmp(argv[1], "-m") &&
	    (!strcmp(argv[2], "pip") || !strcmp(argv[2], "uv"))) {
		*sub = !strcmp(argv[2], "uv") && argc > 3 && !strcmp(argv[3], "pip") ? 4 : 3;
		return 1;
	}
	if (!strcmp(b, "uv") && argc >= 2 && !strcmp(argv[1], "pip")) {
		*sub = 2;
		return 1;
	}
	return 0;
}

/* python setup.py install / develop / build_ext / bdist_wheel, pip wheel ., python -m build */
static int setup_build(const char *const *argv, size_t argc)
{
	size_t i;

	if (strncmp(dfc_base(argv[0]), "python", 6))
		return 0;
	for (i = 1; i < argc; i++)
		if (str_has_suffix(argv[i], "setup.py"))
			return 1;
	return argc >= 3 && !strcmp(argv[1], "-m") && !strcmp(argv[2], "build");
}

static void library_install(struct dfc_ctx *x, const char *const *argv, size_t argc)
{
	const char *b = dfc_base(argv[0]);
	size_t i;

	if (!x->s->ldconfig || x->s->libs_after)
		return;
	if (((!strcmp(b, "make") || !strcmp(b, "ninja")) && argc >= 2 &&
	     !strcmp(argv[argc - 1], "install")) ||
	    (!strcmp(b, "cmake") && argc >= 2 && !strcmp(argv[1], "--install"))) {
		for (i = 1; i < argc; i++)
			if (strstr(argv[i], "PREFIX=") || !strcmp(argv[i], "--prefix"))
				return; /* installed elsewhere than /usr/local */
		x->s->libs_after = x->in;
		joined(argv, argc, x->s->libs_what, sizeof(x->s->libs_what));
		return;
	}
	if ((!strcmp(b, "cp") || !strcmp(b, "mv") || !strcmp(b, "install")) && argc >= 3 &&
	    str_has_prefix(argv[argc - 1], "/usr/local/lib") && !strstr(argv[argc - 1], "python"))
		for (i = 1; i + 1 < argc; i++)
			if (strstr(argv[i], ".so")) {
				x->s->libs_after = x->in;
				joined(argv, argc, x->s->libs_what, sizeof(x->s->libs_what));
				return;
			}
}

/* sh cuda_12.4.1_550.54.15_linux.run --toolkit, ./cuda_11.8.0_...run */
static void runfile(struct dfc_ctx *x, const char *const *argv, size_t argc)
{
	size_t i;
	char cuda[16];

	for (i = 0; i < argc && i < 2; i++) {
		const char *b = dfc_base(argv[i]);
		if (!str_has_prefix(b, "cuda_") || !str_has_suffix(b, ".run"))
			continue;
		snprintf(cuda, sizeof(cuda), "%.*s", (int)strcspn(b + 5, "_"), b + 5);
		if (strchr(cuda, '.') && strchr(strchr(cuda, '.') + 1, '.'))
			*strchr(strchr(cuda, '.') + 1, '.') = '\0';
		add_install(x, DFC_TK_RUNFILE, b, cuda, 1);
		return;
	}
}

/* $NAME and ${NAME} of the RUN's own variables (VERSION=torch==2.3.1; pip
 * install $VERSION), as the shell would replace them; others stay as written. */
static const char *shell_vars(struct cd_arena *a, const char *w, const struct dfenv *env)
{
	char out[1024], name[64];
	size_t k = 0, n;
	const char *p = w, *v;

	if (!strchr(w, '$'))
		return w;
	while (*p && k + 1 < sizeof(out)) {
		int brace = p[0] == '$' && p[1] == '{';
		const char *s = p + (brace ? 2 : 1);
		if (p[0] != '$') {
			out[k++] = *p++;
			continue;
		}
		n = 0;
		while ((s[n] == '_' || (s[n] >= 'A' && s[n] <= 'Z') ||
			(s[n] >= 'a' && s[n] <= 'z') || (n && s[n] >= '0' && s[n] <= '9')) &&
		       n + 1 < sizeof(name))
			n++;
		if (!n || (brace && s[n] != '}')) {
			out[k++] = *p++;
			continue;
		}
		str_ncopy(name, sizeof(name), s, n);
		if (!(v = dfenv_get(env, name))) {
			out[k++] = *p++;
			continue;
		}
		k += str_copy(out + k, sizeof(out) - k, v);
		if (k >= sizeof(out))
			return w;
		p = s + n + brace;
	}
	out[k] = '\0';
	return arena_strdup(a, out);
}

int dfc_command(struct dfc_ctx *x, const struct sh_cmd *cmd)
{
	struct dfenv *env = arena_alloc(x->c->a, sizeof(*env));
	const char *const *argv;
	size_t i, argc, sub, nrows, k;
	const struct cudabuild_row *rows = cudabuild_rows(&nrows);
	const char *b;
	char line[192];

	if (!env)
		return CD_ENOMEM;
	*env = *x->env;
	i = unwrap(cmd, env, x->c->a);
	if (i >= cmd->argc) {
		/* A bare A=B lasts for the rest of the RUN; after || it is the fallback
		 * of `test && A=x || A=y`, read as not taken. */
		if (cmd->after != '|' || !cmd->n_assign)
			*x->env = *env;
		return 0;
	}
	argc = cmd->argc - i;
	{
		const char **w = arena_calloc(x->c->a, argc, sizeof(*w));
		size_t j;
		if (!w)
			return CD_ENOMEM;
		for (j = 0; j < argc; j++)
			w[j] = shell_vars(x->c->a, cmd->argv[i + j], env);
		argv = w;
	}
	b = dfc_base(argv[0]);
	if (!strcmp(b, "export")) {
		for (k = 1; k < argc; k++) {
			const char *eq = strchr(argv[k], '=');
			const char *n =
				eq ? arena_strndup(x->c->a, argv[k], (size_t)(eq - argv[k])) : NULL;
			if (n) /* past DFENV_MAX: not recorded */
				(void)!dfenv_set(x->env, n, eq + 1);
		}
		return 0;
	}
	if (is_pip(argv, argc, &sub) && sub < argc && !strcmp(argv[sub], "install")) {
		pip_install(x, argv + sub + 1, argc - sub - 1, env);
		return 0;
	}
	if ((!strcmp(b, "conda") || !strcmp(b, "mamba") || !strcmp(b, "micromamba")) && argc >= 2 &&
	    (!strcmp(argv[1], "install") || !strcmp(argv[1], "create"))) {
		conda_install(x, argv + 2, argc - 2);
		return 0;
	}
	if ((!strcmp(b, "apt-get") || !strcmp(b, "apt") || !strcmp(b, "yum") || !strcmp(b, "dnf") ||
	     !strcmp(b, "microdnf")) &&
	    argc >= 2) {
		for (k = 1; k < argc && strcmp(argv[k], "install"); k++)
			;
		if (k < argc)
			apt_install(x, argv + k + 1, argc - k - 1);
		return 0;
	}
	if (!strcmp(b, "ldconfig")) {
		x->s->ldconfig = x->in;
		x->s->libs_after = NULL;
		return 0;
	}
	runfile(x, argv, argc);
	library_install(x, argv, argc);
	if (!x->s->source && (setup_build(argv, argc) || !strcmp(b, "make") ||
			      !strcmp(b, "cmake") || !strcmp(b, "ninja")))
		x->s->source = x->in;
	joined(argv, argc, line, sizeof(line));
	for (k = 0; k < nrows; k++) {
		const struct cudabuild_row *r = &rows[k];
		if (r->kind == CUDABUILD_COMMAND && !strcmp(r->name, b) && argc > 1 &&
		    strcmp(argv[1], "--version") && strcmp(argv[1], "-V") &&
		    condition(r->condition, NULL, env, argv, argc))
			add_build(x, r, line, env);
		if (r->kind == CUDABUILD_SETUP && setup_build(argv, argc) &&
		    condition(r->condition, NULL, env, argv, argc))
			add_build(x, r, line, env);
	}
	return 0;
}
