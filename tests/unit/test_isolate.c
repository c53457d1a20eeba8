/* Unit tests for src/probe/isolate: a child's result (ok, exit code,
 * timeout, crash, output cap), the time bound on a hang, concurrent jobs,
 * and that nothing leaks (descriptors, children). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
