/* interrupt: see interrupt.h. Async-signal-safe: fixed arrays of
 * sig_atomic_t, kill and raise only. */
#include "probe/interrupt.h"

#include <signal.h>
#include <string.h>

#define INTR_GROUPS_MAX 64 /* isolate runs at most ISO_JOBS_MAX at once; nested batches */

static volatile sig_atomic_t groups[INTR_GROUPS_MAX];
static volatile sig_atomic_t holds, caught;

static void intr_on_signal(int sig)
{
	int any = 0;
	size_t i;

	for (i = 0; i < INTR_GROUPS_MAX; i++)
		if (groups[i] > 0) {
			kill(-(int)groups[i], sig);
			any = 1;
		}
	if (!any && !holds) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	caught = sig;
}

void intr_install(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = intr_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		/* A signal ignored by whoever started us (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

void intr_child(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	size_t i;

	for (i = 0; i < INTR_GROUPS_MAX; i++)
		groups[i] = 0;
	holds = caught = 0;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == intr_on_signal)
			signal(sigs[i], SIG_DFL);
	}
}

void intr_group_add(int pgid)
{
	size_t i;

	for (i = 0; i < INTR_GROUPS_MAX; i++)
		if (groups[i] <= 0) {
			groups[i] = pgid;
			if (caught) /* caught before this group existed: it gets it too */
				kill(-pgid, (int)caught);
			return;
		}
}

void intr_group_del(int pgid)
{
	size_t i;

	for (i = 0; i < INTR_GROUPS_MAX; i++)
		if (groups[i] == pgid)
			groups[i] = 0;
}

void intr_hold(void)
{
	holds++;
}

void intr_release(void)
{
	if (holds > 0)
		holds--;
}

int intr_signal(void)
{
	return (int)caught;
}
