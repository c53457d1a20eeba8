/* live_health: the findings of `probe` beyond each device's own steps
 * (check/live.h): the peer matrix and copies, NCCL, the Xid events of the
 * kernel log explained from data/xid.tsv, NVML's recovery actions from
 * data/gpu_recovery.tsv, MIG-enabled GPUs without an instance. */
#include <stdio.h>
#include <string.h>

#include "check/live.h"
#include "facts/live.h"
#include "kb/errcodes.h"
#include "kb/xid.h"

#define SEC	  "probe"
#define SHOWN_MAX 8

static const char *u(const char *s)
{
	return s ? s : "?";
}

static enum cd_severity sev_of(const char *s)
{
	return s && !strcmp(s, "error")	    ? CD_SEV_ERROR
	       : s && !strcmp(s, "warning") ? CD_SEV_WARNING
					    : CD_SEV_INFO;
}

static void peer_child(const struct cd_live_facts *lf, struct cd_findings *out)
{
	const struct cd_live_step *s = &lf->peers.step;
	struct cd_finding *x;

	if (s->result != CD_LIVE_FAILED && s->result != CD_LIVE_HUNG &&
	    s->result != CD_LIVE_CRASHED)
		return;
	x = findings_add(out, "probe-peer-failed", CD_SEV_ERROR, SEC,
			 "The peer test %s before it could judge every pair",
			 live_result_name(s->result));
	if (!x)
		return;
	finding_detail(x, out->arena,
		       "The child that opens every GPU at once (as a multi-GPU job does) %s in %s.",
		       s->result == CD_LIVE_HUNG ? "hung" : "failed", u(s->call));
	if (s->rc != CD_UNK)
		finding_evidence(x, out->arena, "%s returned %s (%lld)", u(s->call), u(s->rc_name),
				 (long long)s->rc);
	if (s->error)
		finding_evidence(x, out->arena, "%s", s->error);
	finding_fix(x, out->arena, "sudo dmesg -T | grep -iE 'NVRM|Xid'");
	finding_fix(x, out->arena, "nvidia-smi topo -m");
}

static void pairs(const struct cd_live_facts *lf, struct cd_findings *out)
{
	struct cd_finding *bad = NULL, *none = NULL;
	size_t i;

	for (i = 0; i < lf->peers.n; i++) {
		const struct cd_live_peer *p = &lf->peers.pairs[i];
		const char *a = u(lf->devices[p->from].label), *b = u(lf->devices[p->to].label);
		if (p->access == CD_TRI_YES && p->copy.result != CD_LIVE_PASSED &&
		    p->copy.result != CD_LIVE_NOT_RUN) {
			if (!bad &&
			    !(bad = findings_add(out, "probe-peer-failed", CD_SEV_ERROR, SEC,
						 "A peer copy between GPUs failed although "
						 "peer access is reported")))
				return;
			if (bad->n_evidence < SHOWN_MAX)
				finding_evidence(bad, out->arena, "%s -> %s: %s%s%s", a, b,
						 live_result_name(p->copy.result),
						 p->copy.error ? ": " : "", u(p->copy.error));
		} else if (p->access == CD_TRI_NO) {
			if (!none && !(none = findings_add(out, "probe-peer-unavailable",
							   CD_SEV_WARNING, SEC,
							   "Some GPUs cannot access each other's "
							   "memory directly")))
				return;
			if (none->n_evidence < SHOWN_MAX)
				finding_evidence(none, out->arena, "%s -> %s: no peer access", a,
						 b);
		}
	}
	if (bad) {
		finding_detail(bad, out->arena,
			       "cuDeviceCanAccessPeer says yes, but copying a pattern from one GPU "
			       "to the other and back did not return the same bytes, or did not "
			       "finish: the path silently corrupts or drops data, which NCCL and "
			       "tensor-parallel jobs use directly.");
		finding_fix(bad, out->arena, "nvidia-smi topo -m; nvidia-smi nvlink -s");
		finding_fix(bad, out->arena, "NCCL_P2P_DISABLE=1   # as a stopgap, slower");
	}
	if (none) {
		finding_detail(none, out->arena,
			       "No NVLink or PCIe peer path between them (or one blocked by PCIe "
			       "ACS, an IOMMU or a VM): NCCL falls back to copies through host "
			       "memory, several times slower. Expected on many PCIe workstations; "
			       "not on NVLink systems.");
		finding_fix(none, out->arena, "nvidia-smi topo -m   # the path between each pair");
		finding_fix(none, out->arena, "nvidia-smi topo -p2p r   # what the driver allows");
	}
}

static void recovery(const struct cd_live_facts *lf, struct cd_findings *out)
{
	size_t i;

	for (i = 0; i < lf->n_gpus; i++) {
		const struct cd_live_gpu *g = &lf->gpus[i];
		const struct xid_recovery *r;
		struct cd_finding *x;
		if (g->recovery_action == CD_UNK || g->recovery_action == 0)
			continue;
		r = xid_recovery_find(g->recovery_action);
		x = findings_add(out, "probe-recovery-action",
				 r ? sev_of(r->severity) : CD_SEV_ERROR, SEC,
				 "GPU %lld needs a recovery action: %s", (long long)g->index,
				 r ? r->name : "an action this cuda-doctor does not know");
		if (!x)
			continue;
		finding_detail(x, out->arena, "NVML's recovery action for the GPU is %lld: %s.",
			       (long long)g->recovery_action, r ? r->meaning : "unknown");
		finding_evidence(x, out->arena, "GPU %lld: %s %s", (long long)g->index, u(g->name),
				 u(g->uuid));
		if (r && r->fix[0])
			finding_fix(x, out->arena, "%s", r->fix);
	}
}

static void mig_empty(const struct cd_live_facts *lf, struct cd_findings *out)
{
	size_t i;

	for (i = 0; i < lf->n_gpus; i++) {
		const struct cd_live_gpu *g = &lf->gpus[i];
		struct cd_finding *x;
		if (g->mig_enabled != CD_TRI_YES || g->n_mig)
			continue;
		x = findings_add(out, "probe-mig-empty", CD_SEV_WARNING, SEC,
				 "GPU %lld has MIG enabled and no MIG instance: CUDA cannot use it",
				 (long long)g->index);
		if (!x)
			continue;
		finding_detail(
			x, out->arena,
			"With MIG enabled, CUDA runs only on MIG instances; none exists on this "
			"GPU, so it is invisible to every CUDA program. The probe does not "
			"change MIG settings.");
		finding_evidence(x, out->arena, "GPU %lld: %s %s", (long long)g->index, u(g->name),
				 u(g->uuid));
		finding_fix(x, out->arena, "nvidia-smi mig -lgip   # the profiles this GPU offers");
		finding_fix(
			x, out->arena,
			"sudo nvidia-smi mig -i %lld -cgi <profile> -C   # create an instance; or "
			"sudo nvidia-smi -i %lld -mig 0 to disable MIG",
			(long long)g->index, (long long)g->index);
	}
}

/* The NCCL step that did not pass, or NULL. */
static const struct cd_live_step *nccl_bad(const struct cd_live_nccl *n, const char **which)
{
	const struct cd_live_step *s[3] = {&n->load, &n->init, &n->allreduce};
	static const char *const names[3] = {"load", "init", "allreduce"};
	int k;

	for (k = 0; k < 3; k++)
		if (s[k]->result == CD_LIVE_FAILED || s[k]->result == CD_LIVE_HUNG ||
		    s[k]->result == CD_LIVE_CRASHED) {
			*which = names[k];
			return s[k];
		}
	return NULL;
}

static void nccl_fix(struct cd_finding *x, struct cd_arena *a, const struct cd_live_step *s)
{
	const struct errcodes_row *r = NULL;
	size_t i;

	if (s->rc_name && !strncmp(s->rc_name, "nccl", 4))
		r = errcodes_find(ERRCODES_NCCL, s->rc);
	else if (s->rc != CD_UNK && s->rc > 0)
		r = errcodes_find(ERRCODES_DRIVER, s->rc);
	if (r && r->meaning[0])
		finding_detail(x, a, "%s: %s.", r->name, r->meaning);
	for (i = 0; r && i < r->n_fix; i++)
		finding_fix(x, a, "%s", r->fix[i]);
}

static void nccl(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_live_nccl *n = &f->live->nccl;
	const struct cd_live_step *s;
	const char *which = "";
	struct cd_finding *x;

	if (!n->requested || !(s = nccl_bad(n, &which)))
		return;
	if (!strcmp(which, "load"))
		x = findings_add(out, "probe-nccl-failed", CD_SEV_ERROR, SEC,
				 "NCCL could not be loaded from %s", u(n->path));
	else if (s->result == CD_LIVE_HUNG)
		x = findings_add(out, "probe-nccl-failed", CD_SEV_ERROR, SEC,
				 "NCCL hung in %s (%s step)", u(s->call), which);
	else if (s->rc != CD_UNK && s->rc != 0)
		x = findings_add(out, "probe-nccl-failed", CD_SEV_ERROR, SEC,
				 "NCCL %s failed: %s returned %s (%lld)", which, u(s->call),
				 u(s->rc_name), (long long)s->rc);
	else
		x = findings_add(out, "probe-nccl-failed", CD_SEV_ERROR, SEC, "NCCL's %s step %s",
				 which,
				 s->result == CD_LIVE_CRASHED ? "crashed" : "returned wrong data");
	if (!x)
		return;
	nccl_fix(x, out->arena, s);
	if (!x->detail)
		finding_detail(
			x, out->arena,
			"A single-process communicator over %lld GPU%s (ncclCommInitAll) and an "
			"all-reduce of known values, checked exactly: what torch.distributed "
			"does first in every multi-GPU job.",
			(long long)n->ranks, n->ranks == 1 ? "" : "s");
	finding_evidence(x, out->arena, "libnccl.so.2: %s (%s)%s%s", u(n->path), u(n->source),
			 n->version ? ", NCCL " : "", n->version ? n->version : "");
	if (s->error)
		finding_evidence(x, out->arena, "%s", s->error);
	if (!strcmp(which, "load")) {
		finding_fix(x, out->arena,
			    "cuda-doctor check   # which libnccl.so.2 import torch loads, and why");
		finding_fix(x, out->arena, "cuda-doctor probe --nccl-lib /path/to/libnccl.so.2");
	}
	finding_fix(x, out->arena, "NCCL_DEBUG=INFO cuda-doctor probe --nccl   # NCCL's own log");
}

/* What NVIDIA's immediate action for an Xid asks a person to do. */
static void xid_action_fix(struct cd_finding *x, struct cd_arena *a, const char *action)
{
	if (!action || !*action)
		return;
	if (!strcmp(action, "RESET_GPU") || !strncmp(action, "WORKFLOW_", 9))
		finding_fix(x, a,
			    "sudo nvidia-smi -r -i N   # NVIDIA: %s; reboot if the reset "
			    "fails, replace the GPU if the Xid returns",
			    action);
	else if (!strcmp(action, "RESTART_BM"))
		finding_fix(x, a,
			    "power-cycle the node   # NVIDIA: RESTART_BM (the GPU left the bus)");
	else if (!strcmp(action, "RESTART_VM"))
		finding_fix(x, a, "restart the VM or instance   # NVIDIA: RESTART_VM");
	else if (!strcmp(action, "RESTART_APP"))
		finding_fix(x, a, "restart the application   # NVIDIA: RESTART_APP");
	else if (!strcmp(action, "CHECK_MECHANICALS"))
		finding_fix(x, a,
			    "check the GPU's auxiliary power connectors   # NVIDIA: "
			    "CHECK_MECHANICALS");
	else
		finding_fix(x, a, "NVIDIA's immediate action: %s", action);
}

static const char *dcgm_words(const char *d)
{
	if (!strcmp(d, "silent"))
		return "do not list it";
	if (!strcmp(d, "fail"))
		return "fail the GPU";
	return d; /* "warn:memory", "warn:memory, fail:thermal": as the table says */
}

static void one_xid(const struct cd_live_facts *lf, struct cd_findings *out, int64_t xid)
{
	const struct xid_row *r = xid_find(xid);
	struct cd_finding *x;
	enum cd_severity sev = r ? sev_of(r->severity) : CD_SEV_WARNING;
	size_t i, n = 0, during = 0;

	for (i = 0; i < lf->xids.n; i++)
		if (lf->xids.items[i].xid == xid) {
			n++;
			during += lf->xids.items[i].during_probe != 0;
		}
	if (during)
		sev = CD_SEV_ERROR; /* the probe's own kernels made the GPU log it */
	x = findings_add(out, "probe-xid", sev, SEC,
			 "Xid %lld (%s) in the kernel log: %zu line%s%s", (long long)xid,
			 r ? r->name : "not in cuda-doctor's table", n, n == 1 ? "" : "s",
			 during ? ", during this probe" : " since boot");
	if (!x)
		return;
	if (r)
		finding_detail(x, out->arena,
			       "How the tools classify it: NVIDIA's k8s device plugin %s; DCGM's "
			       "health watches %s%s%s%s; the EKS node monitoring agent %s.%s%s%s",
			       !strcmp(r->k8s, "ignored") ? "ignores it (an application error)"
							  : "marks the GPU unhealthy",
			       dcgm_words(r->dcgm), r->dcgm_label[0] ? " (\"" : "", r->dcgm_label,
			       r->dcgm_label[0] ? "\")" : "",
			       !strcmp(r->eks, "fatal") ? "calls it fatal and repairs the node"
							: "logs a warning event",
			       r->notes[0] ? " Note: " : "", r->notes, r->notes[0] ? "." : "");
	else
		finding_detail(x, out->arena, "An Xid none of the tables here classifies.");
	for (i = 0; i < lf->xids.n && x->n_evidence < 6; i++) {
		const struct cd_live_xid *e = &lf->xids.items[i];
		if (e->xid != xid)
			continue;
		if (e->gpu != CD_UNK)
			finding_evidence(x, out->arena, "GPU %lld (PCI %s): %s", (long long)e->gpu,
					 u(e->pci), u(e->text));
		else
			finding_evidence(x, out->arena, "PCI %s: %s", u(e->pci), u(e->text));
	}
	xid_action_fix(x, out->arena, r ? r->action : NULL);
	finding_fix(x, out->arena, "sudo dmesg -T | grep -i 'NVRM: Xid'   # when, and what else");
}

static void xids(const struct cd_live_facts *lf, struct cd_findings *out)
{
	int64_t seen[64];
	size_t i, k, ns = 0;
	struct cd_finding *x;

	if (!lf->xids.readable && lf->xids.error) {
		x = findings_add(out, "probe-xid-unreadable", CD_SEV_INFO, SEC,
				 "The kernel log could not be read: Xid errors were not checked");
		if (x) {
			finding_detail(
				x, out->arena,
				"Unknown is not clean: the GPUs may have logged Xid errors.");
			finding_evidence(x, out->arena, "%s: %s", u(lf->xids.source),
					 lf->xids.error);
			finding_fix(x, out->arena,
				    "sudo cuda-doctor probe   # or: sudo sysctl "
				    "kernel.dmesg_restrict=0");
		}
		return;
	}
	for (i = 0; i < lf->xids.n; i++) {
		for (k = 0; k < ns && seen[k] != lf->xids.items[i].xid; k++)
			;
		if (k == ns && ns < sizeof(seen) / sizeof(seen[0])) {
			seen[ns++] = lf->xids.items[i].xid;
			one_xid(lf, out, lf->xids.items[i].xid);
		}
	}
}

void check_live_health(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_live_facts *lf = f->live;

	xids(lf, out);
	nccl(f, out);
	peer_child(lf, out);
	pairs(lf, out);
	recovery(lf, out);
	mig_empty(lf, out);
}
