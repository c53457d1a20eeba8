/* image_host: will the image under --root run on this host's driver
 * (check --host-driver, --image-config)? A libcuda the image brings on its
 * loader's path (image-libcuda-bundled), cuda-compat libraries forced on
 * the loader's path that are not newer than the host's driver
 * (image-compat-mismatch), and the toolkit's variables of the image's
 * configuration judged by check/image.c (nvidia-capabilities-no-compute,
 * nvidia-disable-require, image-cuda-refused, image-cuda-compat-only)
 * against the driver the probe queried. driver-too-old for the image's
 * toolkit and torch comes from check/compat.c as for any root. Sources:
 * nvidia-container-toolkit cmd/nvidia-cdi-hook/cudacompat (compat libraries
 * are used only when their driver major is higher than the host's), the
 * CUDA driver API's CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/image.h"
#include "core/str.h"
#include "kb/dfrules.h"

#define SEC "container"

static void rule(struct cd_finding *x, struct cd_arena *a)
{
	struct dfrule r;

	if (x && dfrules_find(x->id, &r) == 0)
		finding_evidence(x, a, "documented at: %s", r.source);
}

static int major_of(const char *v)
{
	int m = 0;
	size_t i;

	for (i = 0; v && v[i] >= '0' && v[i] <= '9' && i < 6; i++)
		m = m * 10 + (v[i] - '0');
	return v && i ? m : -1;
}

static void bundled(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_image_facts *im = &f->image;
	const char *host = f->driver.version;
	int same = host != NULL;
	struct cd_finding *x;
	size_t i;

	if (!im->n_libcuda)
		return;
	for (i = 0; i < im->n_libcuda; i++)
		same &= im->libcuda[i].version && !strcmp(im->libcuda[i].version, host);
	x = findings_add(out, "image-libcuda-bundled", same ? CD_SEV_WARNING : CD_SEV_ERROR, SEC,
			 "The image brings its own libcuda.so (%s)",
			 im->libcuda[0].version ? im->libcuda[0].version : im->libcuda[0].path);
	finding_detail(x, out->arena,
		       "The NVIDIA Container Toolkit mounts the host's libcuda.so.<driver version> "
		       "into the container; a libcuda the image already has on its loader's path "
		       "competes with it, and one that is not the host driver's version fails "
		       "cuInit with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803, \"system has "
		       "unsupported display driver / cuda driver combination\").%s",
		       same ? " This one is this host's version, so it runs here, and on no "
			      "host with another driver."
			    : "");
	for (i = 0; i < im->n_libcuda; i++)
		finding_evidence(x, out->arena, "in the image: %s%s", im->libcuda[i].path,
				 strstr(im->libcuda[i].path, "/stubs/")
					 ? " (the toolkit's stub: loaded, cuInit fails with "
					   "CUDA_ERROR_STUB_LIBRARY, 34)"
					 : "");
	finding_evidence(x, out->arena, "this host's driver: %s",
			 host ? host : "(its version is unknown)");
	finding_fix(x, out->arena,
		    "RUN rm -f %s   # and install no NVIDIA driver packages in the image "
		    "(link against /usr/local/cuda/lib64/stubs/libcuda.so)",
		    im->libcuda[0].path);
	rule(x, out->arena);
}

static void compat_mismatch(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_image_facts *im = &f->image;
	const struct cd_image_lib *newest = NULL;
	struct cd_finding *x;
	int host = major_of(f->driver.version);
	size_t i;

	if (!im->compat_forced || host < 0)
		return;
	for (i = 0; i < im->n_compat; i++)
		if (im->compat[i].version &&
		    (!newest || major_of(im->compat[i].version) > major_of(newest->version)))
			newest = &im->compat[i];
	if (!newest || major_of(newest->version) > host ||
	    !strcmp(newest->version, f->driver.version))
		return;
	x = findings_add(out, "image-compat-mismatch", CD_SEV_ERROR, SEC,
			 "The image forces cuda-compat's libcuda %s, not newer than this host's "
			 "driver %s",
			 newest->version, f->driver.version);
	finding_detail(x, out->arena,
		       "%s puts %s on the loader's path, where CUDA can load the compat libcuda "
		       "instead of the host's; forward compatibility only runs a newer libcuda on "
		       "an older driver branch, and this one fails cuInit with "
		       "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803). The container toolkit itself uses "
		       "compat libraries only when their driver branch is newer than the host's.",
		       im->compat_forced_by, im->compat_forced);
	finding_evidence(x, out->arena, "compat library: %s", newest->path);
	finding_evidence(x, out->arena, "on the loader's path through %s: %s", im->compat_forced_by,
			 im->compat_forced);
	finding_evidence(x, out->arena, "this host's driver: %s", f->driver.version);
	if (!strcmp(im->compat_forced_by, "LD_LIBRARY_PATH"))
		finding_fix(x, out->arena,
			    "# drop %s from the image's LD_LIBRARY_PATH (ENV in its Dockerfile)",
			    im->compat_forced);
	else
		finding_fix(x, out->arena, "RUN rm %s && ldconfig", im->compat_forced_by);
	rule(x, out->arena);
}

static void variables(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_image_facts *im = &f->image;
	struct dfenv env;
	struct image_env e;
	struct image_host h;
	struct cd_finding *x[3];
	size_t i, k;

	if (!im->config)
		return;
	dfenv_init(&env);
	for (i = 0; i < im->n_vars; i++)
		(void)!dfenv_set(&env, im->vars[i].name, im->vars[i].value); /* 16 < DFENV_MAX */
	image_env_read(&env, &e);
	memset(&h, 0, sizeof(h));
	h.driver = f->driver.version;
	h.cuda = f->driver.cuda_version;
	h.brand = f->gpus_known && f->n_gpus ? f->gpus[0].brand : NULL;
	h.source = "this host's driver (check --host-driver)";
	x[0] = image_check_capabilities(&e, out);
	x[1] = image_check_disable_require(&e, h.driver && h.cuda ? &h : NULL, out);
	x[2] = im->host_driver && h.driver && h.cuda ? image_check_require(&e, &h, out) : NULL;
	for (k = 0; k < 3; k++)
		if (x[k])
			finding_evidence(x[k], out->arena, "from the image's configuration %s",
					 im->config);
}

void check_image_host(const struct cd_facts *f, struct cd_findings *out)
{
	if (!f->image.probed)
		return;
	bundled(f, out);
	compat_mismatch(f, out);
	variables(f, out);
}
