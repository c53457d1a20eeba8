/* jit_host: the compilers a JIT build runs, and ninja.
 * nvcc's host compiler is, in order: $CC (torch passes `-ccbin $CC`, both in
 * setup.py builds and in the JIT ninja file), a -ccbin / --compiler-bindir
 * in NVCC_PREPEND_FLAGS or NVCC_APPEND_FLAGS, NVCC_CCBIN (read by nvcc
 * itself), else `gcc` from PATH (nvcc's default on Linux). CUDAHOSTCXX is
 * CMake's variable; torch and nvcc ignore it, so it is only reported.
 * torch's C++ compiler (for .cpp sources and the link) is $CXX, else c++.
 * Versions come from `<compiler> -dumpfullversion -dumpversion` on the real
 * root only; under --root from the file name (gcc-13, clang++-18). */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fsutil.h"
#include "core/str.h"
#include "probe/isolate.h"
#include "probe/jit/jit.h"

/* The value after -ccbin / --compiler-bindir in a flags string. */
static const char *ccbin_flag(struct cd_facts *f, const char *flags)
{
	static const char *const opts[] = {"-ccbin", "--compiler-bindir"};
	const char *p = flags;
	size_t i;

	while (p && *p) {
		size_t len;
		while (isspace((unsigned char)*p))
			p++;
		len = strcspn(p, " \t\n");
		for (i = 0; i < 2; i++) {
			size_t ol = strlen(opts[i]);
			if (len > ol + 1 && !strncmp(p, opts[i], ol) && p[ol] == '=')
				return arena_strndup(&f->arena, p + ol + 1, len - ol - 1);
			if (len == ol && !strncmp(p, opts[i], ol)) {
				const char *v = p + len;
				while (isspace((unsigned char)*v))
					v++;
				if (*v)
					return arena_strndup(&f->arena, v, strcspn(v, " \t\n"));
			}
		}
		p += len;
	}
	return NULL;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static const char *family_of(const char *name)
{
	if (strstr(name, "clang"))
		return "clang";
	if (strstr(name, "gcc") || strstr(name, "g++") || strstr(name, "c++") ||
	    str_has_suffix(name, "cc"))
		return "gcc";
	return NULL;
}

/* "gcc-13", "x86_64-linux-gnu-g++-12", "clang++-18.1" -> "13", "12", "18.1". */
static const char *version_from_name(struct cd_facts *f, const char *name)
{
	const char *dash = strrchr(name, '-'), *p;

	if (!dash || !isdigit((unsigned char)dash[1]))
		return NULL;
	for (p = dash + 1; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return NULL;
	return arena_strdup(&f->arena, dash + 1);
}

static const char *run_version(struct cd_facts *f, const char *path, const char *flag1,
			       const char *flag2, int want_text)
{
	char a1[32], a2[32];
	char *argv[4] = {(char *)path, a1, flag2 ? a2 : NULL, NULL};
	struct iso_job j = {.argv = argv};
	const struct cd_buf *out = &j.out;
	char v[64];
	const char *res = NULL;

	str_copy(a1, sizeof(a1), flag1);
	str_copy(a2, sizeof(a2), flag2 ? flag2 : "");
	if (isolate_run(&j, 1, 5000, 16 << 10, NULL) == 0 && j.status == ISO_OK && out->p) {
		if (want_text)
			res = arena_strndup(&f->arena, out->p, out->len);
		else if (jp_compiler_version((const uint8_t *)out->p, out->len, v, sizeof(v)) == 0)
			res = arena_strdup(&f->arena, v);
	}
	iso_job_free(&j);
	return res;
}

static void identify(struct cd_facts *f, struct jit_compiler *c)
{
	char real[PATH_MAX];
	const char *rname = NULL;

	c->major = -1;
	if (!c->path)
		return;
	if (file_realpath(&f->root, c->path, real, sizeof(real)) == 0)
		rname = arena_strdup(&f->arena, base(real));
	c->family = family_of(base(c->path));
	if (rname && family_of(rname))
		c->family = family_of(rname);
	if (f->root.is_host) {
		c->version = run_version(f, c->path, "-dumpfullversion", "-dumpversion", 0);
		c->version_source = c->version ? "-dumpfullversion" : NULL;
		if (!c->family) {
			const char *t = run_version(f, c->path, "--version", NULL, 1);
			if (t && strstr(t, "clang version"))
				c->family = "clang";
			else if (t && (strstr(t, "(GCC)") || strstr(t, "Free Software Foundation")))
				c->family = "gcc";
		}
	}
	if (!c->version && (c->version = version_from_name(f, base(c->path))))
		c->version_source = "file name";
	if (!c->version && rname && (c->version = version_from_name(f, rname)))
		c->version_source = "file name";
	if (c->version) {
		int mi;
		if (jit_major_minor(c->version, &c->major, &mi) != 0) {
			/* A bare major ("13") is not MAJOR.MINOR. */
			char *end;
			long m = strtol(c->version, &end, 10);
			c->major = end != c->version && m > 0 && m < 1000 ? (int)m : -1;
		}
	}
}

/* Resolve a configured compiler command to an in-root path. */
static void resolve(struct cd_facts *f, struct cd_jit_facts *jf, struct jit_compiler *c,
		    int is_ccbin)
{
	struct stat st;
	const char *cmd = c->command;

	if (!cmd || !*cmd || strpbrk(cmd, " \t"))
		return; /* "ccache gcc" is not one program; reported by the check */
	if (cmd[0] == '/') {
		if (file_stat(&f->root, cmd, &st) != 0)
			return;
		if (S_ISDIR(st.st_mode) && is_ccbin)
			cmd = fsu_path(&f->arena, cmd, "gcc");
		if (file_is_reg(&f->root, cmd))
			c->path = cmd;
		return;
	}
	if (!strchr(cmd, '/'))
		c->path = jit_which(f, jf->env.path, cmd);
}

/* gcc-N and clang-N in the usual directories: candidates for CC. */
static void alternatives(struct cd_facts *f, struct cd_jit_facts *jf)
{
	static const char *const dirs[] = {"/usr/bin", "/usr/local/bin"};
	size_t i;

	for (i = 0; i < 2; i++) {
		DIR *d = file_opendir(&f->root, dirs[i]);
		struct dirent *e;
		int n = 0;
		while (d && (e = readdir(d)) && n++ < 8192 && jf->n_alt < JIT_ALT_MAX) {
			const char *fam = !strncmp(e->d_name, "gcc-", 4)     ? "gcc"
					  : !strncmp(e->d_name, "clang-", 6) ? "clang"
									     : NULL;
			const char *v = fam ? version_from_name(f, e->d_name) : NULL;
			char *end;
			long m;
			if (!v || strchr(v, '.'))
				continue;
			m = strtol(v, &end, 10);
			if (*end || m <= 0 || m > 100)
				continue;
			jf->alt[jf->n_alt].path = fsu_path(&f->arena, dirs[i], e->d_name);
			jf->alt[jf->n_alt].family = fam;
			jf->alt[jf->n_alt].major = (int)m;
			jf->n_alt++;
		}
		if (d)
			closedir(d);
	}
}

void jit_probe_compilers(struct cd_facts *f, struct cd_jit_facts *jf)
{
	struct jit_compiler *h = &jf->host, *x = &jf->cxx;
	const char *v;

	h->role = "nvcc host compiler";
	if (jf->env.cc && *jf->env.cc)
		h->command = jf->env.cc, h->via = "CC";
	else if ((v = ccbin_flag(f, jf->env.nvcc_prepend)))
		h->command = v, h->via = "NVCC_PREPEND_FLAGS";
	else if ((v = ccbin_flag(f, jf->env.nvcc_append)))
		h->command = v, h->via = "NVCC_APPEND_FLAGS";
	else if (jf->env.nvcc_ccbin && *jf->env.nvcc_ccbin)
		h->command = jf->env.nvcc_ccbin, h->via = "NVCC_CCBIN";
	else
		h->command = "gcc", h->via = "PATH";
	resolve(f, jf, h, 1);
	identify(f, h);

	x->role = "C++ compiler";
	if (jf->env.cxx && *jf->env.cxx)
		x->command = jf->env.cxx, x->via = "CXX";
	else
		x->command = "c++", x->via = "PATH";
	resolve(f, jf, x, 0);
	identify(f, x);
	alternatives(f, jf);

	jf->ninja.path = jit_which(f, jf->env.path, "ninja");
	if (jf->py.prefix) {
		const char *p = fsu_path(&f->arena, jf->py.prefix, "bin/ninja");
		struct stat st;
		if (file_stat(&f->root, p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			jf->ninja.env_bin = p;
	}
}
