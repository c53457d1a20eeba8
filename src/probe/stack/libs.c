/* libs: the library probe's driver (see libs.h): replay the import
 * (libs_load.c), turn the session into items and misses, then versions and
 * copies (libs_copies.c), torch's archs (libs_arch.c), extensions
 * (libs_ext.c, libs_abi.c) and the other frameworks (frameworks.c). */
#include "probe/stack/libs.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/opts.h"
#include "core/str.h"
#include "core/fsutil.h"
#include "probe/stack/libs_int.h"
#include "probe/stack/libs_util.h"

#define LISTS_MAX  160
#define LIST_NAMES 8192

struct libs_listing {
	const char *dir;
	const char **names;
	size_t n;
};

static const char **list_dir(struct libs_run *r, const char *dir, size_t *n)
{
	int truncated;

	return fsu_list(&r->f->arena, &r->f->root, dir, "lib", NULL, LIST_NAMES, n, &truncated);
}

const char **libs_list(struct libs_run *r, const char *dir, size_t *n)
{
	struct libs_listing *l;
	size_t i;

	*n = 0;
	if (!dir)
		return NULL;
	if (!r->lists)
		r->lists = arena_calloc(&r->f->arena, LISTS_MAX, sizeof(*r->lists));
	for (i = 0; r->lists && i < r->n_lists; i++)
		if (!strcmp(r->lists[i].dir, dir)) {
			*n = r->lists[i].n;
			return r->lists[i].names;
		}
	if (!r->lists || r->n_lists >= LISTS_MAX)
		return list_dir(r, dir, n);
	l = &r->lists[r->n_lists++];
	l->dir = arena_strdup(&r->f->arena, dir);
	l->names = list_dir(r, dir, &l->n);
	*n = l->n;
	return l->names;
}

static const struct libs_note *note_of(const struct libs_run *r, size_t need)
{
	size_t i;

	for (i = 0; i < r->n_notes; i++)
		if ((size_t)r->notes[i].need == need)
			return &r->notes[i];
	return NULL;
}

static enum libs_how how_of(const struct libs_run *r, size_t need)
{
	const struct libs_note *n = note_of(r, need);

	if (n)
		return n->how;
	return r->s.needs[need].kind == LDR_KIND_PRELOAD ? LIBS_HOW_LD_PRELOAD : LIBS_HOW_NEEDED;
}

/* One item per object, from the need that loaded it. */
static void build_items(struct libs_run *r)
{
	struct ldr_session *s = &r->s;
	struct cd_libs_facts *L = r->L;
	size_t i, k;

	L->items = arena_calloc(&r->f->arena, s->n_objs ? s->n_objs : 1, sizeof(*L->items));
	if (!L->items)
		return;
	for (i = 0; i < s->n_objs; i++) {
		const struct ldr_obj *o = &s->objs[i];
		struct cd_lib_item *it;
		const char *b = strrchr(o->path, '/');
		if (o->is_rtld && !o->listed)
			continue;
		it = &L->items[L->n_items++];
		it->name = o->name;
		it->soname = o->soname;
		it->path = o->path;
		it->cuda = libs_is_cuda_name(o->soname ? o->soname : b ? b + 1 : o->path);
		it->how = (int)i == s->main && L->program ? LIBS_HOW_PROGRAM : LIBS_HOW_IMPORT;
		it->rule = (int)i == s->main ? "main" : NULL;
		for (k = 0; k < s->n_needs; k++) {
			const struct ldr_need *n = &s->needs[k];
			const struct libs_note *nt;
			if (n->obj != (int)i || !n->new_object)
				continue;
			it->name = n->name;
			it->rule = ldr_rule_name(n->rule);
			it->how = how_of(r, k);
			it->requested_by = n->by >= 0 ? s->objs[n->by].path : NULL;
			it->tag_from = n->tag_from >= 0 ? s->objs[n->tag_from].path : NULL;
			nt = note_of(r, k);
			it->when = nt ? nt->when : NULL;
			break;
		}
		if (o->is_rtld)
			it->rule = "interpreter";
	}
}

/* Not found by the end: a need of global deps that a preload answered later
 * was retried by torch and is not a miss. */
static int recovered(const struct libs_run *r, size_t k)
{
	const struct ldr_need *n = &r->s.needs[k];
	size_t i;

	if (k < r->gd_need_from || k >= r->gd_need_to)
		return 0;
	for (i = 0; i < r->s.n_objs; i++)
		if (r->s.objs[i].soname && !strcmp(r->s.objs[i].soname, n->name))
			return 1;
	return 0;
}

static void build_missing(struct libs_run *r)
{
	struct ldr_session *s = &r->s;
	struct cd_libs_facts *L = r->L;
	size_t k, j;

	L->missing = arena_calloc(&r->f->arena, s->n_needs ? s->n_needs : 1, sizeof(*L->missing));
	if (!L->missing)
		return;
	for (k = 0; k < s->n_needs; k++) {
		const struct ldr_need *n = &s->needs[k];
		const struct libs_note *nt = note_of(r, k);
		struct cd_lib_missing *m;
		int dup = 0;
		if (n->obj >= 0 || n->kind == LDR_KIND_PRELOAD || !*n->name || recovered(r, k))
			continue;
		for (j = 0; j < L->n_missing; j++)
			dup |= !strcmp(L->missing[j].name, n->name);
		if (dup)
			continue;
		m = &L->missing[L->n_missing++];
		m->name = n->name;
		m->requested_by = n->by >= 0 ? s->objs[n->by].path : NULL;
		m->how = how_of(r, k);
		m->error = n->error;
		m->when = nt ? nt->when : NULL;
		m->optional = nt && nt->optional;
		/* the driver's own libraries: the driver checks own them */
		m->driver = str_has_prefix(n->name, "libcuda.so") ||
			    str_has_prefix(n->name, "libnvidia-");
	}
}

static const struct cd_lib_item *find_item(const struct cd_libs_facts *L, const char *prefix)
{
	size_t i;

	for (i = 0; i < L->n_items; i++)
		if (L->items[i].soname && str_has_prefix(L->items[i].soname, prefix))
			return &L->items[i];
	return NULL;
}

/* The peak resident set so far (VmHWM of /proc/self/status), read after each
 * stage: the stage where it jumps is the one to look at. Our own process,
 * always the host's /proc whatever --root says. */
static int64_t stage_peak_kb(void)
{
	char line[256];
	long long kb = -1;
	FILE *fp = fopen("/proc/self/status", "re");

	if (!fp)
		return CD_UNK;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmHWM: %lld kB", &kb) == 1)
			break;
	fclose(fp);
	return kb < 0 ? CD_UNK : (int64_t)kb;
}

void libs_probe(struct cd_facts *f, struct cd_stack_facts *st)
{
	struct cd_libs_facts *L = arena_alloc(&f->arena, sizeof(*L));
	struct libs_run *r = arena_alloc(&f->arena, sizeof(*r));
	int64_t t0;

	if (!L || !r)
		return;
	st->libraries = L;
	r->f = f;
	r->st = st;
	r->L = L;
	L->deep = f->opts && f->opts->deep;
	if (st->packages_known && st->torch.installed && st->torch.path) {
		L->torch = 1;
		t0 = facts_clock_us();
		libs_load(r);
		build_items(r);
		build_missing(r);
		L->us_load = facts_clock_us() - t0;
		L->kb_load = stage_peak_kb();
		t0 = facts_clock_us();
		libs_copies(r);
		L->cudnn = find_item(L, "libcudnn.so.");
		L->nccl = find_item(L, "libnccl.so.");
		L->cudart = find_item(L, "libcudart.so.");
		L->us_copies = facts_clock_us() - t0;
		L->kb_copies = stage_peak_kb();
		t0 = facts_clock_us();
		libs_arch_torch(r);
		L->us_arch = facts_clock_us() - t0;
		L->kb_arch = stage_peak_kb();
		t0 = facts_clock_us();
		libs_ext(r);
		L->us_ext = facts_clock_us() - t0;
		L->kb_ext = stage_peak_kb();
		t0 = facts_clock_us();
		libs_abi(r);
		L->us_abi = facts_clock_us() - t0;
		L->kb_abi = stage_peak_kb();
	}
	if (st->packages_known)
		libs_frameworks(r);
	if (r->session)
		ldr_free(&r->s);
}
