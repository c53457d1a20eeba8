/* stack: runs the Python / PyTorch stack probes (see stack.h) and reads
 * torch/version.py from the torch package that would be imported. */
#include "probe/stack/stack.h"

#include <string.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "format/distinfo.h"
#include "probe/stack/libs.h"

#define VERSION_PY_MAX ((size_t)64 << 10)

static void torch_probe(struct cd_facts *f, struct cd_stack_facts *st)
{
	const struct cd_package *p = stack_find(st, "torch");
	struct cd_torch_facts *t = &st->torch;
	struct torch_version_py v;
	const char *file;
	struct cd_buf b;
	int rc;

	t->debug = CD_TRI_UNKNOWN;
	if (!p || !(p->sources & CD_PKG_DIST) || p->site >= st->python.n_site)
		return;
	t->installed = 1;
	t->path = fsu_path(&f->arena, st->python.site[p->site].path, "torch");
	file = t->path ? fsu_path(&f->arena, t->path, "version.py") : NULL;
	buf_init(&b, 0);
	rc = file ? file_read(&f->root, file, VERSION_PY_MAX, &b, NULL) : CD_ENOMEM;
	if (!rc)
		rc = distinfo_parse_torch_version((const uint8_t *)b.p, b.len, &f->arena, &v);
	buf_free(&b);
	if (rc) {
		t->version = p->version;
		t->version_source = p->version ? "METADATA" : NULL;
		t->problem = arena_printf(&f->arena, "%s %s", file ? file : "torch/version.py",
					  rc == CD_ENOENT ? "is missing" : "cannot be read");
		return;
	}
	t->version = v.version;
	t->cuda = v.cuda;
	t->hip = v.hip;
	t->build_known = 1;
	t->git_version = v.git_version;
	t->debug = v.debug < 0 ? CD_TRI_UNKNOWN : v.debug ? CD_TRI_YES : CD_TRI_NO;
	t->version_source = "torch/version.py";
}

void stack_probe(struct cd_facts *f)
{
	struct cd_stack_facts *st = arena_alloc(&f->arena, sizeof(*st));
	int64_t t0 = facts_clock_us(), t = t0;

	if (!st)
		return;
	python_probe(f, &st->python);
	t = facts_stage(f, "python", t);
	packages_probe(f, st);
	t = facts_stage(f, "packages", t);
	torch_probe(f, st);
	t = facts_stage(f, "torch", t);
	libs_probe(f, st);
	st->probe_us = facts_stage(f, "libs", t) - t0;
	f->stack = st;
}
