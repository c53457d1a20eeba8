/* ctrhint: see ctrhint.h. Markers are tried in table order over the whole
 * input, so a Kubernetes pod whose cgroup also names its CRI runtime is
 * reported as kubernetes. */
#include "format/ctrhint.h"

#include <string.h>

#include "core/err.h"

static const struct {
	const char *marker, *kind;
} markers[] = {
	{"/kubepods", "kubernetes"},		    /* cgroup of a pod (both cgroup versions) */
	{"/var/lib/kubelet/pods/", "kubernetes"},   /* mountinfo: pod volumes */
	{"/libpod-", "podman"},			    /* cgroup: libpod-<id>.scope */
	{"/var/lib/containers/storage/", "podman"}, /* mountinfo: containers/storage layers */
	{"/docker/", "docker"},			    /* cgroup v1: /docker/<id> */
	{"/docker-", "docker"},			    /* cgroup v2 systemd: docker-<id>.scope */
	{"/var/lib/docker/", "docker"},		    /* mountinfo: overlay2 layers */
	{"cri-containerd-", "containerd"},	    /* cgroup of a CRI containerd task */
	{"/containerd/", "containerd"},		    /* mountinfo: /run/containerd/... */
	{"/crio-", "cri-o"},			    /* cgroup: crio-<id>.scope */
	{"/lxc.payload", "lxc"},		    /* cgroup of an LXC container */
	{"/lxc/", "lxc"},
	{"/machine.slice/systemd-nspawn", "systemd-nspawn"},
};

int ctrhint_scan(const uint8_t *p, size_t n, const char **kind, char *evidence, size_t cap)
{
	size_t i;

	if (n > CTRHINT_MAX_BYTES)
		n = CTRHINT_MAX_BYTES;
	for (i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		size_t mlen = strlen(markers[i].marker), b, e, k;
		const uint8_t *hit = memmem(p, n, markers[i].marker, mlen);

		if (!hit)
			continue;
		*kind = markers[i].kind;
		if (!cap)
			return 0;
		/* The fragment: from the marker to the end of its path. */
		b = (size_t)(hit - p);
		for (e = b; e < n && p[e] != '\n' && p[e] != ' ' && e - b < 96; e++)
			;
		for (k = 0; b + k < e && k + 1 < cap; k++)
			evidence[k] = (p[b + k] >= 0x20 && p[b + k] < 0x7f) ? (char)p[b + k] : '?';
		evidence[k] = '\0';
		return 0;
	}
	return CD_ENOENT;
}
