/* isolate: run callbacks and programs in forked children under one deadline.
 * Each child leads its own process group, reads /dev/null and writes into a
 * pipe the parent polls into a capped buffer; on the deadline the group gets
 * SIGKILL and a reap that cannot block. Each job's output belongs to the
 * caller (iso_job_free). isolate_run fails only when no child could start;
 * call it single-threaded: a callback child runs arbitrary library code. */
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
	ISO_TIMEOUT,	 /* still running at the deadline; its group killed */
	ISO_CRASHED,	 /* killed by a signal: job->code */
	ISO_OVERFLOW	 /* ISO_RECORDS: wrote more than max_bytes; killed */
};

const char *iso_status_name(enum iso_status s);

/* What the pipe carries, and what more than max_bytes means. */
enum iso_output {
	ISO_RECORDS = 0, /* what fn writes through iso_out (kv records); stdout goes to
			    /dev/null; more than max_bytes is a fault: ISO_OVERFLOW */
	ISO_LOG		 /* the child's stdout and stderr (and iso_linef); the first
			    max_bytes are kept, the rest counted in `dropped` */
};

/* The child's side: records are buffered and written on iso_flush, on
 * iso_stage and when the buffer fills. */
struct iso_out {
	int fd;
	int exit_code; /* the child's exit status once fn returns; 0 unless fn sets it */
	size_t len;
	char buf[4096];
	int64_t *step_deadline; /* shared with the parent (step_deadlines), or NULL */
};

typedef void (*iso_fn)(struct iso_out *o, void *arg);

struct iso_job {
	/* what the child runs: fn(o, arg) when fn is set, else the program argv */
	iso_fn fn;
	void *arg;
	char *const *argv;	/* argv[0]: a path, or a name looked up on PATH */
	char *const *envp;	/* NULL: this process's environment */
	const char *cwd;	/* NULL: this process's directory */
	enum iso_output output; /* fn's; a program's output is always ISO_LOG */
	int keep_stderr;	/* ISO_RECORDS: 1 leaves stderr as it is, 0 sends it to /dev/null */
	int step_deadlines;	/* honour the budgets the child sets with iso_step */
	const char *stdin_path; /* NULL: /dev/null; else the file the child reads as stdin */
	const char *stderr_path; /* ISO_LOG: NULL sends stderr into the pipe with stdout;
				    else the file (created, truncated) that gets it */
	/* fn jobs: the answer is complete when fn returns. The child then writes
	 * an end record and closes its pipe, and the parent takes the job as
	 * ended (ISO_OK) without waiting for the exit: a driver library's
	 * teardown as the process exits (3 ms on an H200) no longer delays the
	 * caller. A child that ends without the record is reaped as any other
	 * (a crash is still a crash). isolate_reap_detached reaps the rest. */
	int early_end;
	/* results */
	enum iso_status status;
	int code;	    /* exit status (ISO_OK, ISO_EXITED) or signal (ISO_CRASHED) */
	int unreaped;	    /* killed but not reaped in the grace period (stuck in the kernel) */
	int64_t elapsed_us; /* from the start of the batch to the end of the child */
	struct cd_buf out;  /* the bytes the child wrote, at most max_bytes */
	size_t dropped;	    /* bytes read past max_bytes and not kept */
	char error[128];    /* why it could not run (ISO_NOT_RUN) */
	int step_expired;   /* ISO_TIMEOUT came from a step's own deadline */
	/* The child's pid, which is also its process group's id, from
	 * isolate_start until it is reaped (-1 after, and when it did not start):
	 * what a signal handler would forward to with kill(-pid, sig). */
	int pid;
	/* private */
	int rfd, pidfd, eof;
	int64_t *watch; /* the step deadline the child set (monotonic us), 0 for none */
};

#define ISO_MAX_BYTES_DEFAULT ((size_t)1 << 20)
#define ISO_JOBS_MAX	      8

/* Run n (<= ISO_JOBS_MAX) jobs concurrently; all end within timeout_ms plus
 * a short reaping grace. 0, or a CD_E* code when no job could be started. */
CD_WUR int isolate_run(struct iso_job *jobs, size_t n, int timeout_ms, size_t max_bytes,
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
CD_WUR int isolate_start(struct iso_batch *b, struct iso_job *jobs, size_t n, int timeout_ms,
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
/* ISO_LOG: one line of plain text (up to 4 KiB; the newline is added),
 * written at once so that what the libraries the child calls print lands
 * after it, in order. */
void iso_linef(struct iso_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The pieces of a child's start and end, shared with callers that stream a
 * program's output themselves (cli/run.c). */
/* A pipe for a child's output: both ends close on exec; the read end does not block. */
CD_WUR int iso_pipe(int fds[2], struct cd_err *err);
/* In a forked child: change to cwd (when set) and execute argv (envp NULL:
 * this environment). On failure write "<who><argv[0]>: <reason>" to stderr
 * and _exit with 127 when there is no such program, else 126 (as a shell). */
__attribute__((noreturn)) void iso_exec(char *const argv[], char *const envp[], const char *cwd,
					const char *who);
/* Collect the end of child pid, waiting for it when block is set. 1 when it
 * has ended (*status ISO_OK, ISO_EXITED or ISO_CRASHED, *code the exit status
 * or the signal), 0 while it runs, CD_EIO when pid is no child of ours. */
CD_WUR int iso_reap(int pid, int block, enum iso_status *status, int *code, struct cd_err *err);

/* Wait for the children of early_end jobs that were still exiting when
 * their job was taken as ended (before reading RUSAGE_CHILDREN, say). */
void isolate_reap_detached(void);

/* The monotonic clock the deadlines use, in microseconds. */
int64_t iso_now_us(void);

#endif
