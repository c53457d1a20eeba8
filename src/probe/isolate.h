/* isolate: run callbacks in forked children under one monotonic deadline.
 * Each child writes kv records (format/kv.h) into a pipe; the parent polls
 * all pipes, keeps at most max_bytes per child, and on the deadline kills
 * (SIGKILL) and reaps every child still running. Each job's output buffer
 * belongs to the caller (buf_free). isolate_run fails only when no child
 * could be started; a child's own fate is in its job's status. Call it while
 * the process is single-threaded: the children run arbitrary library code. */
#ifndef CD_ISOLATE_H
#define CD_ISOLATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"

enum iso_status {
	ISO_NOT_RUN = 0, /* fork or pipe failed: see job->error */
	ISO_OK,		 /* exited with status 0 */
	ISO_EXITED,	 /* exited with a non-zero status: job->code */
	ISO_TIMEOUT,	 /* still running at the deadline; killed */
	ISO_CRASHED,	 /* killed by a signal: job->code */
	ISO_OVERFLOW	 /* wrote more than max_bytes; killed */
};

const char *iso_status_name(enum iso_status s);

/* The child's side: records are buffered and written on iso_flush, on
 * iso_stage and when the buffer fills. */
struct iso_out {
	int fd;
	size_t len;
	char buf[4096];
	int64_t *step_deadline; /* shared with the parent (step_deadlines), or NULL */
};

typedef void (*iso_fn)(struct iso_out *o, void *arg);

struct iso_job {
	iso_fn fn;
	void *arg;
	int keep_stderr;    /* 0: the child's stderr goes to /dev/null */
	int step_deadlines; /* honour the budgets the child sets with iso_step */
	/* results */
	enum iso_status status;
	int code;	    /* exit status (ISO_EXITED) or signal (ISO_CRASHED) */
	int unreaped;	    /* killed but not reaped in the grace period (stuck in the kernel) */
	int64_t elapsed_us; /* from fork to the end of the child */
	struct cd_buf out;  /* the bytes the child wrote, at most max_bytes */
	char error[128];    /* why it could not run (ISO_NOT_RUN) */
	int step_expired;   /* ISO_TIMEOUT came from a step's own deadline */
	/* private */
	int pid, rfd, pidfd, eof;
	int64_t *watch; /* the step deadline the child set (monotonic us), 0 for none */
};

#define ISO_MAX_BYTES_DEFAULT ((size_t)1 << 20)
#define ISO_JOBS_MAX	      8

/* Run n (<= ISO_JOBS_MAX) jobs concurrently; all end within timeout_ms plus
 * a short reaping grace. 0, or a CD_E* code when no job could be started. */
int isolate_run(struct iso_job *jobs, size_t n, int timeout_ms, size_t max_bytes,
		struct cd_err *err);

/* The same in two halves, so the caller can work while the children run:
 * isolate_start forks them (the deadline counts from here) and isolate_wait
 * collects them. The jobs array must live until isolate_wait returns. */
struct iso_batch {
	struct iso_job *jobs;
	size_t n, max_bytes;
	int64_t t0, deadline;
	int64_t *watch; /* one shared word per job when any asks for step deadlines */
};
int isolate_start(struct iso_batch *b, struct iso_job *jobs, size_t n, int timeout_ms,
		  size_t max_bytes, struct cd_err *err);
void isolate_wait(struct iso_batch *b);
void iso_job_free(struct iso_job *j);

/* Child side. Values longer than 255 bytes are cut. */
void iso_emit(struct iso_out *o, const char *key, const char *val);
void iso_emitf(struct iso_out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Record the call about to be made ("stage=NAME") and flush, so a parent
 * that kills a hung child knows where it hung. */
void iso_stage(struct iso_out *o, const char *name);
/* iso_stage with a budget: in a job with step_deadlines the parent kills the
 * child (ISO_TIMEOUT, step_expired) unless it reaches its next iso_step within
 * budget_ms; 0 leaves only the batch deadline. Elsewhere the same as iso_stage. */
void iso_step(struct iso_out *o, const char *name, int budget_ms);
void iso_flush(struct iso_out *o);
/* The monotonic clock the deadlines use, in microseconds. */
int64_t iso_now_us(void);

#endif
