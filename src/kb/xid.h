/* xid: NVIDIA Xid errors and how NVIDIA's k8s device plugin, DCGM's health
 * watches and the EKS node monitoring agent classify each (data/xid.tsv), and
 * the GPU recovery actions NVML reports (data/gpu_recovery.tsv). Parsed on
 * first use into static storage; rows are static. Unknown codes give NULL. */
#ifndef CD_KB_XID_H
#define CD_KB_XID_H

#include <stdint.h>

struct xid_row {
	int64_t xid;
	const char *name;
	const char *k8s;	/* "ignored" | "unhealthy" */
	const char *dcgm;	/* "fail" | "warn:<watch>" | "silent" */
	const char *dcgm_label; /* DCGM's own name for it, "" */
	const char *eks;	/* "fatal" | "warning" */
	const char *action;	/* NVIDIA's immediate action, "" when not quoted */
	const char *severity;	/* cuda-doctor's: "error" | "warning" | "info" */
	const char *notes, *source;
};

struct xid_recovery {
	int64_t code;
	const char *name, *severity, *meaning, *fix, *source;
};

const struct xid_row *xid_find(int64_t xid);
const struct xid_recovery *xid_recovery_find(int64_t code);

#endif
