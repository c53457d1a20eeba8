/* isolate_out: the child's side of an isolated job (isolate.h): its records
 * buffered and written to the pipe, step budgets, log lines, and the exec of
 * a program job. Runs in the child only; a failed write leaves the parent
 * with what arrived. */
#include "probe/isolate.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/str.h"
#include "format/kv.h"

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
				 budget_ms > 0 ? iso_now_us() + (int64_t)budget_ms * 1000 : 0,
				 __ATOMIC_SEQ_CST);
	iso_stage(o, name);
}

void iso_linef(struct iso_out *o, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int n;

	iso_flush(o);
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	write_all(o->fd, line, (size_t)n);
}

void iso_exec(char *const argv[], char *const envp[], const char *cwd, const char *who)
{
	char msg[1024], why[600];
	int code = 126, n;

	if (cwd && chdir(cwd) != 0) {
		snprintf(why, sizeof(why), "cannot change to %s: %s", cwd, strerror(errno));
	} else {
		if (envp)
			execvpe(argv[0], argv, envp);
		else
			execvp(argv[0], argv);
		code = errno == ENOENT ? 127 : 126;
		str_copy(why, sizeof(why), strerror(errno));
	}
	n = snprintf(msg, sizeof(msg), "%s%s: %s\n", who ? who : "", argv[0], why);
	if (n > 0)
		write_all(STDERR_FILENO, msg,
			  (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	_exit(code);
}
