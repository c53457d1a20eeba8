/* opts: the global command-line options, parsed once by main() and read by
 * every layer. Strings point into argv or static storage; nothing is owned.
 * envp, when set, replaces the process environment for the probes (tests). */
#ifndef CD_OPTS_H
#define CD_OPTS_H

enum cd_format {
	CD_FMT_TEXT = 0,
	CD_FMT_JSON,
	CD_FMT_MARKDOWN,
	CD_FMT_HTML,
	CD_FMT_PROMETHEUS,
	CD_FMT_SARIF
};

struct cd_opts {
	const char *root; /* --root, NULL for / */
	const char *env;  /* --env PREFIX */
	enum cd_format format;
	int color;		  /* resolved: 1 only on a tty without NO_COLOR */
	int no_color;		  /* --no-color given */
	int quiet;		  /* -q */
	int verbose;		  /* -v (repeatable) */
	const char *nvml_lib;	  /* --nvml-lib */
	const char *cuda_lib;	  /* --cuda-lib */
	int timeout_ms;		  /* --timeout, default 10 s */
	char *const *envp;	  /* NULL: the real environment */
	int deep;		  /* check --deep: full fatbin walks, no caps on extensions */
	int keep_volatile;	  /* check --volatile: free and used GPU memory in the JSON */
	int host_driver;	  /* check --host-driver: query this host's driver under --root */
	const char *image_config; /* check --image-config FILE: the image's config (its ENV) */
	int full_json;		  /* check --full-json: the whole JSON inside the Markdown */
	const char *argv0;
};

#define CD_TIMEOUT_DEFAULT_MS 10000

#endif
