/* collect: the raw texts of `bundle` that are no facts: `nvidia-smi -q` (an
 * isolated child under --timeout; never under --root, which names an image,
 * not this machine), /proc/driver/nvidia/version, the NVRM and Xid lines of
 * the kernel log (the ring buffer, else the syslog files; only files under
 * --root) and dpkg's installed packages. Each fills a struct col_text the
 * caller frees (col_text_free) and never fails: what could not be read is
 * said in status, one line. */
#ifndef CD_PROBE_COLLECT_H
#define CD_PROBE_COLLECT_H

#include "core/buf.h"
#include "facts/facts.h"

#define COL_SMI_MAX    ((size_t)4 << 20)  /* nvidia-smi -q of 8 GPUs is ~100 KiB */
#define COL_KLOG_TAIL  ((size_t)16 << 20) /* bytes read from the end of a syslog file */
#define COL_KLOG_LINES 2000		  /* the last NVRM / Xid lines kept */
#define COL_STATUS_MAX 320

struct col_text {
	struct cd_buf text;
	int present; /* text holds something */
	char status[COL_STATUS_MAX];
};

void col_nvidia_smi(const struct cd_facts *f, struct col_text *out);
void col_proc_version(const struct cd_facts *f, struct col_text *out);
void col_kernel_log(const struct cd_facts *f, struct col_text *out);
/* "name<TAB>arch<TAB>version" lines, in the database's order. */
void col_dpkg(const struct cd_facts *f, struct col_text *out);
void col_text_free(struct col_text *t);

#endif
