/* image: see image.h. Sources: nvidia-container-toolkit
 * internal/config/image/cuda_image.go (which variables are requirements,
 * NVIDIA_DISABLE_REQUIRE, legacy images with CUDA_VERSION alone),
 * cmd/nvidia-container-runtime-hook/container_config.go (the capabilities,
 * utility,compute when unset), libnvidia-container src/cli/dsl.c and
 * configure.c (the evaluation and its error message), NVIDIA's forward
 * compatibility guide (cuda-compat: data-center GPUs, never GeForce). */
#include "check/image.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/str.h"
#include "format/nvreq.h"
#include "kb/compat.h"
#include "kb/images.h"

void image_env_read(const struct dfenv *env, struct image_env *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; env && i < env->n; i++) {
		const char *n = env->v[i].name, *v = env->v[i].value;
		if (str_has_prefix(n, "NVIDIA_REQUIRE_") &&
		    !str_has_prefix(n, "NVIDIA_REQUIRE_JETPACK")) {
			if (out->n_require < IMAGE_REQ_MAX) {
				out->require_name[out->n_require] = n;
				out->require[out->n_require++] = v;
			}
		} else if (!strcmp(n, "CUDA_VERSION")) {
			out->cuda_version = v;
		} else if (!strcmp(n, "NVIDIA_DISABLE_REQUIRE")) {
			out->disable_require = v;
		} else if (!strcmp(n, "NVIDIA_DRIVER_CAPABILITIES")) {
			out->capabilities = v;
		} else if (!strcmp(n, "NVIDIA_VISIBLE_DEVICES")) {
			out->visible_devices = v;
		}
	}
}

int image_parse_bool(const char *v)
{
	static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
	size_t i;

	for (i = 0; v && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(v, t[i]))
			return 1;
	return 0;
}

struct cd_finding *image_check_capabilities(const struct image_env *e, struct cd_findings *out)
{
	const char *v = e->capabilities, *p;
	struct cd_finding *x;

	if (!v || !*v)
		return NULL; /* unset or empty: utility,compute */
	for (p = v; *p;) {
		size_t k = strcspn(p, ",");
		while (k && p[k - 1] == ' ')
			k--;
		while (k && *p == ' ')
			p++, k--;
		if ((k == 7 && !strncmp(p, "compute", 7)) || (k == 3 && !strncmp(p, "all", 3)))
			return NULL;
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
	}
	x = findings_add(out, "nvidia-capabilities-no-compute", CD_SEV_ERROR, "container",
			 "NVIDIA_DRIVER_CAPABILITIES=%s leaves out compute", v);
	finding_detail(x, out->arena,
		       "The NVIDIA Container Toolkit mounts only the driver libraries of the "
		       "capabilities asked for: without compute there is no libcuda.so.1 in the "
		       "container, and torch.cuda.is_available() is False (unset or empty means "
		       "utility,compute).");
	finding_fix(x, out->arena, "NVIDIA_DRIVER_CAPABILITIES=compute,utility%s",
		    strstr(v, "video")	    ? ",video"
		    : strstr(v, "graphics") ? ",graphics"
					    : "");
	return x;
}

static int disabled(const struct image_env *e)
{
	return image_parse_bool(e->disable_require);
}

/* The requirement strings the toolkit passes to libnvidia-container. */
static size_t requirements(const struct image_env *e, const char **req, char *legacy, size_t cap)
{
	size_t n = 0, i;
	const char *d;

	for (i = 0; i < e->n_require; i++)
		req[n++] = e->require[i];
	if (!e->n_require && e->cuda_version && *e->cuda_version &&
	    (d = strchr(e->cuda_version, '.'))) {
		snprintf(legacy, cap, "cuda>=%.*s",
			 (int)((size_t)(d - e->cuda_version) + 1 + strcspn(d + 1, ".")),
			 e->cuda_version);
		req[n++] = legacy;
	}
	return n;
}

enum verdict { V_NATIVE, V_COMPAT, V_REFUSED, V_INVALID };

struct judged {
	enum verdict v;
	char held[NVREQ_TEXT_MAX];
	char first[NVREQ_TEXT_MAX];
	char bad[NVREQ_TEXT_MAX];
};

/* Every requirement must hold (they are ANDed); the worst one decides. */
static void judge(const char *const *req, size_t n, const struct image_host *h, const char *brand,
		  struct judged *j)
{
	struct nvreq_host nh = {h->driver, h->cuda, brand, NULL};
	struct nvreq_eval ev;
	size_t i;

	memset(j, 0, sizeof(*j));
	j->v = V_NATIVE;
	for (i = 0; i < n; i++) {
		enum nvreq_result r = nvreq_eval(req[i], strlen(req[i]), &nh, &ev);
		enum verdict v = r == NVREQ_INVALID   ? V_INVALID
				 : r == NVREQ_REFUSED ? V_REFUSED
				 : ev.alternative > 0 ? V_COMPAT
						      : V_NATIVE;
		if (v < j->v)
			continue;
		j->v = v;
		str_copy(j->held, sizeof(j->held), ev.held);
		str_copy(j->first, sizeof(j->first), ev.first);
		str_copy(j->bad, sizeof(j->bad), ev.bad);
	}
}

/* "cuda>=12.4 + forward-compatibility branches 470, 525, 535 (tesla, nvidia, ...)". */
static void summarize(const char *req, char *out, size_t cap)
{
	char branches[96] = "", brands[256] = "", first[64];
	const char *p = req;
	size_t k = strcspn(req, " ");

	str_ncopy(first, sizeof(first), req, k);
	while ((p = strstr(p, "brand="))) {
		const char *b = p + 6, *d = strstr(p, "driver>=");
		size_t bl = strcspn(b, ", "), dl;
		char tok[40];
		p = b;
		snprintf(tok, sizeof(tok), "%.*s", (int)bl, b);
		if (!strstr(brands, tok) && strlen(brands) + bl + 3 < sizeof(brands))
			snprintf(brands + strlen(brands), sizeof(brands) - strlen(brands), "%s%s",
				 brands[0] ? ", " : "", tok);
		if (!d || d - b > 40)
			continue;
		dl = strcspn(d + 8, ", ");
		snprintf(tok, sizeof(tok), "%.*s", (int)dl, d + 8);
		if (!strstr(branches, tok) && strlen(branches) + dl + 3 < sizeof(branches))
			snprintf(branches + strlen(branches), sizeof(branches) - strlen(branches),
				 "%s%s", branches[0] ? ", " : "", tok);
	}
	if (branches[0])
		snprintf(out, cap, "%s, or driver branches %s on brands %s", first, branches,
			 brands);
	else
		snprintf(out, cap, "%s", first);
}

static void evidence(struct cd_finding *x, struct cd_arena *a, const char *const *req, size_t n,
		     const struct image_host *h, const struct image_env *e)
{
	char sum[512];
	size_t i;

	finding_evidence(x, a, "driver %s, CUDA %s (%s)", h->driver ? h->driver : "?",
			 h->cuda ? h->cuda : "?", h->source ? h->source : "given");
	for (i = 0; i < n; i++) {
		summarize(req[i], sum, sizeof(sum));
		finding_evidence(x, a, "%s: %s",
				 i < e->n_require ? e->require_name[i]
						  : "CUDA_VERSION (no NVIDIA_REQUIRE_CUDA)",
				 sum);
	}
}

/* The fixes: a driver of the image's CUDA, an image of the driver's, and when
 * minor-version compatibility would carry the runtime, the way past the check. */
static void fixes(struct cd_finding *x, struct cd_arena *a, const char *first,
		  const struct image_host *h)
{
	char min[COMPAT_DRIVER_MAX];
	const char *src;
	struct compat_result r;
	int want = first && !strncmp(first, "cuda>=", 6) ? ver_cuda_int(first + 6) : -1;
	int have = h->cuda ? ver_cuda_int(h->cuda) : -1;

	if (want > 0 && compat_toolkit_min_driver(want, min, sizeof(min), &src) == 0)
		finding_fix(x, a, "# install NVIDIA driver %s or newer on the host (CUDA %d.%d)",
			    min, want / 1000, (want % 1000) / 10);
	if (have > 0)
		finding_fix(x, a, "# or use an image of CUDA %d.%d or older", have / 1000,
			    (have % 1000) / 10);
	if (want > 0 && have > 0 && compat_check(want, have, h->driver, &r) == COMPAT_MINOR)
		finding_fix(x, a,
			    "docker run -e NVIDIA_DISABLE_REQUIRE=1 ...   # CUDA %d.%d runs on "
			    "this driver through minor-version compatibility (no PTX JIT of "
			    "newer code)",
			    want / 1000, (want % 1000) / 10);
}

static const char *const class_brands[][3] = {
	{"datacenter", "tesla", "nvidia"},
	{"workstation", "quadro", "nvidiartx"},
	{"geforce", "geforce", "geforcertx"},
};

struct cd_finding *image_check_require(const struct image_env *e, const struct image_host *h,
				       struct cd_findings *out)
{
	const char *req[IMAGE_REQ_MAX + 1];
	char legacy[32];
	struct judged j[3], one;
	size_t n, c;
	struct cd_finding *x;
	int any_ok = 0;

	if (!h || !h->driver || disabled(e) || !(n = requirements(e, req, legacy, sizeof(legacy))))
		return NULL;
	if (h->brand) {
		judge(req, n, h, h->brand, &one);
		j[0] = j[1] = j[2] = one;
	} else {
		for (c = 0; c < 3; c++) {
			judge(req, n, h, class_brands[c][1], &j[c]);
			if (j[c].v == V_REFUSED)
				judge(req, n, h, class_brands[c][2], &j[c]);
		}
	}
	for (c = 0; c < 3; c++) {
		if (j[c].v == V_NATIVE)
			return NULL; /* cuda>= holds whatever the brand */
		any_ok |= j[c].v == V_COMPAT;
	}
	if (j[0].v == V_INVALID) {
		x = findings_add(
			out, "image-cuda-refused", CD_SEV_ERROR, "container",
			"The NVIDIA container toolkit would refuse this image: \"%s\" is not "
			"a valid requirement",
			j[0].bad);
		finding_detail(x, out->arena,
			       "libnvidia-container fails with \"requirement error: "
			       "invalid expression\" before the container starts.");
		evidence(x, out->arena, req, n, h, e);
		return x;
	}
	if (!any_ok) {
		x = findings_add(out, "image-cuda-refused", CD_SEV_ERROR, "container",
				 "The NVIDIA container toolkit would refuse to start this image on "
				 "driver %s (CUDA %s)",
				 h->driver, h->cuda ? h->cuda : "?");
		finding_detail(
			x, out->arena,
			"nvidia-container-cli: requirement error: unsatisfied condition: %s, "
			"please update your driver to a newer version, or use an earlier cuda "
			"container%s",
			j[0].first,
			h->brand ? "" : " (for every GPU brand: no listed driver branch matches)");
		evidence(x, out->arena, req, n, h, e);
		fixes(x, out->arena, j[0].first, h);
		return x;
	}
	x = findings_add(out, "image-cuda-compat-only",
			 h->brand && images_brand_class(h->brand) &&
					 !strcmp(images_brand_class(h->brand), "geforce")
				 ? CD_SEV_ERROR
				 : CD_SEV_WARNING,
			 "container",
			 "This image starts on driver %s only through a forward-compatibility "
			 "clause",
			 h->driver);
	finding_detail(
		x, out->arena,
		"The driver (CUDA %s) is older than the image's %s: the toolkit lets it start "
		"because the image lists this driver branch, and CUDA then works only through "
		"the image's cuda-compat libraries, supported on data-center GPUs and select "
		"NGC Server Ready RTX cards, never on GeForce (cuInit fails with error 804).",
		h->cuda ? h->cuda : "?", j[0].first);
	for (c = 0; c < (h->brand ? 1u : 3u); c++) {
		const char *cls = h->brand ? images_brand_class(h->brand) : class_brands[c][0];
		char label[64];
		int geforce = cls && !strcmp(cls, "geforce");
		if (h->brand)
			snprintf(label, sizeof(label), "this GPU (brand %s)", h->brand);
		else
			snprintf(label, sizeof(label), "%s GPUs", class_brands[c][0]);
		if (j[c].v == V_COMPAT)
			finding_evidence(
				x, out->arena, "%s: starts through %s%s", label, j[c].held,
				geforce ? ", but forward compatibility is not supported on "
					  "GeForce: CUDA fails"
					: "");
		else
			finding_evidence(x, out->arena, "%s: refused (unsatisfied condition: %s)",
					 label, j[c].first);
	}
	evidence(x, out->arena, req, n, h, e);
	fixes(x, out->arena, j[0].first, h);
	return x;
}

struct cd_finding *image_check_disable_require(const struct image_env *e,
					       const struct image_host *h, struct cd_findings *out)
{
	struct image_env on = *e;
	struct cd_findings tmp;
	const struct cd_finding *would = NULL;
	struct cd_finding *x;

	if (!disabled(e))
		return NULL;
	if (h) {
		on.disable_require = NULL;
		findings_init(&tmp, out->arena);
		would = image_check_require(&on, h, &tmp);
	}
	x = findings_add(out, "nvidia-disable-require", CD_SEV_WARNING, "container",
			 "NVIDIA_DISABLE_REQUIRE=%s turns off the driver check of the image",
			 e->disable_require);
	finding_detail(
		x, out->arena,
		"The NVIDIA Container Toolkit then passes no NVIDIA_REQUIRE_* to "
		"libnvidia-container: on a driver too old for the image's CUDA the container "
		"starts and fails at the first CUDA call instead of being refused.%s%s",
		would ? " Here the check would have said: " : "", would ? would->title : "");
	finding_fix(x, out->arena,
		    "# remove NVIDIA_DISABLE_REQUIRE unless the CUDA runs through "
		    "minor-version compatibility on every host it is meant for");
	return x;
}
