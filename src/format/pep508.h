/* pep508: dependency specifiers ("name[extra] >=1.0; python_version < '3.13'")
 * and environment markers, as PEP 508 defines them and packaging (pip's
 * parser) reads them. Results are plain values in caller storage; nothing is
 * allocated. Parsing fails with CD_EFORMAT (with a reason in err) or
 * CD_ERANGE when a name, an extras list or the input is over its cap.
 * Marker evaluation is three-valued: a comparison that needs an unknown fact
 * or that packaging cannot decide is PEP508_UNKNOWN, combined Kleene-style
 * (the values equal report/facts.h's CD_TRI_*). */
#ifndef CD_PEP508_H
#define CD_PEP508_H

#include <stddef.h>

#include "core/err.h"
#include "format/pep440.h"

#define PEP508_INPUT_MAX  4096 /* longest requirement or marker accepted */
#define PEP508_NAME_MAX	  128
#define PEP508_EXTRAS_MAX 32
#define PEP508_DEPTH_MAX  32 /* nested parentheses in a marker */

enum { PEP508_UNKNOWN = -1, PEP508_FALSE = 0, PEP508_TRUE = 1 };

struct pep508_req {
	char name[PEP508_NAME_MAX]; /* as written */
	char key[PEP508_NAME_MAX];  /* PEP 503 normalised: "typing-extensions" */
	size_t n_extras;
	char extras[PEP508_EXTRAS_MAX][PEP508_NAME_MAX]; /* as written */
	struct pep440_specset spec;
	int has_url;	   /* "name @ URL" */
	size_t marker_off; /* the marker text inside the input; len 0: none */
	size_t marker_len;
};

/* The values markers compare against; NULL is unknown. `extra` NULL or "" is
 * "no extra requested" (what pip uses for a distribution's base requirements). */
struct pep508_env {
	const char *python_version;	 /* "3.12" */
	const char *python_full_version; /* "3.12.3" */
	const char *implementation_name; /* "cpython" */
	const char *implementation_version;
	const char *platform_python_implementation; /* "CPython" */
	const char *os_name;			    /* "posix" */
	const char *sys_platform;		    /* "linux" */
	const char *platform_system;		    /* "Linux" */
	const char *platform_machine;		    /* "x86_64" */
	const char *platform_release;
	const char *platform_version;
	const char *extra;
	int extra_unknown; /* compare `extra` as unknown (which extras were asked for) */
};

CD_WUR int pep508_parse(const char *p, size_t n, struct pep508_req *out, struct cd_err *err);
/* Check a marker's syntax alone (env NULL) or evaluate it. Returns PEP508_*,
 * or CD_EFORMAT / CD_ERANGE for a marker that does not parse. */
CD_WUR int pep508_marker_eval(const char *p, size_t n, const struct pep508_env *env,
			      struct cd_err *err);
/* Evaluate the marker of a parsed requirement (PEP508_TRUE when it has none). */
int pep508_req_applies(const struct pep508_req *r, const char *text, const struct pep508_env *env);
/* PEP 503 name normalisation: lower case, runs of "-_." become "-".
 * Returns the length it wanted, like snprintf. */
size_t pep508_normalize(const char *name, size_t n, char *out, size_t cap);

#endif
