/* interrupt: SIGINT, SIGTERM, SIGHUP and SIGQUIT while isolated children run.
 * Those children lead their own process groups, so a Ctrl-C to the terminal's
 * group never reaches them: the handler forwards the signal to every running
 * group (isolate.c registers them) and records it; a caller holding a cleanup
 * (jit --compile's temporary directory) finishes it, and main() exits 128+N.
 * With no group running and no cleanup held the signal takes its default
 * action at once, as before. Nothing here fails; the state is static. */
#ifndef CD_INTERRUPT_H
#define CD_INTERRUPT_H

/* Install the handlers (main, once). */
void intr_install(void);
/* In a forked child: the default actions again, no groups (exec resets the
 * handlers by itself; a callback child does not exec). */
void intr_child(void);
/* A process group that receives the signals forwarded (its leader's pid). */
void intr_group_add(int pgid);
void intr_group_del(int pgid);
/* Between hold and release a signal is recorded, not acted on: the caller
 * cleans up and returns (nests). */
void intr_hold(void);
void intr_release(void);
/* The signal caught, 0 for none. */
int intr_signal(void);

#endif
