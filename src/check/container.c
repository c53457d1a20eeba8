/* container: shm-too-small. Inside a container /dev/shm is a private tmpfs
 * whose size the runtime chooses (Docker and Podman: 64 MB unless --shm-size
 * or --ipc=host). PyTorch DataLoader workers pass batches through shared
 * memory ("DataLoader worker ... is killed by signal: Bus error" / "No space
 * left on device") and NCCL's SHM transport keeps its buffers there, so a
 * small /dev/shm breaks multi-worker loading and multi-GPU runs. Checked only
 * in containers: a host's /dev/shm defaults to half of RAM. */
#include <string.h>

#include "check/check.h"
#include "core/str.h"

#define SHM_MIN ((int64_t)1 << 30) /* below 1 GiB: the NGC guidance is --shm-size=1g or more */

void check_container(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_container_facts *c = &f->container;
	int64_t shm = f->host.shm_size_bytes;
	struct cd_finding *x;
	char size[32];

	if (!c->kind || !strcmp(c->kind, "none") || shm == CD_UNK || shm >= SHM_MIN)
		return;
	str_bytes(size, sizeof(size), shm);
	x = findings_add(out, "shm-too-small", CD_SEV_WARNING, "container",
			 "/dev/shm is only %s in this %s container", size, c->kind);
	finding_detail(x, out->arena,
		       "PyTorch DataLoader workers (num_workers > 0) and NCCL's shared-memory "
		       "transport allocate in /dev/shm; at this size they fail with \"Bus error\", "
		       "\"No space left on device\" or NCCL \"failed to extend /dev/shm/nccl-... "
		       "to N bytes\".");
	finding_evidence(x, out->arena, "/dev/shm: %lld bytes (%s)", (long long)shm, size);
	if (c->evidence)
		finding_evidence(x, out->arena, "container: %s (%s)", c->kind, c->evidence);
	if (!strcmp(c->kind, "kubernetes")) {
		finding_fix(x, out->arena,
			    "# pod spec: mount a memory-backed emptyDir at /dev/shm");
		finding_fix(x, out->arena,
			    "volumes: [{name: dshm, emptyDir: {medium: Memory, "
			    "sizeLimit: 16Gi}}]");
		finding_fix(x, out->arena, "volumeMounts: [{name: dshm, mountPath: /dev/shm}]");
		return;
	}
	finding_fix(x, out->arena, "%s run --ipc=host ...   # share the host's /dev/shm",
		    !strcmp(c->kind, "podman") ? "podman" : "docker");
	finding_fix(x, out->arena, "%s run --shm-size=16g ...   # or give the container its own",
		    !strcmp(c->kind, "podman") ? "podman" : "docker");
}
