/* isolate: see isolate.h. The parent never blocks without a deadline: pipes
 * and (where the kernel has them) pidfds are polled against one monotonic
 * deadline, and a child killed at the deadline gets a short grace to be
 * reaped; one stuck in uninterruptible sleep inside a driver call is left
 * behind rather than hanging the tool. The child resets signal dispositions
 * so a crash is reported as a crash, points stdin/stdout (and by default
 * stderr) at /dev/null so a chatty library cannot corrupt the report, asks to
 * be killed if the parent dies, and leaves with _exit. */
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

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every Linux architecture */
#endif

#define REAP_GRACE_MS 200

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

/* ---- child side ---------------------------------------------------------- */

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

void iso_flush(struct iso_out *o)
{
	if (o->len)
		write_all(o->fd, o->buf, o->len);
	o->len = 0;
}

void iso_emit(struct iso_out *o, const char *key, const char *val)
{
	char line[1200], cut[256];
	size_t n;

	str_copy(cut, sizeof(cut), val ? val : "");
	n = kv_encode(line, sizeof(line), key, cut);
	if (!n)
		return;
	if (o->len + n > sizeof(o->buf))
		iso_flush(o);
	memcpy(o->buf + o->len, line, n);
	o->len += n;
}

void iso_emitf(struct iso_out *o, const char *key, const char *fmt, ...)
{
	char v[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	iso_emit(o, key, v);
}

void iso_stage(struct iso_out *o, const char *name)
{
	iso_emit(o, "stage", name);
	iso_flush(o);
}

/* The deadline is stored before the stage record is written, so the parent,
 * woken by the record, already sees the new budget (CLOCK_MONOTONIC is one
 * clock for every process). */
void iso_step(struct iso_out *o, const char *name, int budget_ms)
{
	if (o->step_deadline)
		__atomic_store_n(o->step_deadline,
				 budget_ms > 0 ? now_us() + (int64_t)budget_ms * 1000 : 0,
				 __ATOMIC_SEQ_CST);
	iso_stage(o, name);
}

static void child_setup(struct iso_job *jobs, size_t n, size_t me, pid_t parent)
{
	static const int sigs[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE,  SIGABRT, SIGPIPE, SIGTERM,
				   SIGINT,  SIGQUIT, SIGHUP, SIGALRM, SIGCHLD, SIGUSR1, SIGUSR2};
	sigset_t none;
	size_t i;
	int null;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
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
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		if (!jobs[me].keep_stderr)
			dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
}

/* ---- parent side --------------------------------------------------------- */

static int start(struct iso_job *jobs, size_t n, size_t me)
{
	struct iso_job *j = &jobs[me];
	pid_t parent = getpid(), pid;
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(j->error, sizeof(j->error), "pipe: %s", strerror(errno));
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
		struct iso_out o;
		close(p[0]);
		child_setup(jobs, n, me, parent);
		memset(&o, 0, sizeof(o));
		o.fd = p[1];
		o.step_deadline = j->watch;
		j->fn(&o, j->arg);
		iso_flush(&o);
		_exit(0);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	j->pid = pid;
	j->rfd = p[0];
	j->pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* -1 before Linux 5.3 */
	return 0;
}

/* Read what the child has written, up to max bytes in all. 1 on overflow. */
static int drain(struct iso_job *j, size_t max)
{
	char chunk[16384];

	while (j->rfd >= 0) {
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
		if (j->out.len + (size_t)got > max) {
			buf_append(&j->out, chunk, max - j->out.len);
			return 1;
		}
		if (buf_append(&j->out, chunk, (size_t)got))
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
	j->pid = -1;
	j->elapsed_us = now_us() - t0;
}

/* 1 when the child was reaped (status filled), 0 while it runs. */
static int reap(struct iso_job *j, int64_t t0)
{
	int st = 0;
	pid_t r;

	do
		r = waitpid(j->pid, &st, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0) {
		j->status = ISO_EXITED; /* not our child any more (SIGCHLD ignored?) */
		j->code = -1;
	} else if (WIFSIGNALED(st)) {
		j->status = ISO_CRASHED;
		j->code = WTERMSIG(st);
	} else {
		j->code = WEXITSTATUS(st);
		j->status = j->code == 0 ? ISO_OK : ISO_EXITED;
	}
	finish(j, t0);
	return 1;
}

static void kill_reap(struct iso_job *j, enum iso_status why, size_t max, int64_t t0)
{
	int64_t until = now_us() + REAP_GRACE_MS * 1000;

	drain(j, max); /* keep the records written before the hang */
	kill(j->pid, SIGKILL);
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
		if (j->eof && reap(j, t0))
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
	while (poll_round(b->jobs, b->n, b->deadline, b->max_bytes, b->t0))
		;
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
