/* env: environment variables that break or slow a run.
 * nccl-transport-disabled: NCCL_* settings that switch a transport off
 * (NCCL user guide, "Environment Variables"): P2P and SHM carry traffic
 * between GPUs of one node, so turning them off is a warning; IB, GPUDirect
 * RDMA, NVLink SHARP, multi-node NVLink and a socket-only NCCL_NET matter
 * between nodes and are reported as info.
 * ld-library-path-invalid: empty or relative LD_LIBRARY_PATH entries (the
 * loader searches the current directory: a warning), directories that do not
 * exist and duplicates (info). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/check.h"
#include "core/buf.h"
#include "core/str.h"

/* How NCCL reads a flag: an integer, non-zero means set (ncclGetEnv + strtoll). */
static int nonzero(const char *v)
{
	char *end;
	long long n;

	if (!v || !*v)
		return 0;
	n = strtoll(v, &end, 0);
	return end != v && n != 0;
}

/* A path-type level (LOC, NVL, PIX, PXB, PHB, SYS) or its legacy integer;
 * LOC / 0 means "never". */
static int level_never(const char *v)
{
	return v && (!strcasecmp(v, "LOC") || !strcmp(v, "0"));
}

static const struct {
	const char *var;
	int intra; /* between GPUs of one node */
	int (*off)(const char *);
	const char *what;
} nccl_vars[] = {
	{"NCCL_P2P_DISABLE", 1, nonzero,
	 "peer-to-peer transport (NVLink / PCIe) off: GPU traffic "
	 "goes through host memory"},
	{"NCCL_P2P_LEVEL", 1, level_never, "P2P level LOC: peer-to-peer never used"},
	{"NCCL_SHM_DISABLE", 1, nonzero,
	 "shared-memory transport off: intra-node traffic that cannot "
	 "use P2P goes over the network"},
	{"NCCL_IB_DISABLE", 0, nonzero,
	 "InfiniBand / RoCE off: inter-node traffic over TCP sockets"},
	{"NCCL_NET_GDR_LEVEL", 0, level_never,
	 "GPUDirect RDMA never used: network traffic is "
	 "staged through host memory"},
	{"NCCL_NVLS_ENABLE", 1, NULL, "NVLink SHARP (NVSwitch reductions) off"},
	{"NCCL_MNNVL_ENABLE", 0, NULL, "multi-node NVLink off"},
};

static int is_zero(const char *v)
{
	return v && !strcmp(v, "0");
}

static void nccl(const struct cd_facts *f, struct cd_findings *out)
{
	struct cd_finding *x = NULL;
	enum cd_severity sev = CD_SEV_INFO;
	size_t i;
	const char *net = facts_env_var(f, "NCCL_NET");
	int any = 0, socket = net && !strcasecmp(net, "Socket");

	for (i = 0; i < sizeof(nccl_vars) / sizeof(nccl_vars[0]); i++) {
		const char *v = facts_env_var(f, nccl_vars[i].var);
		if (nccl_vars[i].off ? nccl_vars[i].off(v) : is_zero(v)) {
			any = 1;
			if (nccl_vars[i].intra && nccl_vars[i].off)
				sev = CD_SEV_WARNING;
		}
	}
	if (!any && !socket)
		return;
	x = findings_add(out, "nccl-transport-disabled", sev, "env",
			 "NCCL_* variables switch NCCL transports off");
	finding_detail(
		x, out->arena,
		"Multi-GPU collectives still work but fall back to slower paths. These "
		"settings are often left over from a workaround; NCCL's guide asks that "
		"debugging variables not be kept in production. Keep NCCL_P2P_DISABLE=1 only "
		"where peer-to-peer is broken (some consumer GPUs, IOMMU/ACS on).");
	for (i = 0; i < sizeof(nccl_vars) / sizeof(nccl_vars[0]); i++) {
		const char *v = facts_env_var(f, nccl_vars[i].var);
		if (nccl_vars[i].off ? nccl_vars[i].off(v) : is_zero(v)) {
			finding_evidence(x, out->arena, "%s=%s: %s", nccl_vars[i].var, v,
					 nccl_vars[i].what);
			finding_fix(x, out->arena, "unset %s", nccl_vars[i].var);
		}
	}
	if (socket) {
		finding_evidence(x, out->arena,
				 "NCCL_NET=%s: only the TCP socket transport between "
				 "nodes",
				 net);
		finding_fix(x, out->arena, "unset NCCL_NET");
	}
}

#define LDP_LIST_MAX 8 /* missing directories named one by one */

/* LD_LIBRARY_PATH without empty, relative, missing or repeated entries. */
static const char *ldp_cleaned(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_env_facts *e = &f->env;
	struct cd_buf b;
	const char *s;
	size_t i;

	buf_init(&b, (size_t)64 << 10);
	for (i = 0; i < e->n_ld_library_path; i++) {
		const struct cd_ldpath_entry *l = &e->ld_library_path[i];
		if (l->exists == CD_TRI_NO || l->path[0] != '/')
			continue;
		if ((b.len && buf_putc(&b, ':')) || buf_puts(&b, l->path)) {
			buf_free(&b);
			return NULL;
		}
	}
	s = arena_strdup(out->arena, b.p ? b.p : "");
	buf_free(&b);
	return s;
}

static void ld_library_path(const struct cd_facts *f, struct cd_findings *out)
{
	const struct cd_env_facts *e = &f->env;
	size_t i, missing = 0, relative = 0, listed = 0;
	struct cd_finding *x;
	const char *clean;

	if (!e->ld_library_path_set)
		return;
	for (i = 0; i < e->n_ld_library_path; i++) {
		relative += e->ld_library_path[i].path[0] != '/';
		missing += e->ld_library_path[i].path[0] == '/' &&
			   e->ld_library_path[i].exists == CD_TRI_NO;
	}
	if (!e->n_ld_library_path_empty && !relative && !missing && !e->n_ld_library_path_duplicate)
		return;
	x = findings_add(out, "ld-library-path-invalid",
			 e->n_ld_library_path_empty || relative ? CD_SEV_WARNING : CD_SEV_INFO,
			 "env", "LD_LIBRARY_PATH has %s",
			 e->n_ld_library_path_empty || relative
				 ? "entries that make the loader search the current directory"
				 : "entries that name no directory or repeat");
	finding_detail(x, out->arena,
		       "The dynamic loader tries LD_LIBRARY_PATH before the system directories: "
		       "an empty or relative entry loads libcudart, libnccl or libcudnn from "
		       "whatever directory a job starts in, and stale entries hide which CUDA "
		       "libraries are really used. %zu entries, %zu distinct.",
		       e->n_ld_library_path_total, e->n_ld_library_path);
	if (e->n_ld_library_path_empty)
		finding_evidence(
			x, out->arena, "%zu empty entr%s (a leading or trailing ':' or '::')",
			e->n_ld_library_path_empty, e->n_ld_library_path_empty == 1 ? "y" : "ies");
	for (i = 0; i < e->n_ld_library_path; i++) {
		const struct cd_ldpath_entry *l = &e->ld_library_path[i];
		if (l->path[0] != '/' && listed < LDP_LIST_MAX && ++listed)
			finding_evidence(x, out->arena, "%s: relative to the current directory",
					 l->path);
		else if (l->exists == CD_TRI_NO && listed < LDP_LIST_MAX && ++listed)
			finding_evidence(x, out->arena, "%s: no such directory", l->path);
	}
	if (missing + relative > listed)
		finding_evidence(x, out->arena, "... and %zu more", missing + relative - listed);
	if (e->n_ld_library_path_duplicate)
		finding_evidence(x, out->arena, "%zu entr%s an earlier one",
				 e->n_ld_library_path_duplicate,
				 e->n_ld_library_path_duplicate == 1 ? "y repeats" : "ies repeat");
	if (e->ld_library_path_truncated) {
		finding_fix(x, out->arena,
			    "# more entries than cuda-doctor examines: rebuild "
			    "LD_LIBRARY_PATH from the directories you need");
		return;
	}
	clean = ldp_cleaned(f, out);
	if (clean && *clean)
		finding_fix(x, out->arena, "export LD_LIBRARY_PATH=\"%s\"", clean);
	else if (clean)
		finding_fix(x, out->arena, "unset LD_LIBRARY_PATH");
}

void check_env(const struct cd_facts *f, struct cd_findings *out)
{
	nccl(f, out);
	ld_library_path(f, out);
}
