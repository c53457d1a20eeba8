/* Unit tests for src/probe/ldresolve*.c: a fake root (a temp directory)
 * holding ELF files written by elfgen.h and a hand-built ld.so.cache, and
 * the resolver run over it with chosen environments. Each test names the
 * loader rule it pins down. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/arena.h"
#include "format/ldcache.h"
#include "probe/loader/ldresolve.h"
#include "elfgen.h"

static char root_dir[] = "/tmp/cd-ldr-XXXXXX";

static void write_file(const char *path, const void *p, size_t n)
{
	char full[1024], *slash;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root_dir, path);
	for (slash = strchr(full + strlen(root_dir) + 1, '/'); slash;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0755);
		*slash = '/';
	}
	f = fopen(full, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

/* A library at path; the strings are SONAME, then up to 3 needs, NULL-ended. */
static void lib(const char *path, int is64, uint16_t machine, const char *rpath,
		const char *runpath, uint64_t flags_1, const char *soname, ...)
{
	static uint8_t b[4096];
	struct eg_spec s = {0};
	va_list ap;
	const char *n;
	int i = 0;

	s.is64 = is64;
	s.machine = machine;
	s.rpath = rpath;
	s.runpath = runpath;
	s.flags_1 = flags_1;
	s.soname = soname;
	va_start(ap, soname);
	while ((n = va_arg(ap, const char *)) != NULL && i < 7)
		s.needed[i++] = n;
	va_end(ap);
	write_file(path, b, eg_build(&s, b, sizeof(b)));
}

/* /etc/ld.so.cache (new format) with key -> value pairs for x86-64. */
static void cache(const char *const *kv, uint32_t n)
{
	static uint8_t c[4096];
	size_t str = 48 + (size_t)n * 24, i, k;

	memset(c, 0, sizeof(c));
	memcpy(c, LDC_MAGIC_NEW, 20);
	c[20] = (uint8_t)n;
	c[28] = 2;
	for (i = 0; i < n; i++) {
		k = 48 + i * 24;
		c[k] = 0x03;
		c[k + 1] = 0x03;
		c[k + 4] = (uint8_t)str;
		c[k + 5] = (uint8_t)(str >> 8);
		memcpy(c + str, kv[2 * i], strlen(kv[2 * i]) + 1);
		str += strlen(kv[2 * i]) + 1;
		c[k + 8] = (uint8_t)str;
		c[k + 9] = (uint8_t)(str >> 8);
		memcpy(c + str, kv[2 * i + 1], strlen(kv[2 * i + 1]) + 1);
		str += strlen(kv[2 * i + 1]) + 1;
	}
	write_file("/etc/ld.so.cache", c, str);
}

static int setup(void **state)
{
	static const char *const kv[] = {
		"libcached.so.1", "/opt/cached/libcached.so.1",
		"libsys.so.1",	  "/usr/lib/x86_64-linux-gnu/libsys.so.1",
		"libpre.so",	  "/opt/cached/libpre.so",
	};

	(void)state;
	if (!mkdtemp(root_dir))
		return -1;
	cache(kv, 3);
	lib("/opt/cached/libcached.so.1", 1, 0, NULL, NULL, 0, "libcached.so.1", NULL);
	lib("/opt/cached/libpre.so", 1, 0, NULL, NULL, 0, "libpre.so", NULL);
	lib("/usr/lib/x86_64-linux-gnu/libsys.so.1", 1, 0, NULL, NULL, 0, "libsys.so.1", NULL);
	lib("/usr/lib/x86_64-linux-gnu/libdefault.so.1", 1, 0, NULL, NULL, 0, "libdefault.so.1",
	    NULL);
	lib("/app/lib/liba.so", 1, 0, NULL, NULL, 0, "liba.so", "libb.so", NULL);
	lib("/app/lib/libb.so", 1, 0, NULL, NULL, 0, "libb.so", "liba.so", NULL); /* a loop */
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root_dir);
	return system(cmd) == 0 ? 0 : -1;
}

struct run {
	struct cd_root root;
	struct cd_arena a;
	struct ldr_session s;
};

/* exec: main_path is a program started by execve (ldr_load_exec), else
 * an object given to ld.so (ldr_load_main). */
static void start_as(struct run *r, const char *main_path, const struct ldr_config *cfg, int exec)
{
	struct ldr_config none = {0};
	struct cd_err err = {0};

	assert_int_equal(root_init(&r->root, root_dir, NULL), 0);
	arena_init(&r->a);
	none.no_etc_preload = 1;
	ldr_init(&r->s, &r->root, cfg ? cfg : &none, &r->a);
	if (exec)
		assert_int_equal(ldr_load_exec(&r->s, main_path, &err), 0);
	else
		assert_int_equal(ldr_load_main(&r->s, main_path, &err), 0);
}

static void start(struct run *r, const char *main_path, const struct ldr_config *cfg)
{
	start_as(r, main_path, cfg, 0);
}

/* A symbolic link at path (in the root) to target, its directories made. */
static void link_to(const char *path, const char *target)
{
	char keep[1024], full[1024];

	snprintf(keep, sizeof(keep), "%.*s/.keep", (int)(strrchr(path, '/') - path), path);
	write_file(keep, "", 0);
	snprintf(full, sizeof(full), "%s%s", root_dir, path);
	unlink(full);
	assert_int_equal(symlink(target, full), 0);
}

static void finish(struct run *r)
{
	ldr_free(&r->s);
	arena_free(&r->a);
}

static const struct ldr_need *need(const struct run *r, const char *name, int nth)
{
	size_t i;

	for (i = 0; i < r->s.n_needs; i++)
		if (!strcmp(r->s.needs[i].name, name) && nth-- == 0)
			return &r->s.needs[i];
	fail_msg("no need %s", name);
	return NULL;
}

static void expect(const struct run *r, const char *name, enum ldr_rule rule, const char *path)
{
	const struct ldr_need *n = need(r, name, 0);

	assert_string_equal(ldr_rule_name(n->rule) ? ldr_rule_name(n->rule) : "none",
			    ldr_rule_name(rule) ? ldr_rule_name(rule) : "none");
	if (path)
		assert_string_equal(n->path, path);
	else
		assert_null(n->path);
}

/* Every rule once: inherited RPATH, cache, default dirs, not found. */
static void rules(void **state)
{
	struct run r;

	(void)state;
	lib("/app/bin/main.so", 1, 0, "$ORIGIN/../lib", NULL, 0, NULL, "liba.so", "libcached.so.1",
	    "libsys.so.1", "libdefault.so.1", "libmissing.so", NULL);
	start(&r, "/app/bin/main.so", NULL);
	assert_true(r.s.cache_ok);
	assert_string_equal(r.s.plat.lib, "lib/x86_64-linux-gnu");
	expect(&r, "liba.so", LDR_RULE_RPATH, "/app/bin/../lib/liba.so");
	expect(&r, "libb.so", LDR_RULE_RPATH, "/app/bin/../lib/libb.so");
	assert_int_equal(need(&r, "libb.so", 0)->tag_from, r.s.main);
	expect(&r, "libcached.so.1", LDR_RULE_LD_SO_CACHE, "/opt/cached/libcached.so.1");
	expect(&r, "libsys.so.1", LDR_RULE_LD_SO_CACHE, "/usr/lib/x86_64-linux-gnu/libsys.so.1");
	expect(&r, "libdefault.so.1", LDR_RULE_DEFAULT,
	       "/usr/lib/x86_64-linux-gnu/libdefault.so.1");
	expect(&r, "libmissing.so", LDR_RULE_NONE, NULL);
	assert_non_null(strstr(need(&r, "libmissing.so", 0)->error, "No such file"));
	/* libb needs liba again: answered by the loaded object (no endless loop). */
	assert_int_equal(need(&r, "liba.so", 1)->rule, LDR_RULE_LOADED);
	finish(&r);
}

/* DF_1_NODEFLIB: cache entries inside default dirs and the dirs themselves are off. */
static void nodeflib(void **state)
{
	struct run r;

	(void)state;
	lib("/app/bin/ndl.so", 1, 0, NULL, NULL, 0x800, NULL, "libcached.so.1", "libsys.so.1",
	    "libdefault.so.1", NULL);
	start(&r, "/app/bin/ndl.so", NULL);
	expect(&r, "libcached.so.1", LDR_RULE_LD_SO_CACHE, "/opt/cached/libcached.so.1");
	expect(&r, "libsys.so.1", LDR_RULE_NONE, NULL);
	expect(&r, "libdefault.so.1", LDR_RULE_NONE, NULL);
	finish(&r);
}

/* RUNPATH serves direct needs only; LD_LIBRARY_PATH comes before it. */
static void runpath(void **state)
{
	struct ldr_config cfg = {0};
	struct run r;

	(void)state;
	lib("/app/bin/rp.so", 1, 0, "/ignored", "$ORIGIN/../lib", 0, NULL, "liba.so", NULL);
	start(&r, "/app/bin/rp.so", NULL);
	expect(&r, "liba.so", LDR_RULE_RUNPATH, "/app/bin/../lib/liba.so");
	expect(&r, "libb.so", LDR_RULE_NONE, NULL);
	assert_null(r.s.objs[r.s.main].rpath); /* RPATH ignored next to RUNPATH */
	assert_string_equal(r.s.objs[r.s.main].rpath_tag, "/ignored");
	finish(&r);
	/* LD_LIBRARY_PATH with $ORIGIN (of the program), ';' and an empty item. */
	lib("/app/other/liba.so", 1, 0, NULL, NULL, 0, "liba.so", NULL);
	cfg.no_etc_preload = 1;
	cfg.ld_library_path = "/nowhere;$ORIGIN/../other::$ORIGIN/../lib/";
	start(&r, "/app/bin/rp.so", &cfg);
	assert_int_equal(r.s.n_llp, 4);
	assert_string_equal(r.s.llp[2], "");
	assert_string_equal(r.s.llp[3], "/app/bin/../lib");
	expect(&r, "liba.so", LDR_RULE_LD_LIBRARY_PATH, "/app/bin/../other/liba.so");
	finish(&r);
}

/* Impostors: other class skipped (error names it), other machine skipped,
 * a file that is not ELF stops the search as glibc's open_verify does. */
static void impostors(void **state)
{
	static const char junk[] =
		"this is not an ELF file, but it is long enough (64 bytes or more) "
		"to be read as a header";
	struct run r;

	(void)state;
	lib("/imp/a/libimp.so", 0, 3, NULL, NULL, 0, "libimp.so", NULL);   /* ELF32 i386 */
	lib("/imp/b/libimp.so", 1, 183, NULL, NULL, 0, "libimp.so", NULL); /* AArch64 */
	lib("/imp/c/libimp.so", 1, 0, NULL, NULL, 0, "libimp.so", NULL);
	lib("/imp/main1.so", 1, 0, "/imp/a:/imp/b:/imp/c", NULL, 0, NULL, "libimp.so", NULL);
	start(&r, "/imp/main1.so", NULL);
	expect(&r, "libimp.so", LDR_RULE_RPATH, "/imp/c/libimp.so");
	finish(&r);
	lib("/imp/main2.so", 1, 0, "/imp/a:/imp/b", NULL, 0, NULL, "libimp.so", NULL);
	start(&r, "/imp/main2.so", NULL);
	expect(&r, "libimp.so", LDR_RULE_NONE, NULL);
	assert_string_equal(need(&r, "libimp.so", 0)->error, "wrong ELF class: ELFCLASS32");
	finish(&r);
	write_file("/imp/d/libimp.so", junk, sizeof(junk));
	lib("/imp/main3.so", 1, 0, "/imp/d:/imp/c", NULL, 0, NULL, "libimp.so", NULL);
	start(&r, "/imp/main3.so", NULL);
	expect(&r, "libimp.so", LDR_RULE_NONE, NULL);
	assert_string_equal(need(&r, "libimp.so", 0)->error, "invalid ELF header");
	finish(&r);
}

/* $ORIGIN / $LIB / $PLATFORM, braces, look-alikes and tokens without a value. */
static void expansion(void **state)
{
	struct run r;
	char *x;

	(void)state;
	lib("/app/bin/e.so", 1, 0, NULL, NULL, 0, NULL, NULL);
	start(&r, "/app/bin/e.so", NULL);
	x = ldr_expand(&r.s, "$ORIGIN/${LIB}/x/$PLATFORM", "/o");
	assert_string_equal(x, "/o/lib/x86_64-linux-gnu/x/x86_64");
	assert_string_equal(ldr_expand(&r.s, "$ORIGINAL:${ORIGIN:$FOO", "/o"),
			    "$ORIGINAL:${ORIGIN:$FOO");
	assert_string_equal(ldr_expand(&r.s, "${ORIGIN}$ORIGIN_x$", "/o"), "/o$ORIGIN_x$");
	assert_null(ldr_expand(&r.s, "$ORIGIN/x", NULL));
	r.s.plat.platform = NULL;
	assert_null(ldr_expand(&r.s, "/a/$PLATFORM", "/o"));
	finish(&r);
}

/* A program started through a symbolic link: $ORIGIN is where the link
 * points when it is started by execve (ldr_load_exec), the link's directory
 * otherwise (ld.so FILE, glibc's ldd). */
static void origin_of_link(void **state)
{
	struct ldr_config cfg = {0};
	char link[1024];
	struct run r;

	(void)state;
	lib("/real/bin/prog", 1, 0, "$ORIGIN/../lib", NULL, 0, NULL, "liborg.so", NULL);
	lib("/real/lib/liborg.so", 1, 0, NULL, NULL, 0, "liborg.so", NULL);
	write_file("/venv/bin/.keep", "", 0);
	snprintf(link, sizeof(link), "%s/venv/bin/prog", root_dir);
	assert_int_equal(symlink("/real/bin/prog", link), 0);
	cfg.no_etc_preload = 1;
	start(&r, "/venv/bin/prog", &cfg);
	expect(&r, "liborg.so", LDR_RULE_NONE, NULL);
	finish(&r);
	start_as(&r, "/venv/bin/prog", &cfg, 1);
	expect(&r, "liborg.so", LDR_RULE_RPATH, "/real/bin/../lib/liborg.so");
	finish(&r);
}

/* A `cp -rs` copy of a tree (real directories, every file a link into the
 * original) whose lib/ lacks one library: $ORIGIN of each object is the
 * directory it was opened in, so its RPATH stays in the copy and the missing
 * library is not found, though the original tree beside it has it; with the
 * library linked into the copy too, everything resolves inside the copy.
 * The same whether the top object is the one given to ld.so (ldr_load_main)
 * or opened by path from a program (ldr_dlopen, as Python imports torch). */
static void symlinked_copy(void **state)
{
	static const char *const files[] = {"/top.so", "/lib/libmid.so", "/lib/libleaf.so"};
	char target[256], path[256];
	struct run r;
	struct cd_err err = {0};
	size_t i;
	int obj, pass;

	(void)state;
	lib("/orig/t/top.so", 1, 0, "$ORIGIN/lib", NULL, 0, "top.so", "libmid.so", NULL);
	lib("/orig/t/lib/libmid.so", 1, 0, "$ORIGIN", NULL, 0, "libmid.so", "libleaf.so", NULL);
	lib("/orig/t/lib/libleaf.so", 1, 0, NULL, NULL, 0, "libleaf.so", NULL);
	lib("/cp/bin/prog", 1, 0, NULL, NULL, 0, NULL, NULL);
	for (i = 0; i < 2; i++) {
		snprintf(target, sizeof(target), "/orig/t%s", files[i]);
		snprintf(path, sizeof(path), "/cp/t%s", files[i]);
		link_to(path, target);
	}
	for (pass = 0; pass < 2; pass++) {
		start(&r, "/cp/t/top.so", NULL);
		assert_string_equal(r.s.objs[r.s.main].origin, "/cp/t");
		expect(&r, "libmid.so", LDR_RULE_RPATH, "/cp/t/lib/libmid.so");
		assert_string_equal(r.s.objs[need(&r, "libmid.so", 0)->obj].origin, "/cp/t/lib");
		if (pass)
			expect(&r, "libleaf.so", LDR_RULE_RPATH, "/cp/t/lib/libleaf.so");
		else
			expect(&r, "libleaf.so", LDR_RULE_NONE, NULL);
		finish(&r);
		start_as(&r, "/cp/bin/prog", NULL, 1);
		assert_int_equal(ldr_dlopen(&r.s, r.s.main, "/cp/t/top.so", &obj, &err), 0);
		assert_string_equal(r.s.objs[obj].path, "/cp/t/top.so");
		expect(&r, "libmid.so", LDR_RULE_RPATH, "/cp/t/lib/libmid.so");
		if (pass)
			expect(&r, "libleaf.so", LDR_RULE_RPATH, "/cp/t/lib/libleaf.so");
		else
			expect(&r, "libleaf.so", LDR_RULE_NONE, NULL);
		finish(&r);
		link_to("/cp/t/lib/libleaf.so", "/orig/t/lib/libleaf.so");
	}
}

/* The requester's own tags, searched as ldr_search does and loading
 * nothing: RUNPATH alone when the requester has one (its loaders' RPATH is
 * then not used), else the RPATH of the requester, its loaders and the
 * program; a candidate of the other class is passed over. */
static void tag_lookups(void **state)
{
	struct run r;
	size_t objs, needs;
	int mid, leaf, from;

	(void)state;
	lib("/tg/bin/prog", 1, 0, "/tg/exe", NULL, 0, NULL, "libmid.so", NULL);
	lib("/tg/exe/libmid.so", 1, 0, "$ORIGIN/../chain", NULL, 0, "libmid.so", "libleaf.so",
	    NULL);
	lib("/tg/chain/libleaf.so", 1, 0, "/tg/chain", "$ORIGIN/../own", 0, "libleaf.so", NULL);
	lib("/tg/exe/libx.so", 1, 0, NULL, NULL, 0, "libx.so", NULL);
	lib("/tg/chain/libz.so", 1, 0, NULL, NULL, 0, "libz.so", NULL);
	lib("/tg/own/liby.so", 1, 0, NULL, NULL, 0, "liby.so", NULL);
	lib("/tg/own/libw.so", 0, 3, NULL, NULL, 0, "libw.so", NULL); /* ELF32 i386 */
	start(&r, "/tg/bin/prog", NULL);
	mid = need(&r, "libmid.so", 0)->obj;
	leaf = need(&r, "libleaf.so", 0)->obj;
	assert_true(mid >= 0 && leaf >= 0);
	objs = r.s.n_objs;
	needs = r.s.n_needs;
	assert_string_equal(ldr_find_by_tags(&r.s, leaf, "liby.so", &from),
			    "/tg/exe/../chain/../own/liby.so");
	assert_int_equal(from, leaf);
	assert_null(ldr_find_by_tags(&r.s, leaf, "libz.so", &from)); /* RUNPATH: no RPATH */
	assert_int_equal(from, -1);
	assert_string_equal(ldr_find_by_tags(&r.s, mid, "libz.so", &from),
			    "/tg/exe/../chain/libz.so");
	assert_int_equal(from, mid);
	assert_string_equal(ldr_find_by_tags(&r.s, mid, "libx.so", &from), "/tg/exe/libx.so");
	assert_int_equal(from, r.s.main);
	assert_null(ldr_find_by_tags(&r.s, leaf, "libw.so", &from));
	assert_null(ldr_find_by_tags(&r.s, mid, "/tg/exe/libx.so", &from));
	assert_null(ldr_find_by_tags(&r.s, 9999, "libx.so", &from));
	assert_null(ldr_find_in_tags(&r.s, mid, "libx.so")); /* its own RPATH only */
	assert_string_equal(ldr_find_in_tags(&r.s, mid, "libz.so"), "/tg/exe/../chain/libz.so");
	assert_string_equal(ldr_find_in_tags(&r.s, leaf, "liby.so"),
			    "/tg/exe/../chain/../own/liby.so");
	assert_null(ldr_find_in_tags(&r.s, leaf, "libz.so"));
	assert_int_equal(r.s.n_objs, objs);
	assert_int_equal(r.s.n_needs, needs);
	finish(&r);
}

/* LD_PRELOAD and /etc/ld.so.preload take SONAMEs first; dlopen()ed objects
 * do not inherit their caller's RPATH for their own needs. */
static void preload_and_dlopen(void **state)
{
	static const char etc[] = "  /opt/cached/libcached.so.1\n";
	struct ldr_config cfg = {0};
	struct run r;
	struct cd_err err = {0};
	int obj;

	(void)state;
	lib("/pl/x/libpre.so", 1, 0, NULL, NULL, 0, "libpre.so", NULL);
	lib("/pl/main.so", 1, 0, "/pl/x", NULL, 0, NULL, "libpre.so", NULL);
	cfg.ld_preload = "libpre.so: /nonexistent/libnope.so";
	write_file("/etc/ld.so.preload", etc, sizeof(etc) - 1);
	start(&r, "/pl/main.so", &cfg);
	expect(&r, "libpre.so", LDR_RULE_PRELOAD, "/pl/x/libpre.so"); /* via main's RPATH */
	assert_int_equal(need(&r, "libpre.so", 1)->rule, LDR_RULE_LOADED);
	expect(&r, "/nonexistent/libnope.so", LDR_RULE_NONE, NULL);
	expect(&r, "/opt/cached/libcached.so.1", LDR_RULE_PRELOAD, "/opt/cached/libcached.so.1");
	finish(&r);
	cfg.ld_preload = NULL;

	lib("/dl/x/libplug.so", 1, 0, NULL, NULL, 0, "libplug.so", "libdep.so", NULL);
	lib("/dl/x/libdep.so", 1, 0, NULL, NULL, 0, "libdep.so", NULL);
	lib("/dl/libcaller.so", 1, 0, "/dl/x", NULL, 0, "libcaller.so", NULL);
	lib("/dl/main.so", 1, 0, NULL, NULL, 0, NULL, "libcaller.so", NULL);
	cfg.ld_library_path = "/dl";
	start(&r, "/dl/main.so", &cfg);
	expect(&r, "libcaller.so", LDR_RULE_LD_LIBRARY_PATH, "/dl/libcaller.so");
	assert_int_equal(
		ldr_dlopen(&r.s, need(&r, "libcaller.so", 0)->obj, "libplug.so", &obj, &err), 0);
	expect(&r, "libplug.so", LDR_RULE_RPATH, "/dl/x/libplug.so");
	assert_int_equal(r.s.objs[obj].loader, -1);
	expect(&r, "libdep.so", LDR_RULE_NONE, NULL);
	assert_int_equal(ldr_dlopen(&r.s, 9999, "x", &obj, &err), CD_ERANGE);
	finish(&r);
}

/* An i386 program in the same root: its own default dirs and $LIB, cache
 * entries of the x86-64 ABI refused, 64-bit copies skipped for its class. */
static void i386_program(void **state)
{
	struct run r;

	(void)state;
	lib("/usr/lib/i386-linux-gnu/libdefault.so.1", 0, 3, NULL, NULL, 0, "libdefault.so.1",
	    NULL);
	lib("/opt/cached/libcached.so.1", 1, 0, NULL, NULL, 0, "libcached.so.1", NULL);
	lib("/usr/lib/libwrong.so", 1, 0, NULL, NULL, 0, "libwrong.so", NULL);
	lib("/app32/main", 0, 3, NULL, NULL, 0, NULL, "libdefault.so.1", "libcached.so.1",
	    "libsys.so.1", "libwrong.so", NULL);
	start(&r, "/app32/main", NULL);
	assert_string_equal(r.s.plat.lib, "lib/i386-linux-gnu");
	assert_string_equal(r.s.plat.rtld, "/lib/ld-linux.so.2");
	assert_int_equal(r.s.plat.cache_flags, 3);
	expect(&r, "libdefault.so.1", LDR_RULE_DEFAULT, "/usr/lib/i386-linux-gnu/libdefault.so.1");
	expect(&r, "libcached.so.1", LDR_RULE_NONE, NULL);
	/* x86-64 multiarch directories are not the i386 program's */
	expect(&r, "libsys.so.1", LDR_RULE_NONE, NULL);
	assert_non_null(strstr(need(&r, "libsys.so.1", 0)->error, "No such file"));
	/* only a 64-bit copy exists in the default dirs */
	expect(&r, "libwrong.so", LDR_RULE_NONE, NULL);
	assert_string_equal(need(&r, "libwrong.so", 0)->error, "wrong ELF class: ELFCLASS64");
	finish(&r);
}

/* A main object that is not ELF, or missing, fails ldr_load_main. */
static void bad_main(void **state)
{
	struct cd_root root;
	struct cd_arena a;
	struct ldr_session s;
	struct cd_err err = {0};

	(void)state;
	write_file("/bad/text.so", "hello", 5);
	assert_int_equal(root_init(&root, root_dir, NULL), 0);
	arena_init(&a);
	ldr_init(&s, &root, NULL, &a);
	assert_int_equal(ldr_load_main(&s, "/bad/text.so", &err), CD_EFORMAT);
	assert_non_null(strstr(err.msg, "not an ELF"));
	assert_int_equal(ldr_load_main(&s, "/bad/absent.so", &err), CD_ENOENT);
	ldr_free(&s);
	arena_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rules),	  cmocka_unit_test(nodeflib),
		cmocka_unit_test(runpath),	  cmocka_unit_test(impostors),
		cmocka_unit_test(expansion),	  cmocka_unit_test(preload_and_dlopen),
		cmocka_unit_test(bad_main),	  cmocka_unit_test(i386_program),
		cmocka_unit_test(origin_of_link), cmocka_unit_test(symlinked_copy),
		cmocka_unit_test(tag_lookups),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
