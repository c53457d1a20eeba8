/* ldd_out: see ldd_out.h. The text form is a tree: each object's needs
 * under it, an object expanded where it was first loaded; needs answered by
 * an object already loaded are counted, and shown with -v. */
#include "report/ldd_out.h"

#include <stdio.h>
#include <string.h>

#include "format/ldcache.h"
#include "report/render.h"

#define C_RED	   "\033[31m"
#define C_DIM	   "\033[2m"
#define C_BOLD	   "\033[1m"
#define C_OFF	   "\033[0m"
#define INDENT_MAX 24

struct tctx {
	const struct ldd_out *lo;
	FILE *out;
	int color;
	int verbose;
	size_t hidden; /* needs answered by loaded objects, not printed */
};

static const char *col(const struct tctx *t, const char *c)
{
	return t->color ? c : "";
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p;
}

size_t ldd_missing(const struct ldd_out *lo)
{
	size_t i, n = 0;

	for (i = 0; i < lo->s.n_needs; i++)
		n += lo->s.needs[i].obj < 0 && lo->s.needs[i].kind != LDR_KIND_PRELOAD;
	return n;
}

static const char *type_name(const struct ldr_session *s, uint16_t t)
{
	switch (t) {
	case 1: return "relocatable object";
	case 2: return "executable";
	case 3: return s->main_interp ? "executable (PIE)" : "shared object";
	default: return "ELF file";
	}
}

/* ---- text ---------------------------------------------------------------- */

static void rule_text(const struct tctx *t, const struct ldr_need *n)
{
	const struct ldr_session *s = &t->lo->s;

	if (n->obj < 0) {
		fprintf(t->out, " %snot found%s (%s)", col(t, C_RED), col(t, C_OFF),
			n->error ? n->error : "not found");
		return;
	}
	fprintf(t->out, " => %s  %s[%s", n->path, col(t, C_DIM), ldr_rule_name(n->rule));
	if (n->tag_from >= 0)
		fprintf(t->out, " of %s", base(s->objs[n->tag_from].path));
	fprintf(t->out, "]%s", col(t, C_OFF));
	if (n->error)
		fprintf(t->out, " (%s)", n->error);
	if (n->hwcaps_candidates)
		fprintf(t->out, " (ld.so.cache also lists %u glibc-hwcaps cop%s)",
			n->hwcaps_candidates, n->hwcaps_candidates == 1 ? "y" : "ies");
}

static void tree(struct tctx *t, int obj, int depth)
{
	const struct ldr_session *s = &t->lo->s;
	size_t i;

	for (i = 0; i < s->n_needs; i++) {
		const struct ldr_need *n = &s->needs[i];
		if (n->by != obj || n->kind != LDR_KIND_NEEDED)
			continue;
		if (n->rule == LDR_RULE_LOADED && !t->verbose && !n->listed_here) {
			t->hidden++;
			continue;
		}
		fprintf(t->out, "%*s%s", 2 + 2 * (depth < INDENT_MAX ? depth : INDENT_MAX), "",
			n->name);
		rule_text(t, n);
		fputc('\n', t->out);
		if (n->new_object)
			tree(t, n->obj, depth + 1);
	}
}

static void text_archs(const struct tctx *t)
{
	const struct cudaarch *a = &t->lo->arch;
	char name[32];
	size_t i;

	if (t->lo->arch_skipped)
		return;
	if (t->lo->arch_error) {
		fprintf(t->out, "  cuda: %s\n", t->lo->arch_error);
		return;
	}
	if (!a->has_fatbin && a->data_scanned && !a->data_error[0]) {
		fprintf(t->out, "  cuda: no device code\n");
		return;
	}
	fprintf(t->out, "  cuda sass:");
	for (i = 0; i < a->sum.n_sass; i++) {
		fatbin_arch_name(FATBIN_KIND_ELF, a->sum.sass[i], name, sizeof(name));
		fprintf(t->out, " %s", name);
	}
	fprintf(t->out, "%s\n  cuda ptx: ", a->sum.n_sass ? "" : " none");
	for (i = 0; i < a->sum.n_ptx; i++) {
		fatbin_arch_name(FATBIN_KIND_PTX, a->sum.ptx[i], name, sizeof(name));
		fprintf(t->out, " %s", name);
	}
	fprintf(t->out, "%s\n", a->sum.n_ptx ? "" : " none");
	if (a->walk_rc)
		fprintf(t->out, "  cuda: fatbin read stopped early: %s\n", a->walk_error);
	if (a->data_error[0])
		fprintf(t->out, "  cuda: data scan incomplete: %s\n", a->data_error);
	if (a->n_embedded)
		fprintf(t->out, "  cuda: %llu fatbin container%s embedded in %s%s\n",
			(unsigned long long)a->embedded_containers,
			a->embedded_containers == 1 ? "" : "s", a->embedded[0],
			a->n_embedded > 1 ? " and other data sections" : "");
	if (!a->data_scanned)
		fprintf(t->out,
			"  cuda: data sections (%llu MiB) not scanned for embedded fatbins "
			"(--scan-data)\n",
			(unsigned long long)(a->data_bytes >> 20));
}

static void text_header(const struct tctx *t)
{
	const struct ldr_session *s = &t->lo->s;
	const struct ldr_obj *m = &s->objs[s->main];
	char mbuf[32];

	fprintf(t->out, "%s%s%s: ELF%d %s %s\n", col(t, C_BOLD), m->path, col(t, C_OFF),
		m->is64 ? 64 : 32, elf_machine_name(m->machine, mbuf, sizeof(mbuf)),
		type_name(s, m->type));
	if (m->soname)
		fprintf(t->out, "  soname   %s\n", m->soname);
	if (m->rpath_tag)
		fprintf(t->out, "  rpath    %s%s\n", m->rpath_tag,
			m->runpath ? "  (ignored: RUNPATH is set)" : "");
	if (m->runpath)
		fprintf(t->out, "  runpath  %s\n", m->runpath);
	if (m->nodeflib)
		fprintf(t->out,
			"  flags    NODEFLIB (no ld.so.cache system entries, no default dirs)\n");
	if (m->error)
		fprintf(t->out, "  error    %s\n", m->error);
	text_archs(t);
}

static void text_extra(struct tctx *t)
{
	const struct ldr_session *s = &t->lo->s;
	size_t i;

	for (i = 0; i < s->n_needs; i++) {
		const struct ldr_need *n = &s->needs[i];
		if (n->kind == LDR_KIND_NEEDED)
			continue;
		fprintf(t->out, "%s %s", n->kind == LDR_KIND_PRELOAD ? "preload" : "dlopen",
			n->name);
		rule_text(t, n);
		fputc('\n', t->out);
		if (n->new_object)
			tree(t, n->obj, 1);
	}
}

static void text_out(const struct ldd_out *lo, FILE *out, int color)
{
	struct tctx t = {lo, out, color, lo->opts->verbose, 0};
	size_t missing = ldd_missing(lo), i;

	text_header(&t);
	if (lo->s.objs[lo->s.main].n_needed || lo->s.n_needs)
		fprintf(out, "needs:\n");
	tree(&t, lo->s.main, 0);
	text_extra(&t);
	fprintf(out, "%zu object%s loaded", lo->s.n_order, lo->s.n_order == 1 ? "" : "s");
	if (t.hidden)
		fprintf(out, "; %zu need%s answered by objects already loaded (-v shows them)",
			t.hidden, t.hidden == 1 ? "" : "s");
	if (missing) {
		fprintf(out, "; %s%zu not found%s:", col(&t, C_RED), missing, col(&t, C_OFF));
		for (i = 0; i < lo->s.n_needs; i++)
			if (lo->s.needs[i].obj < 0 && lo->s.needs[i].kind != LDR_KIND_PRELOAD)
				fprintf(out, " %s", lo->s.needs[i].name);
	}
	fputc('\n', out);
	if (lo->s.truncated)
		fprintf(out, "note: stopped at %d objects / %d needs; the rest was not followed\n",
			LDR_MAX_OBJECTS, LDR_MAX_NEEDS);
	if (lo->s.cache_error && strcmp(lo->s.cache_error, "absent") != 0)
		fprintf(out, "note: /etc/ld.so.cache not used: %s\n", lo->s.cache_error);
}

/* ---- JSON ---------------------------------------------------------------- */

#define MISSING_MAX 1000

/* Names not found, each once, in the order first needed. */
static size_t missing_names(const struct ldd_out *lo, const char **v, size_t cap)
{
	size_t i, k, n = 0;

	for (i = 0; i < lo->s.n_needs && n < cap; i++) {
		const struct ldr_need *d = &lo->s.needs[i];
		if (d->obj >= 0 || d->kind == LDR_KIND_PRELOAD)
			continue;
		for (k = 0; k < n && strcmp(v[k], d->name); k++)
			;
		if (k == n)
			v[n++] = d->name;
	}
	return n;
}

static json_t *jpath(const struct ldr_session *s, int i)
{
	return i < 0 ? json_null() : json_str(s->objs[i].path);
}

static json_t *j_need(const struct ldr_session *s, const struct ldr_need *n)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_str(n->name));
	json_object_set_new(o, "kind", json_str(ldr_kind_name(n->kind)));
	json_object_set_new(o, "needed_by", jpath(s, n->by));
	json_object_set_new(o, "path", json_str(n->path));
	json_object_set_new(o, "rule", json_str(ldr_rule_name(n->rule)));
	json_object_set_new(o, "tag_from", jpath(s, n->tag_from));
	json_object_set_new(o, "loaded_here", json_boolean(n->listed_here));
	json_object_set_new(o, "error", json_str(n->obj < 0 || n->error ? n->error : NULL));
	json_object_set_new(o, "hwcaps_candidates", json_integer(n->hwcaps_candidates));
	return o;
}

static const char *obj_kind(const struct ldr_session *s, const struct ldr_obj *o)
{
	(void)s;
	if (o->is_main)
		return "main";
	if (o->is_rtld)
		return "interpreter";
	if (o->is_preload)
		return "preload";
	return o->is_dlopen ? "dlopen" : "needed";
}

static json_t *j_obj(const struct ldr_session *s, const struct ldr_obj *o)
{
	json_t *j = json_object();

	json_object_set_new(j, "name", json_str(o->name));
	json_object_set_new(j, "path", json_str(o->path));
	json_object_set_new(j, "kind", json_str(obj_kind(s, o)));
	json_object_set_new(j, "soname", json_str(o->soname));
	json_object_set_new(j, "loaded_by", jpath(s, o->loader));
	json_object_set_new(j, "rpath", json_str(o->rpath_tag));
	json_object_set_new(j, "runpath", json_str(o->runpath));
	json_object_set_new(j, "nodeflib", json_boolean(o->nodeflib));
	json_object_set_new(j, "error", json_str(o->error));
	return j;
}

/* The walk's error and the data scan's, either or both; NULL when none. */
static json_t *j_fatbin_error(const struct cudaarch *a)
{
	char both[sizeof(a->walk_error) + sizeof(a->data_error) + 2];

	if (a->walk_rc && a->data_error[0]) {
		snprintf(both, sizeof(both), "%s; %s", a->walk_error, a->data_error);
		return json_str(both);
	}
	return json_str(a->walk_rc ? a->walk_error : a->data_error[0] ? a->data_error : NULL);
}

static json_t *j_fatbin(const struct cudaarch *a)
{
	json_t *f;

	if (!a->has_fatbin && a->data_scanned && !a->data_error[0])
		return json_null();
	f = json_object();
	json_object_set_new(f, "section", json_str(a->section));
	json_object_set_new(f, "bytes", json_integer((json_int_t)a->bytes));
	json_object_set_new(f, "containers", json_integer(a->sum.containers));
	json_object_set_new(f, "entries", json_integer((json_int_t)a->sum.entries));
	json_object_set_new(f, "sass_entries", json_integer((json_int_t)a->sum.sass_entries));
	json_object_set_new(f, "ptx_entries", json_integer((json_int_t)a->sum.ptx_entries));
	json_object_set_new(f, "lto_entries", json_integer((json_int_t)a->sum.lto_entries));
	json_object_set_new(f, "other_entries", json_integer((json_int_t)a->sum.other_entries));
	json_object_set_new(f, "compressed_entries",
			    json_integer((json_int_t)a->sum.compressed_entries));
	json_object_set_new(f, "embedded_containers",
			    a->data_scanned ? json_integer((json_int_t)a->embedded_containers)
					    : json_null());
	json_object_set_new(f, "embedded_sections",
			    json_strv(a->embedded, a->n_embedded, a->data_scanned));
	json_object_set_new(f, "data_scanned", json_boolean(a->data_scanned));
	json_object_set_new(f, "data_bytes", json_integer((json_int_t)a->data_bytes));
	json_object_set_new(f, "complete",
			    json_boolean(a->walk_rc == 0 && !a->sum.partial && !a->data_error[0]));
	json_object_set_new(f, "error", j_fatbin_error(a));
	return f;
}

static json_t *j_loader(const struct ldd_out *lo)
{
	const struct ldr_session *s = &lo->s;
	static const char *const fmt[] = {NULL, "old", "new", "compat"};
	json_t *l = json_object(), *c = json_object();

	json_object_set_new(l, "interpreter", json_str(s->plat.rtld));
	json_object_set_new(l, "default_dirs", json_strv(s->plat.sysdirs, s->plat.n_sysdirs, 1));
	json_object_set_new(l, "lib", json_str(s->plat.lib));
	json_object_set_new(l, "platform", json_str(s->plat.platform));
	json_object_set_new(l, "ld_library_path",
			    json_strv(s->llp, s->n_llp, s->cfg.ld_library_path != NULL));
	json_object_set_new(l, "ld_preload", json_str(s->cfg.ld_preload));
	json_object_set_new(c, "path", json_string("/etc/ld.so.cache"));
	json_object_set_new(c, "used", json_boolean(s->cache_ok));
	json_object_set_new(c, "format", json_str(s->cache_ok ? fmt[s->cache.format] : NULL));
	json_object_set_new(c, "entries", s->cache_ok ? json_integer(s->cache.n) : json_null());
	json_object_set_new(c, "error", json_str(s->cache_error));
	json_object_set_new(l, "ld_so_cache", c);
	return l;
}

static json_t *j_report(const struct ldd_out *lo)
{
	const struct ldr_session *s = &lo->s;
	const struct ldr_obj *m = &s->objs[s->main];
	const char *missing[MISSING_MAX];
	json_t *j = json_object(), *a, *archs = json_object();
	size_t i, nm = missing_names(lo, missing, MISSING_MAX);
	char mbuf[32];

	json_object_set_new(j, "schema", json_string(LDD_SCHEMA));
	json_object_set_new(j, "file", json_str(m->path));
	json_object_set_new(j, "root", json_str(lo->root->is_host ? NULL : lo->root->dir));
	a = json_object();
	json_object_set_new(a, "class", json_integer(m->is64 ? 64 : 32));
	json_object_set_new(a, "machine",
			    json_str(elf_machine_name(m->machine, mbuf, sizeof(mbuf))));
	json_object_set_new(a, "type", json_str(type_name(s, m->type)));
	json_object_set_new(a, "interpreter", json_str(s->main_interp));
	json_object_set_new(a, "soname", json_str(m->soname));
	json_object_set_new(a, "rpath", json_str(m->rpath_tag));
	json_object_set_new(a, "runpath", json_str(m->runpath));
	json_object_set_new(a, "nodeflib", json_boolean(m->nodeflib));
	json_object_set_new(a, "error", json_str(m->error));
	json_object_set_new(j, "elf", a);
	json_object_set_new(j, "loader", j_loader(lo));
	a = json_array();
	for (i = 0; i < s->n_needs; i++)
		json_array_append_new(a, j_need(s, &s->needs[i]));
	json_object_set_new(j, "needs", a);
	a = json_array();
	for (i = 0; i < s->n_order; i++)
		json_array_append_new(a, j_obj(s, &s->objs[s->order[i]]));
	json_object_set_new(j, "objects", a);
	json_object_set_new(j, "not_found", json_strv(missing, nm, 1));
	json_object_set_new(j, "truncated", json_boolean(s->truncated));
	json_object_set_new(
		archs, "sass",
		json_arch_names(FATBIN_KIND_ELF, lo->arch.sum.sass, lo->arch.sum.n_sass));
	json_object_set_new(archs, "ptx",
			    json_arch_names(FATBIN_KIND_PTX, lo->arch.sum.ptx, lo->arch.sum.n_ptx));
	json_object_set_new(
		archs, "lto",
		json_arch_names(FATBIN_KIND_LTOIR, lo->arch.sum.lto, lo->arch.sum.n_lto));
	json_object_set_new(j, "archs",
			    lo->arch_skipped ? (json_decref(archs), json_null()) : archs);
	json_object_set_new(j, "fatbin", lo->arch_skipped ? json_null() : j_fatbin(&lo->arch));
	json_object_set_new(j, "fatbin_error", json_str(lo->arch_error));
	return j;
}

int ldd_render(const struct ldd_out *lo)
{
	json_t *j;
	int rc;

	switch (lo->opts->format) {
	case CD_FMT_JSON:
		j = j_report(lo);
		if (!j)
			return CD_ENOMEM;
		rc = json_print(stdout, j);
		json_decref(j);
		return rc;
	case CD_FMT_HTML:
		j = j_report(lo);
		rc = html_print(stdout, j, "ldd");
		json_decref(j);
		return rc;
	case CD_FMT_MARKDOWN:
		printf("## cuda-doctor ldd\n\n```text\n");
		text_out(lo, stdout, 0);
		printf("```\n");
		return 0;
	default: text_out(lo, stdout, lo->opts->color); return 0;
	}
}
