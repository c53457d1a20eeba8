/* cli: one entry point per subcommand. Each parses its own options from the
 * arguments main() left after taking the global ones, calls into the core,
 * renders, and returns the process exit status (CD_EXIT_*). */
#ifndef CD_CLI_H
#define CD_CLI_H

#include "core/err.h"
#include "core/opts.h"

enum {
	CD_EXIT_OK = 0,	      /* healthy */
	CD_EXIT_FINDINGS = 1, /* findings at error severity, or a gate violated */
	CD_EXIT_USAGE = 2,
	CD_EXIT_INTERNAL = 3,
	CD_EXIT_WRITE = 4 /* the output could not be written (a full disk, a closed pipe) */
};

struct cd_command {
	const char *name;
	int (*run)(int argc, char **argv, struct cd_opts *opts);
	const char *summary;
	const char *usage; /* the command's own options, for --help */
};

const struct cd_command *cli_commands(void);
const struct cd_command *cli_find(const char *name);

CD_WUR int cmd_check(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_model(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_jit(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_ldd(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_explain(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_run(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_probe(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_mcp(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_gate(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_diff(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_bundle(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_fix(int argc, char **argv, struct cd_opts *opts);
CD_WUR int cmd_dockerfile(int argc, char **argv, struct cd_opts *opts);

/* Print "cuda-doctor CMD: MSG" to stderr and return CD_EXIT_USAGE. */
CD_WUR int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print the help of one command (or the overview for NULL) to stdout. */
void cli_help(const struct cd_command *c);
/* "--name VALUE" or "--name=VALUE" at argv[*i]: 1 (and *val, NULL when the
 * value is missing; *i moves past it), else 0. */
int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **val);
/* True when argv holds -h or --help (before a "--"). */
int cli_wants_help(int argc, char **argv);

#endif
