/* jit_exec: see jit_exec.h. One pipe carries the child's output; the parent
 * polls it with the remaining time as the timeout, so a silent child that
 * never exits is still killed on time, and a child that exits while its own
 * children keep the pipe open is waited for only until the deadline. */
#include "probe/jit/jit_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* In the child: own group, stdin from /dev/null, stdout/stderr to fd. */
static void child_setup(int fd)
{
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
}

static void drain(int fd, struct cd_buf *out, size_t cap, struct jit_exec_result *r, int *open_)
{
	char chunk[8192];
	ssize_t got = read(fd, chunk, sizeof(chunk));

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		*open_ = 0;
		return;
	}
	if (out && out->len < cap) {
		size_t take = (size_t)got < cap - out->len ? (size_t)got : cap - out->len;
		if (buf_append(out, chunk, take) != 0)
			take = 0;
		r->dropped += (size_t)got - take;
	} else {
		r->dropped += (size_t)got;
	}
}

/* Parent side: read until EOF and exit, or until the deadline. */
static int supervise(pid_t pid, int fd, int timeout_ms, struct cd_buf *out, size_t cap,
		     struct jit_exec_result *r)
{
	long start = now_ms(), deadline = start + timeout_ms;
	int open_ = 1, status = 0, reaped = 0;

	while (open_ || !reaped) {
		long left = deadline - now_ms();
		struct pollfd pfd = {fd, POLLIN, 0};
		if (!reaped && waitpid(pid, &status, WNOHANG) == pid)
			reaped = 1;
		if (left <= 0) {
			r->timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		if (!open_) {
			/* Output closed; wait for the exit in small steps. */
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(&pfd, 1, (int)(left < 50 ? left : 50)) > 0)
			drain(fd, out, cap, r, &open_);
	}
	if (!reaped) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fd);
	r->elapsed_ms = now_ms() - start;
	if (WIFEXITED(status) && !r->timed_out)
		r->exit_code = WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		r->signal = WTERMSIG(status);
	return 0;
}

static int start(int *fds, struct jit_exec_result *r)
{
	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return CD_EIO;
	return 0;
}

/* What a child runs: a program (argv, envp, cwd), or fn(arg, fd). */
struct job {
	char *const *argv, *const *envp;
	const char *cwd;
	int (*fn)(void *arg, int fd);
	void *arg;
};

__attribute__((noreturn)) static void child_run(const struct job *j)
{
	if (j->fn)
		_exit(j->fn(j->arg, STDOUT_FILENO) & 0xff);
	if (j->cwd && chdir(j->cwd) != 0)
		_exit(126);
	if (j->envp)
		execve(j->argv[0], j->argv, j->envp);
	else
		execvp(j->argv[0], j->argv);
	dprintf(STDERR_FILENO, "cannot execute %s: %s\n", j->argv[0], strerror(errno));
	_exit(127);
}

static int spawn(const struct job *j, int timeout_ms, struct cd_buf *out, size_t cap,
		 struct jit_exec_result *r)
{
	int fds[2];
	pid_t pid;

	if (start(fds, r))
		return CD_EIO;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return CD_EIO;
	}
	if (pid == 0) {
		child_setup(fds[1]);
		child_run(j);
	}
	close(fds[1]);
	r->started = 1;
	return supervise(pid, fds[0], timeout_ms, out, cap, r);
}

int jit_exec(char *const argv[], char *const envp[], const char *cwd, int timeout_ms,
	     struct cd_buf *out, size_t cap, struct jit_exec_result *r)
{
	struct job j = {argv, envp, cwd, NULL, NULL};

	return spawn(&j, timeout_ms, out, cap, r);
}

int jit_exec_fn(int (*fn)(void *arg, int fd), void *arg, int timeout_ms, struct cd_buf *out,
		size_t cap, struct jit_exec_result *r)
{
	struct job j = {NULL, NULL, NULL, fn, arg};

	return spawn(&j, timeout_ms, out, cap, r);
}
