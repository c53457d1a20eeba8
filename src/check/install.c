/* install: see install.h. The rules:
 *  - the release: --torch (or a package's pin), else the wheel given, else the installed one (when
 *    the data has it), else the newest the data knows; a CUDA asked for
 *    (nvcc's) moves to the newest release that has that variant;
 *  - the machine: the driver version from the driver probe (NVML, else
 *    /sys/module/nvidia/version, else /proc), its CUDA from libcuda or, when
 *    only the version is known, from NVIDIA's table; every visible GPU
 *    (CUDA_VISIBLE_DEVICES applied when it leaves one), distinct compute
 *    capabilities compared as (major, minor) pairs;
 *  - a variant runs when every GPU has SASS of its family or PTX at or below
 *    it (kb/archcov.h) in the fatbin on disk (the installed torch's for its
 *    own variant, --wheel's for its) or else in the data, and the driver runs
 *    its CUDA directly or through minor-version compatibility, which cannot
 *    JIT PTX, so a GPU covered by PTX alone needs the driver to run it
 *    directly;
 *  - among those that run: directly before minor-version compatibility,
 *    then PyPI's default, then the newest CUDA; when none runs for want of a
 *    driver, the one needing the smallest driver upgrade; and the newest
 *    release that runs here as things are, as the alternative. */
#include "check/install.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/str.h"
#include "facts/stack.h"
#include "format/cvd.h"
#include "format/pep508.h"
#include "format/fatbin.h"
#include "kb/archcov.h"

#define ARCHS_TEXT 512

const char *install_verdict_name(enum install_verdict v)
{
	switch (v) {
	case INSTALL_DIRECT: return "direct";
	case INSTALL_MINOR: return "minor-version-compatibility";
	case INSTALL_DRIVER_UNKNOWN: return "driver-unknown";
	case INSTALL_REJ_DRIVER: return "driver-too-old";
	case INSTALL_REJ_ARCH: return "arch-unsupported";
	case INSTALL_REJ_PTX: return "ptx-only";
	case INSTALL_REJ_ARCH_UNKNOWN: return "arch-unknown";
	default: return "cuda-mismatch";
	}
}

const char *install_tool_name(enum install_tool t)
{
	switch (t) {
	case INSTALL_UV: return "uv";
	case INSTALL_UV_ADD: return "uv-add";
	case INSTALL_CONDA: return "conda";
	case INSTALL_PIXI: return "pixi";
	default: return "pip";
	}
}

static int runs(enum install_verdict v)
{
	return v == INSTALL_DIRECT || v == INSTALL_MINOR || v == INSTALL_DRIVER_UNKNOWN;
}

/* ---- the machine -------------------------------------------------------------- */

static void add_cc(struct install_choice *c, int major, int minor)
{
	int cc = major * 10 + minor;
	size_t i;

	for (i = 0; i < c->n_ccs; i++)
		if (c->ccs[i] == cc)
			return;
	if (c->n_ccs < sizeof(c->ccs) / sizeof(c->ccs[0]))
		c->ccs[c->n_ccs++] = cc;
	if (c->n_gpus == 1 || major < c->low_major ||
	    (major == c->low_major && minor < c->low_minor))
		c->low_major = major, c->low_minor = minor;
}

/* The GPUs CUDA_VISIBLE_DEVICES leaves visible, into vis[]; 0 when it is
 * unset or leaves none (then every GPU counts: a wheel must run on them). */
static size_t visible(const struct cd_facts *f, int *vis, size_t cap)
{
	const char *v = facts_env_var(f, "CUDA_VISIBLE_DEVICES"), *uuids[CVD_ENTRIES_MAX];
	struct cvd_list l;
	struct cvd_result r;
	size_t i, n = 0;

	if (!v && f->driver.cuda_visible_devices_set)
		v = f->driver.cuda_visible_devices;
	if (!v || f->n_gpus > CVD_ENTRIES_MAX)
		return 0;
	for (i = 0; i < f->n_gpus; i++)
		uuids[i] = f->gpus[i].uuid;
	cvd_parse((const uint8_t *)v, strlen(v), &l);
	cvd_resolve(&l, (const uint8_t *)v, strlen(v), uuids, f->n_gpus, &r);
	if (r.problem != CVD_OK)
		return 0;
	for (i = 0; i < r.visible && n < cap; i++)
		if (r.gpu[i] >= 0)
			vis[n++] = r.gpu[i];
	return n;
}

static void machine(const struct cd_facts *f, struct install_choice *c)
{
	int vis[CVD_ENTRIES_MAX];
	size_t n, i;

	c->driver = f->driver.version;
	c->driver_source = f->driver.version_source;
	c->driver_cuda = f->driver.cuda_version_int != CD_UNK && f->driver.cuda_version_int > 0
				 ? (int)f->driver.cuda_version_int
				 : compat_max_cuda(c->driver);
	if (!f->gpus_known)
		return;
	n = visible(f, vis, CVD_ENTRIES_MAX);
	for (i = 0; i < (n ? n : f->n_gpus); i++) {
		const struct cd_gpu *g = &f->gpus[n ? (size_t)vis[i] : i];
		if (g->cc_major == CD_UNK || g->cc_minor == CD_UNK || g->cc_major < 1 ||
		    g->cc_minor < 0 || g->cc_major > 99 || g->cc_minor > 9)
			continue;
		c->n_gpus++;
		add_cc(c, (int)g->cc_major, (int)g->cc_minor);
	}
}

/* ---- judging one variant ---------------------------------------------------- */

static void judge_driver(const struct install_choice *c, struct install_variant *iv)
{
	struct compat_result r;
	enum compat_verdict v;

	/* No row (or one that does not fit): "", which the verdicts read as unknown. */
	if (compat_toolkit_min_driver(iv->v.cuda_int, iv->min_driver, sizeof(iv->min_driver),
				      NULL) != 0)
		iv->min_driver[0] = '\0';
	if (compat_minor_min_driver(iv->v.cuda_int / 1000, iv->minor_floor, sizeof(iv->minor_floor),
				    NULL) != 0)
		iv->minor_floor[0] = '\0';
	if (c->driver_cuda <= 0) {
		iv->verdict = INSTALL_DRIVER_UNKNOWN;
		return;
	}
	v = compat_check(iv->v.cuda_int, c->driver_cuda, c->driver, &r);
	iv->verdict = v == COMPAT_OK	    ? INSTALL_DIRECT
		      : v == COMPAT_MINOR   ? INSTALL_MINOR
		      : v == COMPAT_TOO_OLD ? INSTALL_REJ_DRIVER
					    : INSTALL_DRIVER_UNKNOWN;
}

/* "cu130" for torch.version.cuda "13.0"; "" when it is not X.Y. */
static void variant_of(const char *cuda, char *out, size_t cap)
{
	int v = cuda ? ver_cuda_int(cuda) : -1;

	if (v > 0)
		snprintf(out, cap, "cu%d%d", v / 1000, (v % 1000) / 10);
	else if (cap)
		out[0] = '\0';
}

/* The fatbin on disk for this variant: the wheel given, or the installed torch. */
static const struct cd_archset *on_disk(const struct cd_facts *f, const struct install_req *req,
					const struct torchrel_variant *v, const char **from,
					struct cd_arena *a)
{
	const struct cd_libs_facts *L = libs_facts(f);
	const struct cd_torch_facts *t = f->stack ? &f->stack->torch : NULL;
	char rel[8], var[16];

	if (req->wheel && req->wheel->arch.known && req->wheel->variant && req->wheel->version) {
		torchrel_release_of(req->wheel->version, rel, sizeof(rel));
		if (!strcmp(rel, v->release) && !strcmp(req->wheel->variant, v->variant)) {
			*from = arena_printf(a, "the fatbin of %s", req->wheel->path);
			return &req->wheel->arch;
		}
	}
	if (!t || !t->installed || !t->version || !L || !L->torch_arch.known)
		return NULL;
	torchrel_release_of(t->version, rel, sizeof(rel));
	variant_of(t->cuda, var, sizeof(var));
	if (strcmp(rel, v->release) || strcmp(var, v->variant))
		return NULL;
	*from = arena_printf(a, "the fatbin of the installed %s", L->torch_cuda_lib);
	return &L->torch_arch;
}

static const char *names(const uint32_t *sass, size_t ns, const uint32_t *ptx, size_t np,
			 struct cd_arena *a)
{
	char out[ARCHS_TEXT], buf[32];
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < ns + np && len + 1 < sizeof(out); i++) {
		if (i < ns)
			fatbin_arch_name(FATBIN_KIND_ELF, sass[i], buf, sizeof(buf));
		else
			fatbin_arch_name(FATBIN_KIND_PTX, ptx[i - ns], buf, sizeof(buf));
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", len ? " " : "", buf);
	}
	return arena_strdup(a, out[0] ? out : "no device code");
}

static void judge_arch(const struct cd_facts *f, const struct install_req *req,
		       const struct install_choice *c, struct install_variant *iv,
		       struct cd_arena *a)
{
	const struct cd_archset *s = on_disk(f, req, &iv->v, &iv->arch_from, a);
	const uint32_t *sass = s ? s->sass : iv->v.sass, *ptx = s ? s->ptx : iv->v.ptx;
	size_t ns = s ? s->n_sass : iv->v.n_sass, np = s ? s->n_ptx : iv->v.n_ptx, i;

	if (!s && !iv->v.arch_known) {
		iv->arch_from = NULL;
		if (c->n_ccs) {
			iv->verdict = INSTALL_REJ_ARCH_UNKNOWN;
			iv->why = "its arch list is not in data/torch_cuda.tsv (give its wheel "
				  "with --wheel to read it)";
		}
		return;
	}
	if (!s)
		iv->arch_from = "data/torch_cuda.tsv";
	iv->archs = names(sass, ns, ptx, np, a);
	for (i = 0; i < c->n_ccs; i++) {
		int maj = c->ccs[i] / 10, min = c->ccs[i] % 10;
		enum archcov k = archcov_covers(sass, ns, ptx, np, maj, min, NULL);
		if (k == ARCHCOV_NONE) {
			iv->verdict = INSTALL_REJ_ARCH;
			iv->why = arena_printf(a, "no kernels for compute capability %d.%d (%s)",
					       maj, min, iv->archs);
			return;
		}
		if (k == ARCHCOV_PTX && iv->verdict == INSTALL_MINOR) {
			iv->verdict = INSTALL_REJ_PTX;
			iv->why = arena_printf(a,
					       "compute capability %d.%d has only PTX, which a "
					       "driver running CUDA %s through minor-version "
					       "compatibility cannot JIT-compile",
					       maj, min, iv->v.cuda);
			return;
		}
	}
}

static void why_driver(struct install_variant *iv, const struct install_choice *c,
		       struct cd_arena *a)
{
	if (iv->why)
		return;
	if (iv->verdict == INSTALL_DIRECT)
		iv->why = arena_printf(a, "driver %s runs CUDA %s directly (>= %s)", c->driver,
				       iv->v.cuda, iv->min_driver[0] ? iv->min_driver : "?");
	else if (iv->verdict == INSTALL_MINOR)
		iv->why = arena_printf(a,
				       "CUDA %s needs driver >= %s; driver %s runs it only "
				       "through minor-version compatibility (>= %s)",
				       iv->v.cuda, iv->min_driver, c->driver, iv->minor_floor);
	else if (iv->verdict == INSTALL_REJ_DRIVER)
		iv->why = arena_printf(a, "CUDA %s needs driver >= %s%s%s%s; this one is %s",
				       iv->v.cuda, iv->min_driver[0] ? iv->min_driver : "?",
				       iv->minor_floor[0] ? " (>= " : "", iv->minor_floor,
				       iv->minor_floor[0] ? " through minor-version compatibility)"
							  : "",
				       c->driver ? c->driver : "unknown");
	else if (iv->verdict == INSTALL_DRIVER_UNKNOWN)
		iv->why = arena_printf(a, "the driver is unknown; CUDA %s needs >= %s", iv->v.cuda,
				       iv->min_driver[0] ? iv->min_driver : "?");
}

/* ---- choosing ----------------------------------------------------------------- */

static int rank(enum install_verdict v)
{
	return v == INSTALL_DIRECT ? 3 : v == INSTALL_DRIVER_UNKNOWN ? 2 : v == INSTALL_MINOR;
}

static int better(const struct install_variant *x, const struct install_variant *y)
{
	if (rank(x->verdict) != rank(y->verdict))
		return rank(x->verdict) > rank(y->verdict);
	if (x->v.pypi_default != y->v.pypi_default)
		return x->v.pypi_default;
	return x->v.cuda_int > y->v.cuda_int;
}

/* The CUDA asked for: exactly, else the newest minor below it in its major. */
static int cuda_ok(const struct install_req *req, int cuda_int, int best)
{
	int want = req->cuda_major * 1000 + req->cuda_minor * 10;

	if (req->cuda_major <= 0)
		return 1;
	return cuda_int / 1000 == req->cuda_major && cuda_int <= want && cuda_int == best;
}

/* The best CUDA of the release the constraint allows; -1 none. */
static int cuda_best(const struct install_req *req, const struct torchrel_variant *v, size_t n)
{
	int want = req->cuda_major * 1000 + req->cuda_minor * 10, best = -1;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].cuda_int / 1000 == req->cuda_major && v[i].cuda_int <= want &&
		    v[i].cuda_int > best)
			best = v[i].cuda_int;
	return best;
}

/* Judge every variant of release rel; want is the version to pin (a patch
 * of rel, or rel itself for its newest patch). */
static int judge(const struct cd_facts *f, const struct install_req *req,
		 const struct install_choice *c, const char *rel, const char *want,
		 struct install_pick *p, struct cd_arena *a)
{
	struct torchrel_variant v[TORCHREL_VARIANTS_MAX];
	size_t i, n;
	int best;

	const struct cd_torch_facts *t = f->stack ? &f->stack->torch : NULL;
	char trel[8] = "", tvar[16] = "";

	memset(p, 0, sizeof(*p));
	p->chosen = p->installed = -1;
	if (torchrel_variants(rel, v, TORCHREL_VARIANTS_MAX, &n) || torchrel_patch(want, &p->patch))
		return CD_ENOENT;
	str_copy(p->release, sizeof(p->release), rel);
	if (t && t->installed) {
		torchrel_release_of(t->version, trel, sizeof(trel));
		variant_of(t->cuda, tvar, sizeof(tvar));
	}
	best = cuda_best(req, v, n);
	for (i = 0; i < n; i++) {
		struct install_variant *iv = &p->variants[p->n++];
		iv->v = v[i];
		if (!strcmp(trel, rel) && !strcmp(tvar, v[i].variant))
			p->installed = (int)i;
		judge_driver(c, iv);
		if (!cuda_ok(req, v[i].cuda_int, best)) {
			iv->verdict = INSTALL_REJ_CUDA;
			iv->why = arena_printf(a, "built with CUDA %s, not nvcc's %d.%d", v[i].cuda,
					       req->cuda_major, req->cuda_minor);
			continue;
		}
		judge_arch(f, req, c, iv, a);
		why_driver(iv, c, a);
	}
	for (i = 0; i < p->n; i++)
		if (runs(p->variants[i].verdict) &&
		    (p->chosen < 0 || better(&p->variants[i], &p->variants[p->chosen])))
			p->chosen = (int)i;
	return 0;
}

/* No variant runs: the one a driver upgrade makes run, the smallest upgrade
 * first; -1 when the GPUs rule them all out. */
static int driver_fix(const struct install_pick *p)
{
	int best = -1;
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct install_variant *x = &p->variants[i];
		if (x->verdict != INSTALL_REJ_DRIVER && x->verdict != INSTALL_REJ_PTX)
			continue;
		if (best < 0 || ver_cmp(x->min_driver, p->variants[best].min_driver) < 0 ||
		    (!ver_cmp(x->min_driver, p->variants[best].min_driver) &&
		     better(x, &p->variants[best])))
			best = (int)i;
	}
	return best;
}

static int release_has_cuda(const struct install_req *req, const char *rel)
{
	struct torchrel_variant v[TORCHREL_VARIANTS_MAX];
	size_t n;

	if (torchrel_variants(rel, v, TORCHREL_VARIANTS_MAX, &n))
		return 0;
	return req->cuda_major <= 0 || cuda_best(req, v, n) > 0;
}

/* The release asked; 0, or CD_ENOENT when the data does not have it. */
static int target(const struct cd_facts *f, const struct install_req *req, struct install_choice *c,
		  char (*rels)[8], size_t n, char *rel, size_t cap)
{
	const struct cd_torch_facts *t = f->stack ? &f->stack->torch : NULL;
	size_t i;

	rel[0] = '\0';
	if (req->torch) {
		torchrel_release_of(req->torch, rel, cap);
		c->release_from = req->torch_from ? req->torch_from : "--torch";
		for (i = 0; i < n && strcmp(rels[i], rel); i++)
			;
		return i < n ? 0 : CD_ENOENT;
	}
	if (req->wheel && req->wheel->version)
		torchrel_release_of(req->wheel->version, rel, cap), c->release_from = "--wheel";
	else if (!req->newest && t && t->installed && t->version)
		torchrel_release_of(t->version, rel, cap), c->release_from = "installed";
	for (i = 0; rel[0] && i < n && strcmp(rels[i], rel); i++)
		;
	if (!rel[0] || i == n || !release_has_cuda(req, rel)) {
		for (i = n; i-- > 0 && !release_has_cuda(req, rels[i]);)
			;
		if (i >= n)
			return CD_ENOENT;
		str_copy(rel, cap, rels[i]);
		c->release_from = req->cuda_major > 0 ? "nvcc's CUDA" : "newest";
	}
	return 0;
}

/* The newest release other than rel whose chosen variant runs here. */
static void alternative(const struct cd_facts *f, const struct install_req *req,
			struct install_choice *c, char (*rels)[8], size_t n, const char *rel,
			struct cd_arena *a)
{
	struct install_req r = *req;
	size_t i;

	r.torch = NULL;
	c->alt.chosen = -1;
	for (i = n; i-- > 0;) {
		if (!strcmp(rels[i], rel) || judge(f, &r, c, rels[i], rels[i], &c->alt, a))
			continue;
		if (c->alt.chosen >= 0)
			return;
	}
	memset(&c->alt, 0, sizeof(c->alt));
	c->alt.chosen = -1;
}

static enum install_tool tool_of(const struct cd_facts *f)
{
	const struct cd_python_facts *py = f->stack ? &f->stack->python : NULL;
	const struct cd_package *t = f->stack ? stack_find(f->stack, "torch") : NULL;
	int torch_pip = t && (t->sources & CD_PKG_DIST) && !(t->sources & CD_PKG_CONDA);

	if (!py || !py->kind)
		return INSTALL_PIP;
	if (!strcmp(py->kind, "conda") && !torch_pip)
		return py->pixi_workspace ? INSTALL_PIXI : INSTALL_CONDA;
	if (!strcmp(py->kind, "uv"))
		return py->uv_project ? INSTALL_UV_ADD : INSTALL_UV;
	return INSTALL_PIP;
}

static void lines(const struct cd_facts *f, struct install_choice *c, struct cd_arena *a)
{
	const struct install_variant *x;

	if (c->pick.chosen >= 0) {
		x = &c->pick.variants[c->pick.chosen];
		c->line = install_cmd_line(f, c, &c->pick, &x->v, a);
		if (x->verdict == INSTALL_MINOR)
			c->label = arena_printf(
				a,
				"runs through minor-version compatibility (driver >= %s for CUDA "
				"%d.x): kernels that exist only as PTX, and torch's run-time "
				"compiled kernels, cannot be JIT-compiled by this driver; driver "
				">= "
				"%s runs it directly",
				x->minor_floor, x->v.cuda_int / 1000, x->min_driver);
	}
	if (c->alt.chosen >= 0)
		c->alt_line = install_cmd_line(f, c, &c->alt, &c->alt.variants[c->alt.chosen].v, a);
}

/* The version to pin: the one asked, the wheel's, the installed one, else
 * the release's newest patch. */
static const char *pin(const struct cd_facts *f, const struct install_req *req,
		       const struct install_choice *c, const char *rel)
{
	const char *v = NULL;
	char r[8];

	if (req->torch)
		v = req->torch;
	else if (!strcmp(c->release_from, "--wheel"))
		v = req->wheel->version;
	else if (!strcmp(c->release_from, "installed"))
		v = f->stack->torch.version;
	torchrel_release_of(v, r, sizeof(r));
	return v && !strcmp(r, rel) ? v : rel;
}

int install_choose(const struct cd_facts *f, const struct install_req *req, struct cd_arena *a,
		   struct install_choice *out)
{
	static const struct install_req none;
	char rels[TORCHREL_RELEASES_MAX][8], rel[8];
	size_t n;
	int d;

	memset(out, 0, sizeof(*out));
	out->pick.chosen = out->alt.chosen = -1;
	if (!req)
		req = &none;
	machine(f, out);
	out->tool = tool_of(f);
	out->python =
		f->stack && f->stack->python.executable ? f->stack->python.executable : "python3";
	if (torchrel_releases(rels, TORCHREL_RELEASES_MAX, &n) ||
	    target(f, req, out, rels, n, rel, sizeof(rel)) ||
	    judge(f, req, out, rel, pin(f, req, out, rel), &out->pick, a))
		return CD_ENOENT;
	if (out->pick.chosen < 0) {
		d = driver_fix(&out->pick);
		out->status = d >= 0 ? INSTALL_NEEDS_DRIVER : INSTALL_NO_VARIANT;
		if (d >= 0) {
			out->pick.chosen = d;
			str_copy(out->driver_needed, sizeof(out->driver_needed),
				 out->pick.variants[d].min_driver);
		}
		alternative(f, req, out, rels, n, rel, a);
	}
	lines(f, out, a);
	return 0;
}

int install_pin(const struct cd_facts *f, const char *package, char *out, size_t cap)
{
	const struct cd_package *p = f->stack ? stack_find(f->stack, package) : NULL;
	static struct pep508_req r; /* 5 KiB */
	size_t i, n;

	for (i = 0; p && i < p->n_requires; i++) {
		const char *q = p->requires[i], *eq;
		if (pep508_parse(q, strlen(q), &r, NULL) || strcmp(r.key, "torch") ||
		    !(eq = strstr(q, "==")) || (r.marker_len && eq > q + r.marker_off))
			continue;
		eq += 2;
		while (*eq == ' ')
			eq++;
		n = strspn(eq, "0123456789.");
		if (n && eq[n] != '*' && n < cap) {
			str_ncopy(out, cap, eq, n);
			return 1;
		}
	}
	return 0;
}
