/* isolate: see isolate.h. The parent never blocks without a deadline: pipes
 * and (where the kernel has them) pidfds are polled against one monotonic
 * deadline, and a child killed at the deadline gets a short grace to be
 * reaped; one stuck in uninterruptible sleep inside a driver call is left
 * behind rather than hanging the tool. The child makes its own process group
 * (so the kill reaches what it started), resets signal dispositions so a
 * crash is reported as a crash, reads /dev/null, points stdout (and by default
 * stderr) at /dev/null so a chatty library cannot corrupt the report, or both
 * into the pipe for a program, asks to be killed if the parent dies, and
 * leaves with _exit, or becomes the program. The parent keeps the first
 * max_bytes: past them a callback's records are a fault, a program's log is
 * read on and counted, so it never blocks on a full pipe. */
#include "probe/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/str.h"
#include "format/kv.h"
#include "probe/interrupt.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every Linux architecture */
#endif

#define REAP_GRACE_MS 200
#define INTR_GRACE_MS 1000	/* interrupted: how long a child may take to exit */
#define DRAIN_READS   64	/* 1 MiB per poll round and job */
#define END_KEY	      "iso_end" /* the last record of an early_end job */

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t iso_now_us(void)
{
	return now_us();
}

const char *iso_status_name(enum iso_status s)
{
	switch (s) {
	case ISO_OK: return "ok";
	case ISO_EXITED: return "exited";
	case ISO_TIMEOUT: return "timeout";
	case ISO_CRASHED: return "crashed";
	case ISO_OVERFLOW: return "overflow";
	default: return "not-run";
	}
}

static enum iso_output output_of(const struct iso_job *j)
{
	return j->fn ? j->output : ISO_LOG;
}

/* In the child: fd `to` becomes the file at path; a file that cannot be
 * opened leaves `to` as it was (/dev/null, or the pipe). */
static void redirect(const char *path, int flags, int to)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOCTTY, 0600);

	if (fd < 0)
		return;
	dup2(fd, to);
	close(fd);
}

/* Own process group, default signals, stdin from /dev/null, stdout and
 * stderr to /dev/null or into the pipe (wfd), the other jobs' ends closed.
 * Returns the pipe's descriptor, moved above stderr if it was not. */
static int child_setup(struct iso_job *jobs, size_t n, size_t me, pid_t parent, int wfd)
{
	static const int sigs[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,  SIGABRT, SIGPIPE, SIGTERM,
				   SIGINT,  SIGQUIT, SIGHUP, SIGALRM, SIGCHLD, SIGUSR1, SIGUSR2};
	const struct iso_job *j = &jobs[me];
	int log = output_of(j) == ISO_LOG;
	sigset_t none;
	size_t i;
	int null;

	setpgid(0, 0); /* the deadline kills the group: grandchildren too */
	intr_child();
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	if (j->keep_stderr && !log)
		signal(SIGTTOU, SIG_IGN); /* a background group may still write to the tty */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127); /* the parent is already gone */
	for (i = 0; i < n; i++) {
		if (i != me && jobs[i].rfd >= 0)
			close(jobs[i].rfd);
		if (i != me && jobs[i].pidfd >= 0)
			close(jobs[i].pidfd);
	}
	if (wfd <= STDERR_FILENO) /* our own stdout or stderr was closed */
		wfd = fcntl(wfd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (j->stdin_path)
		redirect(j->stdin_path, O_RDONLY, STDIN_FILENO);
	if (log) {
		dup2(wfd, STDOUT_FILENO);
		dup2(wfd, STDERR_FILENO);
		if (j->stderr_path)
			redirect(j->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, STDERR_FILENO);
	} else if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		if (!j->keep_stderr)
			dup2(null, STDERR_FILENO);
	}
	if (null > STDERR_FILENO)
		close(null);
	return wfd;
}

__attribute__((noreturn)) static void child_run(struct iso_job *jobs, size_t n, size_t me,
						pid_t parent, int wfd)
{
	struct iso_job *j = &jobs[me];
	struct iso_out o;

	wfd = child_setup(jobs, n, me, parent, wfd);
	if (!j->fn)
		iso_exec(j->argv, j->envp, j->cwd, "cannot execute ");
	memset(&o, 0, sizeof(o));
	o.fd = wfd;
	o.step_deadline = j->watch;
	j->fn(&o, j->arg);
	if (j->early_end && o.exit_code == 0) {
		iso_emit(&o, END_KEY, "1");
		iso_flush(&o);
		close(o.fd);
	}
	iso_flush(&o);
	_exit(o.exit_code & 0xff);
}

/* ---- parent side --------------------------------------------------------- */

int iso_pipe(int fds[2], struct cd_err *err)
{
	if (pipe2(fds, O_CLOEXEC) != 0) {
		fds[0] = fds[1] = -1;
		return err_set(err, CD_EIO, "pipe: %s", strerror(errno));
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	return 0;
}

static int start(struct iso_job *jobs, size_t n, size_t me)
{
	struct iso_job *j = &jobs[me];
	pid_t parent = getpid(), pid;
	struct cd_err err;
	int p[2];

	if (!j->fn && (!j->argv || !j->argv[0])) {
		str_copy(j->error, sizeof(j->error), "neither a function nor a program");
		return -1;
	}
	if (iso_pipe(p, &err)) {
		str_copy(j->error, sizeof(j->error), err.msg);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(j->error, sizeof(j->error), "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		child_run(jobs, n, me, parent, p[1]);
	}
	close(p[1]);
	setpgid(pid, pid); /* as the child does: the group exists before any kill */
	intr_group_add(pid);
	j->pid = pid;
	j->rfd = p[0];
	j->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* -1 before Linux 5.3 */
	return 0;
}

/* Keep what fits under max, count the rest. 1 when bytes were dropped. */
static int keep(struct iso_job *j, const char *p, size_t n, size_t max)
{
	size_t room = j->out.len < max ? max - j->out.len : 0, take = n < room ? n : room;

	if (take && buf_append(&j->out, p, take))
		take = 0;
	j->dropped += n - take;
	return take < n;
}

/* Read what the child has written, a bounded amount per call so that a
 * flood cannot keep the parent from its deadline. 1 when an ISO_RECORDS
 * child overflowed. */
static int drain(struct iso_job *j, size_t max)
{
	char chunk[16384];
	int reads = 0;

	while (j->rfd >= 0 && reads++ < DRAIN_READS) {
		ssize_t got = read(j->rfd, chunk, sizeof(chunk));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return 0; /* EAGAIN: nothing more for now */
		if (got == 0) {
			j->eof = 1;
			close(j->rfd);
			j->rfd = -1;
			return 0;
		}
		if (keep(j, chunk, (size_t)got, max) && output_of(j) == ISO_RECORDS)
			return 1;
	}
	return 0;
}

static void finish(struct iso_job *j, int64_t t0)
{
	if (j->rfd >= 0)
		close(j->rfd);
	if (j->pidfd >= 0)
		close(j->pidfd);
	j->rfd = j->pidfd = -1;
	if (j->pid > 0)
		intr_group_del(j->pid);
	j->pid = -1;
	j->elapsed_us = now_us() - t0;
}

int iso_reap(int pid, int block, enum iso_status *status, int *code, struct cd_err *err)
{
	int st = 0;
	pid_t r;

	do
		r = waitpid(pid, &st, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0)
		return err_set(err, CD_EIO, "waitpid %d: %s", pid, strerror(errno));
	if (WIFSIGNALED(st)) {
		*status = ISO_CRASHED;
		*code = WTERMSIG(st);
	} else {
		*code = WEXITSTATUS(st);
		*status = *code == 0 ? ISO_OK : ISO_EXITED;
	}
	return 1;
}

/* The children of early_end jobs taken as ended while they still exited. */
static int detached[ISO_JOBS_MAX * 4];
static size_t n_detached;

static int ends_with_end(const struct iso_job *j)
{
	static const char rec[] = "\n" END_KEY "=1\n";
	size_t n = sizeof(rec) - 1;

	if (!j->out.p || j->out.len + 1 < n)
		return 0;
	if (j->out.len + 1 == n) /* the only record */
		return !memcmp(j->out.p, rec + 1, n - 1);
	return !memcmp(j->out.p + j->out.len - n, rec, n);
}

/* An early_end job whose pipe ended with its end record: ended, whether or
 * not its exit is visible yet. 0 when it is not such a job (or no room is
 * left to remember the child, which is then reaped as usual). */
static int detach(struct iso_job *j, int64_t t0)
{
	int pid = j->pid, rc;

	if (!j->early_end || !ends_with_end(j) ||
	    n_detached >= sizeof(detached) / sizeof(*detached))
		return 0;
	rc = iso_reap(pid, 0, &j->status, &j->code, NULL);
	if (rc <= 0) { /* still exiting (or not ours to wait for): the answer is whole */
		if (rc == 0)
			detached[n_detached++] = pid;
		j->status = ISO_OK;
		j->code = 0;
	}
	finish(j, t0);
	return 1;
}

void isolate_reap_detached(void)
{
	int64_t until = now_us() + REAP_GRACE_MS * 1000 * 5;
	enum iso_status st;
	int code;
	size_t i;

	/* Bounded: a child stuck in the kernel is left to init. */
	for (i = 0; i < n_detached; i++)
		while (iso_reap(detached[i], 0, &st, &code, NULL) == 0 && now_us() < until)
			poll(NULL, 0, 1);
	n_detached = 0;
}

/* 1 when the child was reaped (status filled), 0 while it runs. */
static int reap(struct iso_job *j, int64_t t0)
{
	int rc = iso_reap(j->pid, 0, &j->status, &j->code, NULL);

	if (rc == 0)
		return 0;
	if (rc < 0) {
		j->status = ISO_EXITED; /* not our child any more (SIGCHLD ignored?) */
		j->code = -1;
	}
	finish(j, t0);
	return 1;
}

static void kill_reap(struct iso_job *j, enum iso_status why, size_t max, int64_t t0)
{
	int64_t until = now_us() + REAP_GRACE_MS * 1000;

	drain(j, max);		/* keep the records written before the hang */
	kill(-j->pid, SIGKILL); /* the group: what the child started dies with it */
	kill(j->pid, SIGKILL);	/* in case it had not made its group yet */
	while (!reap(j, t0)) {
		int64_t left = until - now_us();
		if (left <= 0) {
			j->unreaped = 1;
			finish(j, t0);
			break;
		}
		if (j->pidfd >= 0) {
			struct pollfd p = {j->pidfd, POLLIN, 0};
			poll(&p, 1, (int)((left + 999) / 1000));
		} else {
			poll(NULL, 0, 1);
		}
	}
	j->status = why;
	j->code = 0;
}

/* Kill the jobs whose current step overran its own deadline; the earliest
 * step deadline still ahead, or `deadline` when that comes first. */
static int64_t step_deadlines(struct iso_job *jobs, size_t n, int64_t deadline, size_t max,
			      int64_t t0)
{
	int64_t now = now_us();
	size_t i;

	for (i = 0; i < n; i++) {
		struct iso_job *j = &jobs[i];
		int64_t d = j->watch ? __atomic_load_n(j->watch, __ATOMIC_SEQ_CST) : 0;
		if (j->pid <= 0 || d <= 0)
			continue;
		if (d <= now) {
			kill_reap(j, ISO_TIMEOUT, max, t0);
			j->step_expired = 1;
		} else if (d < deadline) {
			deadline = d;
		}
	}
	return deadline;
}

/* One poll round over the running jobs; 0 when none is left. */
static int poll_round(struct iso_job *jobs, size_t n, int64_t deadline, size_t max, int64_t t0)
{
	struct pollfd pfd[ISO_JOBS_MAX];
	size_t owner[ISO_JOBS_MAX], i, k, nfds = 0;
	int tick = 0, running = 0, ms;
	int64_t left, wake = step_deadlines(jobs, n, deadline, max, t0);

	for (i = 0; i < n; i++) {
		struct iso_job *j = &jobs[i];
		if (j->pid <= 0)
			continue;
		if (j->eof && (detach(j, t0) || reap(j, t0)))
			continue;
		running = 1;
		if (!j->eof)
			pfd[nfds] = (struct pollfd){j->rfd, POLLIN, 0};
		else if (j->pidfd >= 0)
			pfd[nfds] = (struct pollfd){j->pidfd, POLLIN, 0};
		else {
			tick = 1; /* pipe closed, exit not yet visible, no pidfd */
			continue;
		}
		owner[nfds++] = i;
	}
	if (!running)
		return 0;
	left = deadline - now_us();
	if (left <= 0)
		return 0;
	if (wake < deadline)
		left = wake - now_us() > 0 ? wake - now_us() : 0;
	ms = (int)((left + 999) / 1000);
	if (tick && ms > 1)
		ms = 1;
	if (poll(pfd, nfds, ms) < 0 && errno != EINTR)
		poll(NULL, 0, 1); /* should not happen; never spin */
	for (k = 0; k < nfds; k++) {
		struct iso_job *j = &jobs[owner[k]];
		if (!pfd[k].revents || j->pid <= 0)
			continue;
		if (!j->eof && drain(j, max))
			kill_reap(j, ISO_OVERFLOW, max, t0);
	}
	return 1;
}

static void unshare_watch(struct iso_batch *b, struct iso_job *jobs, size_t n)
{
	size_t i;

	if (!b->watch)
		return;
	for (i = 0; i < n; i++)
		jobs[i].watch = NULL;
	munmap(b->watch, n * sizeof(int64_t));
	b->watch = NULL;
}

/* One shared, zeroed word per job for the step deadlines; without it (mmap
 * failed) only the batch deadline applies. */
static void share_watch(struct iso_batch *b, struct iso_job *jobs, size_t n)
{
	void *m;
	size_t i, want = 0;

	for (i = 0; i < n; i++)
		want |= (size_t)(jobs[i].step_deadlines != 0);
	if (!want)
		return;
	m = mmap(NULL, n * sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		 0);
	if (m == MAP_FAILED)
		return;
	b->watch = m;
	for (i = 0; i < n; i++)
		if (jobs[i].step_deadlines)
			jobs[i].watch = &b->watch[i];
}

int isolate_start(struct iso_batch *b, struct iso_job *jobs, size_t n, int timeout_ms,
		  size_t max_bytes, struct cd_err *err)
{
	size_t i, started = 0;

	b->jobs = jobs;
	b->n = 0;
	b->watch = NULL;
	if (n == 0 || n > ISO_JOBS_MAX)
		return err_set(err, CD_EINTERNAL, "isolate_run: %zu jobs", n);
	b->max_bytes = max_bytes ? max_bytes : ISO_MAX_BYTES_DEFAULT;
	if (timeout_ms < 1)
		timeout_ms = 1;
	b->t0 = now_us();
	b->deadline = b->t0 + (int64_t)timeout_ms * 1000;
	for (i = 0; i < n; i++) {
		jobs[i].status = ISO_NOT_RUN;
		jobs[i].code = jobs[i].unreaped = jobs[i].eof = 0;
		jobs[i].dropped = 0;
		jobs[i].pid = jobs[i].rfd = jobs[i].pidfd = -1;
		jobs[i].elapsed_us = 0;
		jobs[i].error[0] = '\0';
		jobs[i].step_expired = 0;
		jobs[i].watch = NULL;
		buf_init(&jobs[i].out, b->max_bytes);
	}
	share_watch(b, jobs, n);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < n; i++)
		started += start(jobs, n, i) == 0;
	if (!started) {
		unshare_watch(b, jobs, n);
		return err_set(err, CD_EIO, "cannot start an isolated child: %s", jobs[0].error);
	}
	b->n = n;
	return 0;
}

void isolate_wait(struct iso_batch *b)
{
	size_t i;

	if (!b->n)
		return;
	while (poll_round(b->jobs, b->n, b->deadline, b->max_bytes, b->t0)) {
		/* Interrupted: the groups have the signal; one that ignores it is
		 * killed after the grace, not at the batch deadline. */
		int64_t soon = now_us() + INTR_GRACE_MS * 1000;
		if (intr_signal() && b->deadline > soon)
			b->deadline = soon;
	}
	for (i = 0; i < b->n; i++)
		if (b->jobs[i].pid > 0)
			kill_reap(&b->jobs[i], ISO_TIMEOUT, b->max_bytes, b->t0);
	unshare_watch(b, b->jobs, b->n);
	b->n = 0;
}

int isolate_run(struct iso_job *jobs, size_t n, int timeout_ms, size_t max_bytes,
		struct cd_err *err)
{
	struct iso_batch b;
	int rc = isolate_start(&b, jobs, n, timeout_ms, max_bytes, err);

	if (rc)
		return rc;
	isolate_wait(&b);
	return 0;
}

void iso_job_free(struct iso_job *j)
{
	if (j)
		buf_free(&j->out);
}
