/* driver: findings about the NVIDIA driver libraries and kernel module:
 * driver-missing, driver-stub-library, driver-timeout, driver-crashed,
 * driver-library-mismatch, driver-init-failed (docs/driver.md). Reads
 * f->driver only; driver-too-old lives with the compatibility checks. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "core/str.h"
#include "probe/driver/cudadrv.h"
#include "probe/driver/nvml.h"

#define SEC "driver"

static int in_container(const struct cd_facts *f)
{
	return f->container.kind && strcmp(f->container.kind, "none") != 0;
}

static const char *env_or_probe(const struct cd_facts *f, const char *name, const char *fallback)
{
	const char *v = facts_env_var(f, name);

	return v ? v : fallback;
}

static void lib_evidence(struct cd_finding *x, struct cd_arena *a, const struct cd_driver_lib *l)
{
	if (!l->requested)
		return;
	if (l->path)
		finding_evidence(x, a, "%s loaded from %s: %s", l->requested, l->path,
				 l->error ? l->error : probe_status_name(l->status));
	else
		finding_evidence(x, a, "%s: %s", l->requested,
				 l->error ? l->error : probe_status_name(l->status));
}

static void kmod_evidence(struct cd_finding *x, struct cd_arena *a, const struct cd_facts *f)
{
	if (f->driver.kernel_module_version)
		finding_evidence(x, a, "kernel module: %s (%s), from /proc/driver/nvidia/version",
				 f->driver.kernel_module_version,
				 f->driver.kernel_module_type ? f->driver.kernel_module_type : "?");
	else
		finding_evidence(x, a,
				 "/proc/driver/nvidia/version: absent (no nvidia kernel "
				 "module loaded)");
}

static void container_gpu_fix(struct cd_finding *x, struct cd_arena *a)
{
	finding_fix(x, a,
		    "docker run --gpus all ...   # or --runtime=nvidia; Kubernetes: "
		    "resources.limits nvidia.com/gpu: 1");
	finding_fix(x, a,
		    "sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart "
		    "docker   # on the host, once (NVIDIA Container Toolkit)");
}

static void missing_fix(const struct cd_facts *f, struct cd_finding *x, struct cd_arena *a, int nv,
			int cu)
{
	const struct cd_driver_facts *d = &f->driver;

	if (in_container(f)) {
		if (nv != cu)
			finding_fix(x, a,
				    "docker run --gpus all -e NVIDIA_DRIVER_CAPABILITIES=compute,"
				    "utility ...   # compute mounts libcuda, utility libnvidia-ml");
		else
			container_gpu_fix(x, a);
		return;
	}
	if ((d->nvml.requested && strchr(d->nvml.requested, '/')) ||
	    (d->cuda.requested && strchr(d->cuda.requested, '/')))
		finding_fix(x, a, "ls -lL %s %s   # the files named by --nvml-lib / --cuda-lib",
			    d->nvml.requested ? d->nvml.requested : "",
			    d->cuda.requested ? d->cuda.requested : "");
	if (d->kernel_module_version) {
		finding_fix(x, a, "ldconfig -p | grep -E 'libcuda.so.1|libnvidia-ml.so.1'");
		finding_fix(x, a,
			    "sudo apt-get install --reinstall libnvidia-compute-%.*s   # Ubuntu; "
			    "the user-space half of driver %s",
			    (int)strcspn(d->kernel_module_version, "."), d->kernel_module_version,
			    d->kernel_module_version);
		finding_fix(x, a, "sudo ldconfig");
		return;
	}
	finding_fix(x, a, "lspci -nn | grep -i nvidia   # is there an NVIDIA GPU at all?");
	finding_fix(x, a,
		    "sudo ubuntu-drivers install   # Ubuntu; Debian: sudo apt-get install "
		    "nvidia-driver (non-free); others: the NVIDIA .run installer");
	finding_fix(x, a, "sudo reboot   # loads the new kernel module");
}

static void check_missing(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_driver_facts *d = &f->driver;
	int nv = d->nvml.status == CD_PROBE_LIB_MISSING,
	    cu = d->cuda.status == CD_PROBE_LIB_MISSING;
	struct cd_finding *x;

	if (!nv && !cu)
		return;
	if (nv && cu)
		x = findings_add(out, "driver-missing", CD_SEV_ERROR, SEC,
				 "No NVIDIA driver: neither %s nor %s can be loaded",
				 d->cuda.requested, d->nvml.requested);
	else if (cu)
		x = findings_add(out, "driver-missing", CD_SEV_ERROR, SEC,
				 "The CUDA driver library (%s) cannot be loaded",
				 d->cuda.requested);
	else
		x = findings_add(out, "driver-missing", CD_SEV_WARNING, SEC,
				 "NVML (%s) cannot be loaded, so GPUs cannot be listed",
				 d->nvml.requested);
	if (in_container(f))
		finding_detail(
			x, out->arena,
			"Inside a container the driver libraries are mounted by the NVIDIA "
			"Container Toolkit when the container is started with GPUs; this one "
			"was not given them. CUDA programs cannot use a GPU here.");
	else if (nv && !cu && d->cuda.status == CD_PROBE_OK)
		finding_detail(x, out->arena,
			       "%s loaded but %s did not, so the GPUs cannot be listed or checked "
			       "(nvidia-smi and pynvml fail the same way).",
			       d->cuda.requested, d->nvml.requested);
	else if (d->kernel_module_version)
		finding_detail(x, out->arena,
			       "The nvidia kernel module %s is loaded but its user-space libraries "
			       "are not on the loader's search path (or not installed).",
			       d->kernel_module_version);
	else
		finding_detail(
			x, out->arena,
			"No NVIDIA driver is installed or loaded here, so CUDA programs cannot "
			"use a GPU (torch.cuda.is_available() is False).");
	if (nv)
		lib_evidence(x, out->arena, &d->nvml);
	if (cu)
		lib_evidence(x, out->arena, &d->cuda);
	kmod_evidence(x, out->arena, f);
	if (f->host.dev_nodes_known)
		finding_evidence(x, out->arena, "NVIDIA device nodes in /dev: %zu",
				 f->host.n_dev_nodes);
	missing_fix(f, x, out->arena, nv, cu);
}

/* LD_LIBRARY_PATH without the entries that contain dir (a stubs directory). */
static const char *without_dir(struct cd_arena *a, const char *ld, const char *dir, int *found)
{
	char *res = arena_strdup(a, ld), *o = res;
	const char *p = ld;
	size_t dn = strlen(dir);

	*found = 0;
	while (res) {
		size_t n = strcspn(p, ":");
		int drop = (n == dn || (n == dn + 1 && p[n - 1] == '/')) && !strncmp(p, dir, dn);
		drop |= n >= 6 && !strncmp(p + n - 6, "/stubs", 6);
		*found |= drop;
		if (!drop && n) {
			if (o != res)
				*o++ = ':';
			memcpy(o, p, n);
			o += n;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	if (o)
		*o = '\0';
	return res;
}

/* The fix that takes dir off the loader's search path: the corrected
 * LD_LIBRARY_PATH when it names dir, else the loader configuration line to
 * delete. `what` names dir in the evidence ("the stub's directory"). */
static void search_path_fix(const struct cd_facts *f, struct cd_finding *x, struct cd_arena *a,
			    const char *dir, const char *what)
{
	const char *ld = env_or_probe(f, "LD_LIBRARY_PATH", f->driver.ld_library_path), *clean;
	int found = 0;

	clean = ld ? without_dir(a, ld, dir, &found) : NULL;
	if (ld && found) {
		finding_evidence(x, a, "LD_LIBRARY_PATH names %s: %s", what, ld);
		if (clean && *clean)
			finding_fix(x, a, "export LD_LIBRARY_PATH=%s", clean);
		else
			finding_fix(x, a, "unset LD_LIBRARY_PATH");
		return;
	}
	finding_fix(x, a,
		    "grep -rn '%s' /etc/ld.so.conf /etc/ld.so.conf.d/   # delete that line, "
		    "then: sudo ldconfig",
		    dir[0] ? dir : "stubs");
}

static void stub_fix(const struct cd_facts *f, struct cd_finding *x, struct cd_arena *a,
		     const struct cd_driver_lib *l)
{
	const char *file = l->loaded_as ? l->loaded_as : l->path;
	const char *slash = file ? strrchr(file, '/') : NULL;
	const char *soname = l == &f->driver.cuda ? "libcuda.so.1" : "libnvidia-ml.so.1";
	char dir[4096];

	str_ncopy(dir, sizeof(dir), file ? file : "", slash ? (size_t)(slash - file) : 0);
	if (l->requested && strchr(l->requested, '/')) {
		finding_fix(x, a, "cuda-doctor check --%s-lib /path/to/the/driver's/%s",
			    l == &f->driver.cuda ? "cuda" : "nvml", soname);
		return;
	}
	search_path_fix(f, x, a, dir, "the stub's directory");
	if (in_container(f))
		container_gpu_fix(x, a);
	finding_fix(x, a, "ldconfig -p | grep '%s'   # the driver's own copy must come first",
		    soname);
	finding_fix(x, a,
		    "# link against stubs at build time only (-L/usr/local/cuda/lib64/stubs); "
		    "never put them on the run-time search path");
}

static void check_stub(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_driver_facts *d = &f->driver;
	const struct cd_driver_lib *l = d->cuda.is_stub == CD_TRI_YES	? &d->cuda
					: d->nvml.is_stub == CD_TRI_YES ? &d->nvml
									: NULL;
	struct cd_finding *x;

	if (!l)
		return;
	x = findings_add(out, "driver-stub-library", CD_SEV_ERROR, SEC,
			 "A CUDA toolkit stub was loaded instead of the driver's %s",
			 l == &d->cuda ? "libcuda.so.1" : "libnvidia-ml.so.1");
	finding_detail(
		x, out->arena,
		"%s is a link-time stub (the CUDA toolkit ships them in lib64/stubs) "
		"that answers every call with CUDA_ERROR_STUB_LIBRARY (34), so CUDA programs "
		"fail with \"CUDA driver is a stub library\". It was loaded instead of the "
		"driver's own library.",
		l->path ? l->path : l->requested);
	if (l->loaded_as && l->path && strcmp(l->loaded_as, l->path))
		finding_evidence(x, out->arena, "loaded %s (-> %s)", l->loaded_as, l->path);
	else
		finding_evidence(x, out->arena, "loaded %s", l->path ? l->path : "?");
	if (l == &d->cuda && l->rc == CD_CUDA_ERROR_STUB_LIBRARY)
		finding_evidence(x, out->arena,
				 "cuDriverGetVersion returned 34 (CUDA_ERROR_STUB_LIBRARY)");
	stub_fix(f, x, out->arena, l);
}

static void check_timeout(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_driver_facts *d = &f->driver;
	const struct cd_driver_lib *l = d->nvml.status == CD_PROBE_TIMEOUT   ? &d->nvml
					: d->cuda.status == CD_PROBE_TIMEOUT ? &d->cuda
									     : NULL;
	struct cd_finding *x;

	if (!l)
		return;
	x = findings_add(out, "driver-timeout", CD_SEV_ERROR, SEC,
			 "The NVIDIA driver did not answer within %.1f s",
			 (double)d->timeout_ms / 1000.0);
	finding_detail(
		x, out->arena,
		"%s hung in %s. A driver that hangs usually means a GPU in a bad state (see "
		"Xid errors in the kernel log), a kernel module stuck initialising, or, on "
		"large systems, no persistence daemon; CUDA programs will hang the same way.",
		l->requested, l->stage ? l->stage : "start-up");
	if (d->nvml.status == CD_PROBE_TIMEOUT)
		lib_evidence(x, out->arena, &d->nvml);
	if (d->cuda.status == CD_PROBE_TIMEOUT)
		lib_evidence(x, out->arena, &d->cuda);
	kmod_evidence(x, out->arena, f);
	finding_fix(x, out->arena, "sudo dmesg -T | grep -iE 'NVRM|Xid' | tail -20");
	finding_fix(x, out->arena, "timeout 60 nvidia-smi   # does nvidia-smi hang too?");
	finding_fix(x, out->arena,
		    "ps -eo pid,stat,wchan:32,cmd | awk '$2 ~ /D/'   # processes stuck in the "
		    "driver");
	finding_fix(x, out->arena, "sudo systemctl enable --now nvidia-persistenced");
	finding_fix(x, out->arena,
		    "sudo nvidia-smi -r -i <index>   # reset a hung GPU nothing uses, or: sudo "
		    "reboot");
	finding_fix(x, out->arena,
		    "cuda-doctor check --timeout 60   # if the driver is only slow to start");
}

static void check_crash(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_driver_facts *d = &f->driver;
	const struct cd_driver_lib *l = d->nvml.status == CD_PROBE_CRASHED   ? &d->nvml
					: d->cuda.status == CD_PROBE_CRASHED ? &d->cuda
									     : NULL;
	struct cd_finding *x;

	if (!l)
		return;
	x = findings_add(out, "driver-crashed", CD_SEV_ERROR, SEC,
			 "The NVIDIA driver library crashed while being queried");
	finding_detail(x, out->arena,
		       "%s died in %s. cuda-doctor ran the query in a child process and carried "
		       "on; a CUDA program here would crash the same way. Usually the library is "
		       "broken, from another driver version, or preloaded code interferes.",
		       l->requested, l->stage ? l->stage : "start-up");
	if (d->nvml.status == CD_PROBE_CRASHED)
		lib_evidence(x, out->arena, &d->nvml);
	if (d->cuda.status == CD_PROBE_CRASHED)
		lib_evidence(x, out->arena, &d->cuda);
	kmod_evidence(x, out->arena, f);
	if (env_or_probe(f, "LD_PRELOAD", NULL))
		finding_evidence(x, out->arena, "LD_PRELOAD=%s", env_or_probe(f, "LD_PRELOAD", ""));
	finding_fix(x, out->arena, "timeout 60 nvidia-smi   # does nvidia-smi crash too?");
	if (l->path)
		finding_fix(x, out->arena, "dpkg -S %s || rpm -qf %s   # the package to reinstall",
			    l->path, l->path);
	finding_fix(x, out->arena, "sudo dmesg -T | grep -iE 'NVRM|Xid' | tail -20");
}

/* The user-space driver version when NVML cannot say it itself. */
static const char *user_space(const struct cd_facts *f)
{
	const struct cd_driver_facts *d = &f->driver;
	const char *dot = d->nvml_version ? strchr(d->nvml_version, '.') : NULL;

	if (d->version_source && !strcmp(d->version_source, "nvml"))
		return d->version;
	if (dot && strchr(dot + 1, '.'))
		return dot + 1; /* "12.570.124.06" -> "570.124.06" */
	return d->nvml.file_version ? d->nvml.file_version : d->cuda.file_version;
}

static void mismatch_fix(const struct cd_facts *f, struct cd_finding *x, struct cd_arena *a,
			 const char *user)
{
	if (in_container(f)) {
		finding_fix(x, a,
			    "# the kernel module is the host's: do not install driver packages in "
			    "the image; remove them in the Dockerfile:");
		finding_fix(x, a, "apt-get purge -y 'libnvidia-*' 'nvidia-*' && ldconfig");
		finding_fix(x, a, "# on the host: cat /proc/driver/nvidia/version; nvidia-smi");
		return;
	}
	finding_fix(x, a, "sudo reboot   # loads the installed module; the simplest fix");
	finding_fix(x, a, "# or without a reboot: stop what uses the GPU, then reload the modules");
	finding_fix(x, a,
		    "sudo systemctl stop nvidia-persistenced nvidia-dcgm nvidia-fabricmanager "
		    "2>/dev/null; sudo lsof /dev/nvidia* 2>/dev/null   # must list nothing");
	finding_fix(x, a,
		    "sudo modprobe -r nvidia_drm nvidia_modeset nvidia_uvm nvidia && sudo modprobe "
		    "nvidia && sudo modprobe nvidia_uvm");
	finding_fix(x, a,
		    "sudo systemctl start nvidia-persistenced 2>/dev/null; cat "
		    "/proc/driver/nvidia/version   # should now say %s",
		    user ? user : "the installed version");
}

static void check_mismatch(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_driver_facts *d = &f->driver;
	const char *user = user_space(f), *kmod = d->kernel_module_version;
	int rc18 = d->nvml.rc == CD_NVML_ERROR_LIB_RM_VERSION_MISMATCH;
	struct cd_finding *x;

	if (!rc18 && !(kmod && d->version_source && !strcmp(d->version_source, "nvml") && user &&
		       ver_cmp(kmod, user) != 0))
		return;
	if (kmod && user)
		x = findings_add(out, "driver-library-mismatch", CD_SEV_ERROR, SEC,
				 "NVIDIA kernel module %s does not match the user-space driver %s",
				 kmod, user);
	else
		x = findings_add(out, "driver-library-mismatch", CD_SEV_ERROR, SEC,
				 "NVIDIA driver/library version mismatch");
	finding_detail(
		x, out->arena,
		in_container(f)
			? "The kernel module belongs to the host; the driver libraries in this "
			  "container are of another version (driver packages baked into the "
			  "image). NVML fails with \"Driver/library version mismatch\" and CUDA "
			  "with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH."
			: "The driver was upgraded (or downgraded) but the old kernel module "
			  "is still loaded. NVML fails with \"Driver/library version "
			  "mismatch\" and CUDA programs with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH "
			  "until the matching module is loaded.");
	kmod_evidence(x, out->arena, f);
	if (user)
		finding_evidence(x, out->arena, "user-space driver libraries: %s", user);
	if (rc18)
		finding_evidence(x, out->arena,
				 "nvmlInit returned 18 (NVML_ERROR_LIB_RM_VERSION_MISMATCH)%s%s",
				 d->nvml.error ? ": " : "", d->nvml.error ? d->nvml.error : "");
	if (d->nvml.path)
		finding_evidence(x, out->arena, "NVML library: %s", d->nvml.path);
	mismatch_fix(f, x, out->arena, user);
}

/* libcuda.so.1 of another version than the kernel module, judged from the
 * loaded file's name (libcuda.so.580.95.05): a CUDA forward-compatibility
 * package (cuda-compat-*, /usr/local/cuda/compat) first on the search path, or
 * a stray copy of another driver. cuInit accepts a mismatch only for a newer
 * compat library on a data-center GPU; otherwise it fails with
 * CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803), or 804 on other GPUs. Seen on the
 * H200 machine, whose toolkit ships compat/libcuda.so.580.95.05 beside a
 * 580.159.04 kernel module. cuDriverGetVersion answers either way, so only the
 * file tells. */
static void check_cuda_umd(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_driver_facts *d = &f->driver;
	const char *kmod = d->kernel_module_version, *umd = d->cuda.file_version;
	const char *file = d->cuda.path, *slash = file ? strrchr(file, '/') : NULL;
	int compat = file && strstr(file, "/compat/") != NULL;
	struct cd_finding *x;
	char dir[4096];

	if (!kmod || !umd || !file || d->cuda.status != CD_PROBE_OK || !ver_cmp(kmod, umd))
		return;
	str_ncopy(dir, sizeof(dir), file, slash ? (size_t)(slash - file) : 0);
	if (compat && ver_cmp(umd, kmod) > 0) {
		x = findings_add(out, "driver-forward-compat", CD_SEV_INFO, SEC,
				 "CUDA forward compatibility: libcuda %s on kernel module %s", umd,
				 kmod);
		finding_detail(x, out->arena,
			       "A newer CUDA driver library from a cuda-compat package runs on an "
			       "older kernel module. This works on data-center GPUs only; on "
			       "other GPUs cuInit fails with "
			       "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804).");
		finding_evidence(x, out->arena, "libcuda.so.1 loaded from %s", file);
		kmod_evidence(x, out->arena, f);
		return;
	}
	x = findings_add(out, "driver-library-mismatch", CD_SEV_ERROR, SEC,
			 "libcuda.so.1 %s does not match the NVIDIA kernel module %s", umd, kmod);
	finding_detail(x, out->arena,
		       "The CUDA driver library found first is not the driver's own: every "
		       "CUDA program fails at cuInit with CUDA_ERROR_SYSTEM_DRIVER_MISMATCH "
		       "(803, \"system has unsupported display driver / cuda driver "
		       "combination\").%s",
		       compat ? " A forward-compatibility library may only be newer than the "
				"kernel module; this one is older."
			      : "");
	finding_evidence(x, out->arena, "libcuda.so.1 loaded from %s (version %s)", file, umd);
	kmod_evidence(x, out->arena, f);
	search_path_fix(f, x, out->arena, dir, "its directory");
	if (compat)
		finding_fix(x, out->arena,
			    "sudo apt-get remove 'cuda-compat-*'   # if installed as a package");
	finding_fix(x, out->arena,
		    "ldconfig -p | grep 'libcuda.so.1'   # the driver's own copy (%s) "
		    "must come first",
		    kmod);
}

/* What an NVML initialisation error means and what to run; rc -1: others. */
static const struct {
	int rc;
	const char *meaning;
	const char *fix[4];
} init_errors[] = {
	{CD_NVML_ERROR_DRIVER_NOT_LOADED,
	 "The user-space driver is installed but the nvidia kernel module is not loaded (or failed "
	 "to load: Secure Boot without a signed module, a new kernel without a rebuilt DKMS "
	 "module, or nouveau holding the GPU).",
	 {"lsmod | grep -E '^nvidia|^nouveau'", "sudo modprobe nvidia && nvidia-smi",
	  "sudo dmesg -T | grep -iE 'nvidia|NVRM' | tail -20   # why it did not load",
	  "mokutil --sb-state; sudo dkms status   # Secure Boot; module built for $(uname -r)?"}},
	{4, /* NVML_ERROR_NO_PERMISSION */
	 "This user may not open the NVIDIA device nodes (/dev/nvidiactl, /dev/nvidia*).",
	 {"ls -l /dev/nvidia*; id   # the nodes must be read-write for this user",
	  "docker run --gpus all ...   # in a container: request the GPUs", NULL, NULL}},
	{17, /* NVML_ERROR_OPERATING_SYSTEM */
	 "The operating system or a cgroup blocks the GPU control device (a container started "
	 "without access to /dev/nvidiactl).",
	 {"ls -l /dev/nvidiactl /dev/nvidia*",
	  "docker run --gpus all ...   # in a container: request the GPUs", NULL, NULL}},
	{15, /* NVML_ERROR_GPU_IS_LOST */
	 "A GPU has fallen off the bus or become inaccessible (Xid 79).",
	 {"sudo dmesg -T | grep -iE 'Xid|fallen off' | tail -20",
	  "sudo reboot   # a lost GPU usually needs a reboot; if it recurs, a hardware check", NULL,
	  NULL}},
	{-1,
	 "The driver refused to initialise.",
	 {"timeout 60 nvidia-smi", "sudo dmesg -T | grep -iE 'NVRM|Xid' | tail -20", NULL, NULL}},
};

static void init_failed_lib(const struct cd_facts *f, struct cd_findings *out,
			    const struct cd_driver_lib *l, int is_nvml)
{
	const char *name = l->rc == CD_UNK ? NULL
			   : is_nvml	   ? nvml_error_name(l->rc)
					   : cudadrv_error_name(l->rc);
	struct cd_finding *x;
	size_t i, k;

	for (i = 0; init_errors[i].rc != -1; i++)
		if (is_nvml && l->rc == init_errors[i].rc)
			break;
	x = findings_add(out, "driver-init-failed", CD_SEV_ERROR, SEC,
			 "The NVIDIA driver failed to initialise (%s: %s)", l->requested,
			 name	    ? name
			 : l->error ? l->error
				    : probe_status_name(l->status));
	if (l->rc == CD_UNK)
		finding_detail(
			x, out->arena,
			"%s loaded but is not usable: %s. It may not be the driver's library, or "
			"is too old for this tool.",
			l->requested, l->error ? l->error : "no answer");
	else
		finding_detail(x, out->arena, "%s", init_errors[i].meaning);
	lib_evidence(x, out->arena, l);
	if (l->rc != CD_UNK)
		finding_evidence(x, out->arena, "%s returned %lld%s%s",
				 is_nvml ? "NVML" : "cuDriverGetVersion", (long long)l->rc,
				 name ? " = " : "", name ? name : "");
	kmod_evidence(x, out->arena, f);
	for (k = 0; k < 4 && init_errors[i].fix[k]; k++)
		finding_fix(x, out->arena, "%s", init_errors[i].fix[k]);
}

static void check_init_failed(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_driver_facts *d = &f->driver;

	if (d->nvml.status == CD_PROBE_INIT_FAILED && d->nvml.is_stub != CD_TRI_YES &&
	    d->nvml.rc != CD_NVML_ERROR_LIB_RM_VERSION_MISMATCH)
		init_failed_lib(f, out, &d->nvml, 1);
	if (d->cuda.status == CD_PROBE_INIT_FAILED && d->cuda.is_stub != CD_TRI_YES)
		init_failed_lib(f, out, &d->cuda, 0);
}

void check_driver(const struct cd_facts *f, struct cd_findings *out)
{
	if (f->driver.status == CD_PROBE_NOT_RUN)
		return;
	check_missing(f, out);
	check_stub(f, out);
	check_timeout(f, out);
	check_crash(f, out);
	check_mismatch(f, out);
	check_cuda_umd(f, out);
	check_init_failed(f, out);
}
