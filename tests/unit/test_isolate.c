/* Unit tests for src/probe/isolate: a child's result (ok, exit code,
 * timeout, crash, output cap), the time bound on a hang, concurrent jobs,
 * and that nothing leaks (descriptors, children); programs (output and
 * status, environment and directory, the cap, a hang with grandchildren, a
 * closed output, a missing program) and the pieces cli/run shares. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/err.h"
#include "format/kv.h"
#include "probe/isolate.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The value of the last record named key in a job's output, or NULL. */
static const char *find(const struct iso_job *j, const char *key, char *val)
{
	char k[KV_KEY_MAX], v[KV_VAL_MAX];
	struct kv_reader r;
	const char *found = NULL;
	int rc;

	kv_reader_init(&r, (const uint8_t *)j->out.p, j->out.len);
	while ((rc = kv_next(&r, k, v)) != 0)
		if (rc == 1 && !strcmp(k, key)) {
			memcpy(val, v, sizeof(v));
			found = val;
		}
	return found;
}

static char arg_hello[] = "wörld\n=", arg_x[] = "x";

static void child_ok(struct iso_out *o, void *arg)
{
	iso_emit(o, "hello", (const char *)arg);
	iso_emitf(o, "n", "%d", 42);
}

static void child_exit3(struct iso_out *o, void *arg)
{
	(void)arg;
	iso_emit(o, "before", "exit");
	iso_flush(o);
	_exit(3);
}

static void child_hang(struct iso_out *o, void *arg)
{
	(void)arg;
	iso_stage(o, "about-to-hang");
	for (;;)
		pause();
}

static void child_segv(struct iso_out *o, void *arg)
{
	(void)arg;
	iso_stage(o, "crashing");
	raise(SIGSEGV);
}

static void child_flood(struct iso_out *o, void *arg)
{
	static char junk[65536];

	(void)arg;
	memset(junk, 'x', sizeof(junk));
	for (;;)
		if (write(o->fd, junk, sizeof(junk)) < 0)
			return;
}

static void child_close_and_hang(struct iso_out *o, void *arg)
{
	(void)arg;
	iso_stage(o, "closing");
	close(o->fd);
	for (;;)
		pause();
}

/* An answer complete, then an exit that does not come (as a driver
 * library's teardown at exit takes its time): the end record is written as
 * child_run writes it for early_end jobs, then the child stops. */
static int atoi_strict(const char *s)
{
	char *end;
	long v = s ? strtol(s, &end, 10) : -1;

	return s && *s && !*end && v > 0 && v < 1 << 30 ? (int)v : -1;
}

static void child_done_slow_exit(struct iso_out *o, void *arg)
{
	(void)arg;
	iso_emit(o, "answer", "42");
	iso_emitf(o, "pid", "%d", (int)getpid());
	iso_emit(o, "iso_end", "1");
	iso_flush(o);
	close(o->fd);
	raise(SIGSTOP);
}

/* A first step within its budget, then one that overruns its own. */
static void child_step_hang(struct iso_out *o, void *arg)
{
	(void)arg;
	iso_step(o, "quick", 2000);
	iso_step(o, "stuck", 150);
	for (;;)
		pause();
}

/* Budget 0 lifts the step deadline: only the batch deadline remains. */
static void child_step_lifted(struct iso_out *o, void *arg)
{
	(void)arg;
	iso_step(o, "short", 100);
	iso_step(o, "unbounded", 0);
	poll(NULL, 0, 300);
	iso_emit(o, "done", "1");
}

static void iso_ok(void **state)
{
	struct iso_job j = {.fn = child_ok, .arg = arg_hello};
	char v[KV_VAL_MAX];
	int fds = count_fds();

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 5000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_OK);
	assert_int_equal(j.code, 0);
	assert_string_equal(find(&j, "hello", v), "wörld\n=");
	assert_string_equal(find(&j, "n", v), "42");
	assert_int_equal(count_fds(), fds);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no child left behind */
	iso_job_free(&j);
}

static void iso_exit_code(void **state)
{
	struct iso_job j = {.fn = child_exit3};
	char v[KV_VAL_MAX];

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 5000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_EXITED);
	assert_int_equal(j.code, 3);
	assert_string_equal(find(&j, "before", v), "exit");
	iso_job_free(&j);
}

static void iso_timeout_bound(void **state)
{
	struct iso_job j = {.fn = child_hang};
	char v[KV_VAL_MAX];
	int64_t t0 = now_ms(), dt;
	int fds = count_fds();

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 300, 0, NULL), 0);
	dt = now_ms() - t0;
	assert_int_equal(j.status, ISO_TIMEOUT);
	assert_int_equal(j.unreaped, 0);
	assert_true(dt >= 300);
	assert_true(dt < 300 + 600); /* the deadline plus well under a second */
	assert_string_equal(find(&j, "stage", v), "about-to-hang");
	assert_int_equal(count_fds(), fds);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	iso_job_free(&j);
}

static void iso_crash(void **state)
{
	struct iso_job j = {.fn = child_segv};
	char v[KV_VAL_MAX];

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 5000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_CRASHED);
	assert_int_equal(j.code, SIGSEGV);
	assert_string_equal(find(&j, "stage", v), "crashing");
	iso_job_free(&j);
}

static void iso_output_cap(void **state)
{
	struct iso_job j = {.fn = child_flood};
	int64_t t0 = now_ms();

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 5000, 100000, NULL), 0);
	assert_int_equal(j.status, ISO_OVERFLOW);
	assert_int_equal(j.out.len, 100000);
	assert_true(now_ms() - t0 < 2000); /* killed at the cap, not at the deadline */
	iso_job_free(&j);
}

static void iso_closed_pipe_still_bounded(void **state)
{
	struct iso_job j = {.fn = child_close_and_hang};
	int64_t t0 = now_ms();

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 200, 0, NULL), 0);
	assert_int_equal(j.status, ISO_TIMEOUT);
	assert_true(now_ms() - t0 < 200 + 600);
	iso_job_free(&j);
}

/* early_end: the job is over when its answer is, not when its exit is seen;
 * without early_end the same child is a timeout. isolate_reap_detached
 * waits for the child left exiting. */
static void iso_early_end(void **state)
{
	struct iso_job j = {.fn = child_done_slow_exit, .early_end = 1};
	struct iso_job k = {.fn = child_done_slow_exit};
	struct iso_job c = {.fn = child_segv, .early_end = 1};
	char v[KV_VAL_MAX];
	int64_t t0 = now_ms();
	int pid;

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 3000, 0, NULL), 0);
	assert_true(now_ms() - t0 < 1500);
	assert_int_equal(j.status, ISO_OK);
	assert_string_equal(find(&j, "answer", v), "42");
	pid = atoi_strict(find(&j, "pid", v));
	assert_true(pid > 0);
	assert_int_equal(kill(pid, 0), 0); /* still there: not waited for */
	kill(pid, SIGKILL);
	isolate_reap_detached();
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* nothing left behind */
	t0 = now_ms();
	assert_int_equal(isolate_run(&k, 1, 300, 0, NULL), 0);
	assert_int_equal(k.status, ISO_TIMEOUT);
	assert_true(now_ms() - t0 >= 300);
	/* no end record: a crash is still a crash */
	assert_int_equal(isolate_run(&c, 1, 3000, 0, NULL), 0);
	assert_int_equal(c.status, ISO_CRASHED);
	iso_job_free(&j);
	iso_job_free(&k);
	iso_job_free(&c);
}

/* A child that returns normally with early_end: its end record is written
 * by the child's side, and the job ends OK with its records. */
static void iso_early_end_normal(void **state)
{
	struct iso_job j = {.fn = child_ok, .arg = arg_x, .early_end = 1};
	char v[KV_VAL_MAX];

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 3000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_OK);
	assert_string_equal(find(&j, "hello", v), "x");
	assert_string_equal(find(&j, "iso_end", v), "1");
	isolate_reap_detached();
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	iso_job_free(&j);
}

static void iso_concurrent(void **state)
{
	struct iso_job j[3] = {
		{.fn = child_hang}, {.fn = child_ok, .arg = arg_x}, {.fn = child_segv}};
	int64_t t0 = now_ms(), dt;
	char v[KV_VAL_MAX];

	(void)state;
	assert_int_equal(isolate_run(j, 3, 300, 0, NULL), 0);
	dt = now_ms() - t0;
	assert_int_equal(j[0].status, ISO_TIMEOUT);
	assert_int_equal(j[1].status, ISO_OK);
	assert_string_equal(find(&j[1], "hello", v), "x");
	assert_int_equal(j[2].status, ISO_CRASHED);
	assert_true(dt < 300 + 600);
	/* The quick jobs finished long before the deadline. */
	assert_true(j[1].elapsed_us < 250000);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	iso_job_free(&j[0]);
	iso_job_free(&j[1]);
	iso_job_free(&j[2]);
}

static void iso_step_deadline(void **state)
{
	struct iso_job j[2] = {{.fn = child_step_hang, .step_deadlines = 1},
			       {.fn = child_step_hang}};
	int64_t t0 = now_ms();
	char v[KV_VAL_MAX];
	int fds = count_fds();

	(void)state;
	/* The first job dies at its step's 150 ms; the second, which did not ask
	 * for step deadlines, at the batch's 700 ms. */
	assert_int_equal(isolate_run(j, 2, 700, 0, NULL), 0);
	assert_int_equal(j[0].status, ISO_TIMEOUT);
	assert_int_equal(j[0].step_expired, 1);
	assert_string_equal(find(&j[0], "stage", v), "stuck");
	assert_true(j[0].elapsed_us >= 150000);
	assert_true(j[0].elapsed_us < 600000);
	assert_int_equal(j[1].status, ISO_TIMEOUT);
	assert_int_equal(j[1].step_expired, 0);
	assert_true(j[1].elapsed_us >= 700000);
	assert_true(now_ms() - t0 < 700 + 600);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	iso_job_free(&j[0]);
	iso_job_free(&j[1]);
}

static void iso_step_lifted(void **state)
{
	struct iso_job j = {.fn = child_step_lifted, .step_deadlines = 1};
	char v[KV_VAL_MAX];

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 5000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_OK);
	assert_int_equal(j.step_expired, 0);
	assert_string_equal(find(&j, "done", v), "1");
	assert_true(j.elapsed_us >= 300000);
	iso_job_free(&j);
}

static void iso_bad_args(void **state)
{
	struct iso_job j[ISO_JOBS_MAX + 1];
	struct cd_err err;

	(void)state;
	memset(j, 0, sizeof(j));
	assert_int_equal(isolate_run(j, 0, 100, 0, &err), CD_EINTERNAL);
	assert_int_equal(isolate_run(j, ISO_JOBS_MAX + 1, 100, 0, &err), CD_EINTERNAL);
	assert_string_equal(iso_status_name(ISO_TIMEOUT), "timeout");
}

/* ---- programs ---------------------------------------------------------- */

static char sh[] = "/bin/sh", dash_c[] = "-c";

/* A job that runs `sh -c script`; argv must outlive the run. */
static struct iso_job sh_job(char *argv[4], const char *script)
{
	argv[0] = sh;
	argv[1] = dash_c;
	argv[2] = (char *)script;
	argv[3] = NULL;
	return (struct iso_job){.argv = argv};
}

static const char *out_text(const struct iso_job *j)
{
	return j->out.p ? j->out.p : "";
}

static void prog_output_and_status(void **state)
{
	char *argv[4];
	struct iso_job j = sh_job(argv, "echo out; echo err >&2; cat; exit 5");
	int fds = count_fds();

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 5000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_EXITED);
	assert_int_equal(j.code, 5);
	/* stdout and stderr merged in order; stdin is /dev/null (cat ends at once) */
	assert_string_equal(out_text(&j), "out\nerr\n");
	assert_int_equal(j.dropped, 0);
	assert_int_equal(j.pid, -1);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	iso_job_free(&j);
	j = sh_job(argv, "true");
	assert_int_equal(isolate_run(&j, 1, 5000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_OK);
	assert_int_equal(j.out.len, 0);
	iso_job_free(&j);
}

static void prog_env_cwd_group(void **state)
{
	char *argv[4], e1[] = "CD_X=42", e2[] = "PATH=/usr/bin:/bin";
	char *envp[] = {e1, e2, NULL};
	struct iso_job j =
		sh_job(argv, "echo \"$CD_X\"; pwd; echo $$ $(cut -d' ' -f5 /proc/$$/stat)");
	long pid = 0, pgid = -1;

	(void)state;
	j.envp = envp;
	j.cwd = "/";
	assert_int_equal(isolate_run(&j, 1, 5000, 0, NULL), 0);
	assert_int_equal(j.status, ISO_OK);
	assert_int_equal(strncmp(out_text(&j), "42\n/\n", 5), 0);
	assert_int_equal(sscanf(out_text(&j) + 5, "%ld %ld", &pid, &pgid), 2);
	assert_true(pid == pgid); /* the child leads its own process group */
	assert_true(pgid != getpgrp());
	iso_job_free(&j);
}

static void prog_with_our_stdio_closed(void **state)
{
	char *argv[4];
	struct iso_job j = sh_job(argv, "echo out; echo err >&2");
	int keep1 = dup(STDOUT_FILENO), keep2 = dup(STDERR_FILENO), rc;

	(void)state;
	assert_true(keep1 > STDERR_FILENO && keep2 > STDERR_FILENO);
	/* The pipe is then made of descriptors 1 and 2: the child's write end
	 * must still become its stdout and its stderr. */
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	rc = isolate_run(&j, 1, 5000, 0, NULL);
	dup2(keep1, STDOUT_FILENO);
	dup2(keep2, STDERR_FILENO);
	close(keep1);
	close(keep2);
	assert_int_equal(rc, 0);
	assert_int_equal(j.status, ISO_OK);
	assert_string_equal(out_text(&j), "out\nerr\n");
	iso_job_free(&j);
}

static void prog_output_cap(void **state)
{
	char *argv[4];
	struct iso_job j = sh_job(argv, "head -c 300000 /dev/zero | tr '\\0' x; exit 4");

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 5000, 100000, NULL), 0);
	/* a program's log past the cap is counted, not kept, and not fatal */
	assert_int_equal(j.status, ISO_EXITED);
	assert_int_equal(j.code, 4);
	assert_int_equal(j.out.len, 100000);
	assert_int_equal(j.dropped, 200000);
	assert_int_equal(out_text(&j)[99999], 'x');
	iso_job_free(&j);
}

static void prog_flood_keeps_deadline(void **state)
{
	char *argv[4];
	struct iso_job j = sh_job(argv, "exec yes");
	int64_t t0 = now_ms();

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 300, 4096, NULL), 0);
	assert_int_equal(j.status, ISO_TIMEOUT);
	assert_true(now_ms() - t0 < 300 + 600);
	assert_int_equal(j.out.len, 4096);
	assert_true(j.dropped > 0);
	iso_job_free(&j);
}

/* Reap the orphans handed to us as subreaper, for up to 2 s: how many there
 * were and how many a SIGKILL ended; 1 when one still runs after that. */
static int reap_orphans(pid_t stray, int *n, int *killed)
{
	int st, i;
	pid_t r;

	*n = *killed = 0;
	for (i = 0; i < 200; i++) {
		while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
			++*n;
			*killed += WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
		}
		if (r < 0)
			return 0; /* ECHILD: none left */
		usleep(10000);
	}
	if (stray > 0 && kill(stray, SIGKILL) == 0) /* do not leave it to the next test */
		waitpid(stray, NULL, 0);
	return 1;
}

static void prog_hang_kills_group(void **state)
{
	char *argv[4];
	struct iso_job j = sh_job(argv, "sleep 100 & echo $!; sleep 100");
	int64_t t0 = now_ms(), dt;
	int n, killed, survivor, rc;
	long gc = 0;

	(void)state;
	/* As subreaper, the orphaned grandchildren become ours: we see how they
	 * died (the shell may reap the background sleep itself before it dies). */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	rc = isolate_run(&j, 1, 300, 0, NULL);
	dt = now_ms() - t0;
	if (sscanf(out_text(&j), "%ld", &gc) != 1)
		gc = 0;
	survivor = reap_orphans((pid_t)gc, &n, &killed);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	assert_int_equal(rc, 0);
	assert_int_equal(j.status, ISO_TIMEOUT);
	assert_int_equal(j.unreaped, 0);
	assert_true(dt >= 300);
	assert_true(dt < 300 + 600);
	assert_true(gc > 0);
	assert_false(survivor);
	assert_true(n >= 1);
	assert_int_equal(killed, n);
	assert_int_equal(kill((pid_t)gc, 0), -1); /* the background sleep is gone */
	assert_int_equal(errno, ESRCH);
	iso_job_free(&j);
}

static void prog_closed_output_still_bounded(void **state)
{
	char *argv[4];
	struct iso_job j = sh_job(argv, "echo bye; exec sleep 100 >&- 2>&-");
	int64_t t0 = now_ms();

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 200, 0, NULL), 0);
	assert_int_equal(j.status, ISO_TIMEOUT);
	assert_true(now_ms() - t0 < 200 + 600);
	assert_string_equal(out_text(&j), "bye\n");
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	iso_job_free(&j);
}

static void prog_missing(void **state)
{
	char p1[] = "/nonexistent/cd-test-program", p2[] = "cd-no-such-program-on-path",
	     p3[] = "/dev/null", p4[] = "true";
	char *a1[] = {p1, NULL}, *a2[] = {p2, NULL}, *a3[] = {p3, NULL}, *a4[] = {p4, NULL};
	struct iso_job j[4] = {{.argv = a1}, {.argv = a2}, {.argv = a3}, {.argv = a4}};
	size_t i;

	(void)state;
	j[3].cwd = "/nonexistent";
	assert_int_equal(isolate_run(j, 4, 5000, 0, NULL), 0);
	assert_int_equal(j[0].status, ISO_EXITED);
	assert_int_equal(j[0].code, 127);
	assert_string_equal(out_text(&j[0]), "cannot execute /nonexistent/cd-test-program: No "
					     "such file or directory\n");
	assert_int_equal(j[1].code, 127); /* looked up on PATH, not found */
	assert_int_equal(j[2].code, 126); /* there, but not executable */
	assert_int_equal(j[3].code, 126);
	assert_non_null(strstr(out_text(&j[3]), "cannot change to /nonexistent"));
	for (i = 0; i < 4; i++)
		iso_job_free(&j[i]);
}

static void child_log(struct iso_out *o, void *arg)
{
	static const char lib[] = "a library's own line\n";

	iso_linef(o, "before: %s", (const char *)arg);
	if (write(STDERR_FILENO, lib, sizeof(lib) - 1) < 0)
		return;
	if (!strcmp(arg, "crash"))
		raise(SIGSEGV);
	o->exit_code = 5;
}

static void log_callback(void **state)
{
	static char crash[] = "crash", code[] = "code";
	struct iso_job j[2] = {{.fn = child_log, .arg = crash, .output = ISO_LOG},
			       {.fn = child_log, .arg = code, .output = ISO_LOG}};

	(void)state;
	assert_int_equal(isolate_run(j, 2, 5000, 0, NULL), 0);
	assert_int_equal(j[0].status, ISO_CRASHED);
	assert_int_equal(j[0].code, SIGSEGV);
	assert_string_equal(out_text(&j[0]), "before: crash\na library's own line\n");
	assert_int_equal(j[1].status, ISO_EXITED);
	assert_int_equal(j[1].code, 5);
	assert_string_equal(out_text(&j[1]), "before: code\na library's own line\n");
	iso_job_free(&j[0]);
	iso_job_free(&j[1]);
}

static void mixed_batch(void **state)
{
	char *argv[4];
	struct iso_job j[2] = {sh_job(argv, "echo p"), {.fn = child_ok, .arg = arg_x}};
	char v[KV_VAL_MAX];

	(void)state;
	assert_int_equal(isolate_run(j, 2, 5000, 0, NULL), 0);
	assert_int_equal(j[0].status, ISO_OK);
	assert_string_equal(out_text(&j[0]), "p\n");
	assert_int_equal(j[1].status, ISO_OK);
	assert_string_equal(find(&j[1], "hello", v), "x");
	iso_job_free(&j[0]);
	iso_job_free(&j[1]);
}

static void nothing_to_run(void **state)
{
	struct iso_job j = {0};
	struct cd_err err;

	(void)state;
	assert_int_equal(isolate_run(&j, 1, 100, 0, &err), CD_EIO);
	assert_int_equal(j.status, ISO_NOT_RUN);
	assert_non_null(strstr(j.error, "neither"));
	iso_job_free(&j);
}

/* ---- the shared pieces ----------------------------------------------------- */

static void shared_pipe_and_reap(void **state)
{
	struct cd_err err = {0};
	enum iso_status st = ISO_NOT_RUN;
	int fds[2], code = -1;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(iso_pipe(fds, NULL), 0);
	assert_true(fcntl(fds[0], F_GETFL) & O_NONBLOCK);
	assert_false(fcntl(fds[1], F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(fds[1], F_GETFD) & FD_CLOEXEC);
	assert_int_equal(read(fds[0], &c, 1), -1);
	assert_int_equal(errno, EAGAIN);
	pid = fork();
	if (pid == 0) {
		char buf;
		close(fds[1]);
		while (read(fds[0], &buf, 1) < 0 && errno == EAGAIN)
			usleep(1000);
		_exit(3);
	}
	assert_int_equal(iso_reap(pid, 0, &st, &code, NULL), 0); /* still running */
	assert_int_equal(st, ISO_NOT_RUN);
	assert_int_equal(write(fds[1], "g", 1), 1);
	assert_int_equal(iso_reap(pid, 1, &st, &code, NULL), 1);
	assert_int_equal(st, ISO_EXITED);
	assert_int_equal(code, 3);
	assert_int_equal(iso_reap(pid, 1, &st, &code, &err), CD_EIO);
	assert_non_null(strstr(err.msg, "waitpid"));
	pid = fork();
	if (pid == 0) {
		char nope[] = "/nonexistent/x";
		char *argv[] = {nope, NULL};
		iso_exec(argv, NULL, NULL, "who: ");
	}
	assert_int_equal(iso_reap(pid, 1, &st, &code, NULL), 1);
	assert_int_equal(code, 127);
	pid = fork();
	if (pid == 0)
		raise(SIGKILL);
	assert_int_equal(iso_reap(pid, 1, &st, &code, NULL), 1);
	assert_int_equal(st, ISO_CRASHED);
	assert_int_equal(code, SIGKILL);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(iso_ok),
		cmocka_unit_test(iso_exit_code),
		cmocka_unit_test(iso_timeout_bound),
		cmocka_unit_test(iso_crash),
		cmocka_unit_test(iso_output_cap),
		cmocka_unit_test(iso_closed_pipe_still_bounded),
		cmocka_unit_test(iso_concurrent),
		cmocka_unit_test(iso_step_deadline),
		cmocka_unit_test(iso_step_lifted),
		cmocka_unit_test(iso_bad_args),
		cmocka_unit_test(prog_output_and_status),
		cmocka_unit_test(prog_env_cwd_group),
		cmocka_unit_test(prog_with_our_stdio_closed),
		cmocka_unit_test(prog_output_cap),
		cmocka_unit_test(prog_flood_keeps_deadline),
		cmocka_unit_test(prog_hang_kills_group),
		cmocka_unit_test(prog_closed_output_still_bounded),
		cmocka_unit_test(prog_missing),
		cmocka_unit_test(log_callback),
		cmocka_unit_test(mixed_batch),
		cmocka_unit_test(nothing_to_run),
		cmocka_unit_test(shared_pipe_and_reap),
		cmocka_unit_test(iso_early_end),
		cmocka_unit_test(iso_early_end_normal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
