/* run: `cuda-doctor run [--log FILE] [--no-env] -- CMD [ARGS...]` - run a
 * command with its stdout and stderr on pipes, pass both through unchanged
 * as they arrive, scan the output as it streams (whole lines, both streams
 * merged, the same bytes --log keeps), and when the command fails print the
 * diagnosis to stderr. The exit status is the command's (128+N for signal N,
 * 127 when it cannot be started). Memory is bounded: one read buffer, one
 * partial line per stream, the scanner's buffer. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/explain.h"
#include "probe/isolate.h"

#define PART_MAX ((size_t)64 << 10) /* a partial line kept per stream */
#define READ_MAX ((size_t)64 << 10)

struct part {
	uint8_t buf[PART_MAX];
	size_t len;
};

struct runctx {
	struct xs_scanner *sc; /* NULL: the engine did not load; pass through only */
	int log_fd;	       /* -1 without --log */
	int log_failed;
	struct part part[2]; /* stdout, stderr */
	int out_closed[2];   /* our own stdout/stderr went away (EPIPE) */
};

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Whole lines go to the log and the scanner, so line numbers match --log. */
static void sink(struct runctx *c, const uint8_t *p, size_t n)
{
	if (!n)
		return;
	if (c->log_fd >= 0 && !c->log_failed && write_all(c->log_fd, p, n)) {
		c->log_failed = 1;
		fprintf(stderr, "cuda-doctor run: writing the log: %s\n", strerror(errno));
	}
	if (c->sc && xs_feed(c->sc, p, n))
		c->sc = NULL; /* keep passing through even if the scanner breaks */
}

static size_t last_break(const uint8_t *p, size_t n)
{
	while (n && p[n - 1] != '\n' && p[n - 1] != '\r')
		n--;
	return n;
}

static void take(struct runctx *c, int s, const uint8_t *p, size_t n)
{
	struct part *pt = &c->part[s];
	size_t lb = last_break(p, n);

	if (lb) {
		sink(c, pt->buf, pt->len);
		pt->len = 0;
		sink(c, p, lb);
		p += lb;
		n -= lb;
	}
	while (n) {
		size_t k = PART_MAX - pt->len;
		if (!k) { /* a line longer than PART_MAX goes out in pieces */
			sink(c, pt->buf, pt->len);
			pt->len = 0;
			continue;
		}
		if (k > n)
			k = n;
		memcpy(pt->buf + pt->len, p, k);
		pt->len += k;
		p += k;
		n -= k;
	}
}

/* The command keeps our stdin, process group and signal dispositions (it is
 * the user's, run in the foreground), unlike an isolated child; only its
 * output goes through us. */
static pid_t start(char **cmd, int out[2], int err[2])
{
	pid_t pid;

	if (iso_pipe(out, NULL) || iso_pipe(err, NULL))
		return -1;
	pid = fork();
	if (pid != 0)
		return pid;
	/* child */
	signal(SIGPIPE, SIG_DFL);
	if (dup2(out[1], STDOUT_FILENO) < 0 || dup2(err[1], STDERR_FILENO) < 0)
		_exit(126);
	iso_exec(cmd, NULL, NULL, "cuda-doctor run: ");
}

/* The command has exited (not reaped: wait_child does that). */
static int exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Until both pipes close, or the command has exited and what its pipes hold
 * now is read: a background child it left (`sleep 15 &`) keeps the pipes
 * open, and its output is not the command's. */
static void pump(struct runctx *c, int fds[2], pid_t pid)
{
	static uint8_t buf[READ_MAX];
	struct pollfd pf[2];
	int s, n, gone = 0;
	size_t drained = 0;

	while (fds[0] >= 0 || fds[1] >= 0) {
		for (s = 0; s < 2; s++) {
			pf[s].fd = fds[s];
			pf[s].events = POLLIN;
			pf[s].revents = 0;
		}
		n = poll(pf, 2, gone ? 0 : 100);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (gone && (n == 0 || drained > 16 * READ_MAX)))
			break;
		if (n == 0) {
			gone = exited(pid);
			continue;
		}
		for (s = 0; s < 2; s++) {
			ssize_t k;
			if (fds[s] < 0 || !(pf[s].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = read(fds[s], buf, sizeof(buf));
			if (k < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (k <= 0) {
				close(fds[s]);
				fds[s] = -1;
				sink(c, c->part[s].buf, c->part[s].len);
				c->part[s].len = 0;
				continue;
			}
			if (!c->out_closed[s] && write_all(s + 1, buf, (size_t)k))
				c->out_closed[s] = 1;
			take(c, s, buf, (size_t)k);
			drained += gone ? (size_t)k : 0;
		}
	}
	for (s = 0; s < 2; s++) {
		if (fds[s] < 0)
			continue;
		close(fds[s]);
		fds[s] = -1;
		sink(c, c->part[s].buf, c->part[s].len);
		c->part[s].len = 0;
	}
}

static int wait_child(pid_t pid)
{
	enum iso_status st;
	int code;

	if (iso_reap(pid, 1, &st, &code, NULL) != 1)
		return CD_EXIT_INTERNAL;
	return st == ISO_CRASHED ? 128 + code : code;
}

static int parse(int argc, char **argv, const char **log, int *no_env, int *cmd_at)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--no-env")) {
			*no_env = 1;
		} else if (!strcmp(argv[i], "--log")) {
			if (++i >= argc)
				return cli_usage_error("run", "--log needs a file");
			*log = argv[i];
		} else if (!strncmp(argv[i], "--log=", 6) && argv[i][6]) {
			*log = argv[i] + 6;
		} else if (argv[i][0] == '-') {
			return cli_usage_error("run", "unknown option '%s'", argv[i]);
		} else {
			break;
		}
	}
	if (i >= argc)
		return cli_usage_error("run",
				       "no command given (cuda-doctor run -- CMD [ARGS...])");
	*cmd_at = i;
	return 0;
}

static int finish(struct runctx *c, const struct xs_db *db, struct xs_result *res,
		  struct cd_opts *opts, int no_env, int status)
{
	if (c->sc && xs_finish(c->sc) == 0 && status != 0) {
		if (explain_finish(db, res, opts, no_env, stderr, "run", status))
			fprintf(stderr, "cuda-doctor run: could not print the diagnosis\n");
	} else if (!c->sc && status != 0) {
		fprintf(stderr, "cuda-doctor run: exit status %d (output not scanned)\n", status);
	}
	return status;
}

int cmd_run(int argc, char **argv, struct cd_opts *opts)
{
	struct runctx *c;
	struct xs_db *db = NULL;
	struct xs_result *res = NULL;
	struct cd_err err = {0};
	const char *log = NULL;
	int no_env = 0, cmd_at = 0, out[2] = {-1, -1}, errp[2] = {-1, -1}, fds[2], status;
	struct sigaction sa, old[4];
	static const int sigs[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	pid_t pid;
	size_t i;

	if (parse(argc, argv, &log, &no_env, &cmd_at))
		return CD_EXIT_USAGE;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CD_EXIT_INTERNAL;
	c->log_fd = -1;
	if (log && (c->log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		fprintf(stderr, "cuda-doctor run: --log %s: %s\n", log, strerror(errno));
		free(c);
		return CD_EXIT_USAGE;
	}
	if (xs_db_open(&db, &err) || !(res = xs_result_new()) ||
	    xs_result_input(res, log ? log : "(output)") < 0 || xs_open(&c->sc, db, res, 0, &err))
		fprintf(stderr, "cuda-doctor run: the log scanner is unavailable (%s)\n", err.msg);
	fflush(NULL);
	pid = start(argv + cmd_at, out, errp);
	if (pid < 0) {
		fprintf(stderr, "cuda-doctor run: cannot start %s: %s\n", argv[cmd_at],
			strerror(errno));
		status = 127;
		goto out;
	}
	child_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	for (i = 0; i < 4; i++)
		sigaction(sigs[i], &sa, &old[i]);
	signal(SIGPIPE, SIG_IGN);
	close(out[1]);
	close(errp[1]);
	out[1] = errp[1] = -1;
	fds[0] = out[0];
	fds[1] = errp[0];
	out[0] = errp[0] = -1; /* pump closes them */
	pump(c, fds, pid);
	status = wait_child(pid);
	child_pid = 0;
	for (i = 0; i < 4; i++)
		sigaction(sigs[i], &old[i], NULL);
	status = finish(c, db, res, opts, no_env, status);
out:
	for (i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (c->log_fd >= 0)
		close(c->log_fd);
	xs_close(c->sc);
	xs_result_free(res);
	xs_db_close(db);
	free(c);
	return status;
}
