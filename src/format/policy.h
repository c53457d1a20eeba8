/* policy: the requirement language of `cuda-doctor gate` (docs/gate.md): one
 * requirement per line ("driver >= 535", "torch >= 2.3, < 2.6", "header
 * cusparse.h", "package flash-attn", "no-errors", "allow ID"), '#' comments.
 * Untrusted bytes, bounded by POLICY_LINE_MAX and the caller's rule array;
 * rules are copied into caller storage, nothing is allocated. A line that
 * does not parse is CD_EFORMAT with "line N: reason" in err. */
#ifndef CD_POLICY_H
#define CD_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define POLICY_LINE_MAX 1024 /* bytes of one line, comment included */
#define POLICY_CMP_MAX	4    /* clauses of one comparison ("> 1, < 2") */
#define POLICY_NAME_MAX 128  /* a header, package or finding id */
#define POLICY_VAL_MAX	64   /* one clause's value as written */

enum policy_subject {
	POLICY_DRIVER = 0,   /* driver.version */
	POLICY_CUDA,	     /* the CUDA the driver supports (driver.cuda_version) */
	POLICY_CUDA_RUNTIME, /* libcudart torch loads */
	POLICY_TORCH,	     /* torch's version, PEP 440 */
	POLICY_TORCH_CUDA,   /* torch.version.cuda */
	POLICY_CUDNN,
	POLICY_NCCL,
	POLICY_NVCC, /* nvcc of the toolkit extension builds use */
	POLICY_PYTHON,
	POLICY_GPU_COUNT,
	POLICY_GPU_CC,
	POLICY_GPU_MEMORY,
	POLICY_HEADER,	/* header NAME: in the toolkit's include directory */
	POLICY_PACKAGE, /* package NAME [PEP 440 specifier] */
	POLICY_NO_ERRORS,
	POLICY_NO_WARNINGS,
	POLICY_PROBE, /* the quick live probe passes */
	POLICY_ALLOW  /* allow ID: not a requirement; no-errors ignores the finding */
};

/* How a subject's value compares. */
enum policy_kind {
	POLICY_KIND_VERSION = 0, /* dotted numbers: 535, 12.1, 2.18.3 */
	POLICY_KIND_PEP440,	 /* a PEP 440 specifier set */
	POLICY_KIND_COUNT,	 /* a whole number */
	POLICY_KIND_BYTES,	 /* a size: 80GiB, 80GB, 85899345920 */
	POLICY_KIND_NONE	 /* no comparison */
};

enum policy_op { POLICY_GE = 0, POLICY_GT, POLICY_LE, POLICY_LT, POLICY_EQ, POLICY_NE };

struct policy_cmp {
	enum policy_op op;
	char value[POLICY_VAL_MAX]; /* as written */
	uint64_t num;		    /* COUNT and BYTES: the number */
};

struct policy_rule {
	enum policy_subject subject;
	enum policy_kind kind;
	size_t line;		    /* 1-based; 0 for one given on the command line */
	char text[POLICY_LINE_MAX]; /* the requirement as written, comment dropped */
	char name[POLICY_NAME_MAX]; /* header, package (PEP 503 normalised), allowed id */
	char spec[POLICY_LINE_MAX]; /* PEP440: the specifier set as written ("" = any) */
	size_t n_cmp;		    /* VERSION, COUNT, BYTES: 0 means "known / present" */
	struct policy_cmp cmp[POLICY_CMP_MAX];
};

/* The subject's name as the language writes it ("gpu.cc"), and its kind. */
const char *policy_subject_name(enum policy_subject s);
enum policy_kind policy_subject_kind(enum policy_subject s);
const char *policy_op_str(enum policy_op op);

/* One requirement (no newline). 1 when it held one, 0 for a blank or comment
 * line, CD_EFORMAT with "line N: reason" (line 0: just the reason). */
CD_WUR int policy_parse_line(const uint8_t *p, size_t n, size_t line, struct policy_rule *out,
			     struct cd_err *err);
/* A whole policy: at most cap rules into rules, *n_out of them. More than cap
 * is CD_ERANGE naming the line. */
CD_WUR int policy_parse(const uint8_t *p, size_t n, struct policy_rule *rules, size_t cap,
			size_t *n_out, struct cd_err *err);
/* Dotted-number comparison of a value found on the machine ("580.65.06",
 * "9.1.0.70", "12.4") with a clause's: *res gets 1 when it holds. CD_EFORMAT
 * when found does not start with a version ("N/A", "unknown"). */
CD_WUR int policy_version_holds(const char *found, const struct policy_cmp *c, int *res);

#endif
