/* libs_arch: the SASS and PTX archs of a file's .nv_fatbin, fast. A fatbin
 * section holds one container per translation unit; each container lists
 * the same TORCH_CUDA_ARCH_LIST archs, so reading the entry headers of a
 * sample of containers spread over the section (LIBS_ARCH_SAMPLE, first and
 * last included) gives the arch list while touching a few hundred pages of a
 * 285 MB section instead of one per entry. Only container headers are read
 * for the others. `check --deep` reads every container. Data sections are
 * not scanned (cudaarch.h does that for `ldd`). */
#include <string.h>

#include "core/span.h"
#include "format/elf.h"
#include "format/fatbin.h"
#include "core/fmap.h"
#include "core/vec.h"
#include "probe/stack/libs_int.h"

#include <stdint.h>

#define FILE_MAX       ((size_t)1 << 36)
#define CONTAINERS_MAX (1u << 18)

/* Walking a large fatbin (297 MB in libtorch_cuda.so) touches a page per
 * container header; those clean file pages come back from the page cache for
 * a minor fault, so they are dropped behind the walk every DROP_BYTES instead
 * of adding up (the walk made check's peak 43 MB on the H200, 114 MB with
 * --deep). */
#define DROP_BYTES ((uint64_t)4 << 20)

/* Container extents into start/len (arena arrays); the count, or 0. A walk
 * that stops short (a bad container, CONTAINERS_MAX, more than FATBIN_GAP_MAX
 * bytes without one, as fatbin_walk stops) says so in *error. */
static size_t containers(struct cd_arena *a, const struct cd_fmap *m, const uint8_t *p, size_t n,
			 uint64_t **start, uint64_t **len, const char **error)
{
	size_t cap_s = 0, cap_l = 0, k = 0;
	uint64_t off = 0, at, h, sz, *s = NULL, *l = NULL, *g;
	uint64_t dropped = 0;

	for (;;) {
		at = fatbin_next_container(p, n, off);
		if (at >= n && n - off > FATBIN_GAP_MAX + FATBIN_HDR_SIZE)
			*error = arena_printf(a,
					      "no fatbin container in the %llu bytes after offset "
					      "%llu of the %zu-byte section: the rest is not read",
					      (unsigned long long)FATBIN_GAP_MAX,
					      (unsigned long long)off, n);
		if (at >= n)
			break;
		if (k == CONTAINERS_MAX) {
			*error = arena_printf(
				a, "more than %u fatbin containers: the rest is not read",
				CONTAINERS_MAX);
			break;
		}
		if (fatbin_container(p, n, at, &h, &sz)) {
			*error = arena_printf(a, "fatbin container at %llu runs past the section",
					      (unsigned long long)at);
			break;
		}
		if (!(g = vec_grow(a, s, &cap_s, k, sizeof(*s), 256, CONTAINERS_MAX)))
			break;
		s = g;
		if (!(g = vec_grow(a, l, &cap_l, k, sizeof(*l), 256, CONTAINERS_MAX)))
			break;
		l = g;
		s[k] = at;
		l[k] = h + sz;
		k++;
		off = at + h + sz;
		if (at - dropped >= DROP_BYTES) {
			fmap_release(m, p + dropped, p + at);
			dropped = at;
		}
	}
	fmap_release(m, p + dropped, p + (off < n ? off : n));
	*start = s;
	*len = l;
	return k;
}

static void keep(struct cd_arena *a, struct cd_archset *out, const struct fatbin_summary *sum)
{
	out->n_sass = sum->n_sass;
	out->n_ptx = sum->n_ptx;
	out->sass = arena_calloc(a, sum->n_sass ? sum->n_sass : 1, sizeof(uint32_t));
	out->ptx = arena_calloc(a, sum->n_ptx ? sum->n_ptx : 1, sizeof(uint32_t));
	if (!out->sass || !out->ptx) {
		out->n_sass = out->n_ptx = 0;
		return;
	}
	memcpy(out->sass, sum->sass, sum->n_sass * sizeof(uint32_t));
	memcpy(out->ptx, sum->ptx, sum->n_ptx * sizeof(uint32_t));
	out->known = 1;
}

static void from_section(struct cd_arena *a, const struct cd_fmap *m, const uint8_t *p, size_t n,
			 int deep, struct cd_archset *out)
{
	struct fatbin_summary all, one;
	struct cd_err err = {0};
	uint64_t *start = NULL, *len = NULL;
	size_t k, i, pick, last = (size_t)-1;

	memset(&all, 0, sizeof(all));
	k = containers(a, m, p, n, &start, &len, &out->error);
	out->containers = k;
	for (i = 0; i < k && (deep || i < LIBS_ARCH_SAMPLE); i++) {
		pick = deep || k <= LIBS_ARCH_SAMPLE
			       ? i
			       : (size_t)((uint64_t)i * (k - 1) / (LIBS_ARCH_SAMPLE - 1));
		if (pick == last)
			continue;
		last = pick;
		if (fatbin_summarize(p + start[pick], len[pick], &one, &err) && !out->error)
			out->error = arena_strdup(a, err.msg);
		fmap_release(m, p + start[pick], p + start[pick] + len[pick]);
		fatbin_summary_merge(&all, &one);
		out->sampled++;
	}
	keep(a, out, &all);
}

void libs_archset_read(const struct cd_root *root, struct cd_arena *a, const char *path, int deep,
		       struct cd_archset *out)
{
	struct cd_fmap m;
	struct elf_file e;
	struct elf_shdr sh;
	struct cd_span data;
	struct cd_err err = {0};

	memset(out, 0, sizeof(*out));
	if (fmap_open(root, path, FILE_MAX, &m, &err) || elf_parse(m.p, m.n, &e, &err)) {
		out->error = arena_strdup(a, err.msg);
		fmap_close(&m);
		return;
	}
	if (elf_section_find(&e, ".nv_fatbin", &sh) == 0 && elf_section_data(&e, &sh, &data) == 0)
		from_section(a, &m, data.p, data.n, deep, out);
	fmap_close(&m); /* no .nv_fatbin: no device code, known stays 0 */
}

void libs_arch_torch(struct libs_run *r)
{
	static const char *const names[] = {"libtorch_cuda.so", "libtorch_cuda_cu.so"};
	struct cd_libs_facts *L = r->L;
	struct cd_torch_facts *t = &r->st->torch;
	char buf[32];
	size_t i;

	if (!t->cuda)
		return; /* CPU or ROCm build: no CUDA device code */
	for (i = 0; i < sizeof(names) / sizeof(names[0]) && !L->torch_cuda_lib; i++) {
		const char *p = arena_printf(&r->f->arena, "%s/lib/%s", t->path, names[i]);
		if (p && file_is_reg(&r->f->root, p))
			L->torch_cuda_lib = p;
	}
	if (!L->torch_cuda_lib)
		return;
	libs_archset_read(&r->f->root, &r->f->arena, L->torch_cuda_lib, L->deep, &L->torch_arch);
	if (!L->torch_arch.known)
		return;
	/* torch.cuda.get_arch_list(): sm_XY for SASS, compute_XY for PTX; the
	 * `a`/`f` variants of a few kernels are not part of it. */
	t->arch_list = arena_calloc(&r->f->arena, L->torch_arch.n_sass + L->torch_arch.n_ptx + 1,
				    sizeof(char *));
	if (!t->arch_list)
		return;
	for (i = 0; i < L->torch_arch.n_sass; i++)
		if (L->torch_arch.sass[i] % 4 == FATBIN_VAR_NONE) {
			fatbin_arch_name(FATBIN_KIND_ELF, L->torch_arch.sass[i], buf, sizeof(buf));
			t->arch_list[t->n_arch_list++] = arena_strdup(&r->f->arena, buf);
		}
	for (i = 0; i < L->torch_arch.n_ptx; i++)
		if (L->torch_arch.ptx[i] % 4 == FATBIN_VAR_NONE) {
			fatbin_arch_name(FATBIN_KIND_PTX, L->torch_arch.ptx[i], buf, sizeof(buf));
			t->arch_list[t->n_arch_list++] = arena_strdup(&r->f->arena, buf);
		}
	t->arch_list_known = 1;
}
