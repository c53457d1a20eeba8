/* container: is this a container, which runtime, and what the NVIDIA
 * container toolkit was asked for (NVIDIA_* variables). Marker files are read
 * under the root; environment markers (KUBERNETES_SERVICE_HOST, container=)
 * only count on the real root, where they describe this process. */
#include <stdint.h>
#include <string.h>

#include "core/buf.h"
#include "format/ctrhint.h"
#include "core/fsutil.h"
#include "probe/system/system.h"

static void set(struct cd_facts *f, const char *kind, const char *evidence)
{
	f->container.kind = kind;
	f->container.evidence = evidence;
}

/* /proc/1/cgroup, then /proc/self/mountinfo: 1 when one names a runtime. */
static int proc_hints(struct cd_facts *f, int *proc_seen)
{
	static const char *const files[] = {"/proc/1/cgroup", "/proc/self/mountinfo"};
	char ev[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		struct cd_buf b;
		const char *kind;
		int hit = 0;

		buf_init(&b, 0);
		if (file_read(&f->root, files[i], CTRHINT_MAX_BYTES, &b, NULL) == 0) {
			*proc_seen = 1;
			hit = ctrhint_scan((const uint8_t *)b.p, b.len, &kind, ev, sizeof(ev)) == 0;
		}
		buf_free(&b);
		if (hit) {
			set(f, kind, arena_printf(&f->arena, "%s: %s", files[i], ev));
			return 1;
		}
	}
	return 0;
}

/* /run/systemd/container holds the manager's name ("docker", "lxc", ...). */
static int systemd_marker(struct cd_facts *f)
{
	char v[64];
	size_t n, i;

	if (fsu_read_head(&f->root, "/run/systemd/container", v, sizeof(v) - 1, &n) || n == 0)
		return 0;
	v[n] = '\0';
	for (i = 0; i < n; i++)
		if (v[i] == '\n' || v[i] < 0x20 || v[i] >= 0x7f)
			break;
	v[i] = '\0';
	if (!i)
		return 0;
	set(f, arena_strdup(&f->arena, v), "/run/systemd/container");
	return 1;
}

static void detect(struct cd_facts *f)
{
	const char *env = f->root.is_host ? facts_getenv(f, "container") : NULL;
	int proc_seen = 0;

	if (f->root.is_host && facts_getenv(f, "KUBERNETES_SERVICE_HOST"))
		return set(f, "kubernetes", "KUBERNETES_SERVICE_HOST is set");
	if (file_is_dir(&f->root, "/var/run/secrets/kubernetes.io"))
		return set(f, "kubernetes", "/var/run/secrets/kubernetes.io exists");
	if (file_exists(&f->root, "/run/.containerenv"))
		return set(f, "podman", "/run/.containerenv exists");
	if (file_exists(&f->root, "/.dockerenv"))
		return set(f, "docker", "/.dockerenv exists");
	if (systemd_marker(f))
		return;
	if (env && *env && strlen(env) < 64)
		return set(f, arena_strdup(&f->arena, env), "container= is set");
	if (proc_hints(f, &proc_seen))
		return;
	/* No marker: "none" is a claim only where we looked at a live /proc. */
	if (f->root.is_host || proc_seen)
		set(f, "none", NULL);
}

void container_probe(struct cd_facts *f)
{
	struct cd_container_facts *c = &f->container;

	detect(f);
	c->nvidia_require_cuda = facts_getenv(f, "NVIDIA_REQUIRE_CUDA");
	c->nvidia_visible_devices = facts_getenv(f, "NVIDIA_VISIBLE_DEVICES");
	c->nvidia_driver_capabilities = facts_getenv(f, "NVIDIA_DRIVER_CAPABILITIES");
}
