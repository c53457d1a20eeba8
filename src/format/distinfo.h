/* distinfo: readers for what Python installers leave on disk, all of it
 * untrusted bytes: METADATA / PKG-INFO header blocks (core metadata, RFC 822
 * style), egg-info requires.txt, torch/version.py, conda-meta JSON records and
 * the names of *.dist-info / *.egg-info / conda-meta files.
 * Strings are copied into the caller's arena; counts and lengths are capped
 * (a cap that bites sets `truncated`, it never fails the parse). Functions
 * return 0, CD_EFORMAT for bytes that are not the format, CD_ENOMEM when the
 * arena is exhausted. */
#ifndef CD_DISTINFO_H
#define CD_DISTINFO_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/err.h"

#define DISTINFO_REQUIRES_MAX 1024  /* Requires-Dist lines kept per package */
#define DISTINFO_EXTRAS_MAX   256   /* Provides-Extra lines kept */
#define DISTINFO_VALUE_MAX    65536 /* bytes of one header value kept */

struct distinfo_meta {
	const char *metadata_version;
	const char *name;
	const char *version;
	const char *requires_python;
	size_t n_requires;
	const char **requires; /* Requires-Dist values, in file order */
	size_t n_extras;
	const char **extras; /* Provides-Extra values */
	int complete;	     /* the header block ended inside the bytes given */
	int truncated;	     /* a cap dropped or shortened something */
	size_t header_end;   /* bytes of the header block, blank line included */
};

/* Parse the header block of a METADATA / PKG-INFO file. `at_eof` says the
 * bytes are the whole file (so a last line without '\n' counts). Without a
 * blank line before the end and without at_eof, `complete` stays 0 and the
 * caller may read more and parse again. */
CD_WUR int distinfo_parse_metadata(const uint8_t *p, size_t n, int at_eof, struct cd_arena *a,
				   struct distinfo_meta *out);

/* egg-info requires.txt: lines of requirements under optional "[extra]",
 * "[:marker]" or "[extra:marker]" sections, turned into Requires-Dist form
 * ("name>=1; extra == \"x\""). Appends to out->requires. */
CD_WUR int distinfo_parse_requires_txt(const uint8_t *p, size_t n, struct cd_arena *a,
				       struct distinfo_meta *out);

/* torch/version.py, read as text: `NAME[: TYPE] = 'str' | None | True | False`. */
struct torch_version_py {
	const char *version; /* __version__ */
	const char *cuda;    /* NULL: None or absent */
	const char *hip;
	const char *xpu;
	const char *git_version;
	int debug; /* 1, 0, or -1 when absent */
	int found; /* __version__ was assigned a string */
};
CD_WUR int distinfo_parse_torch_version(const uint8_t *p, size_t n, struct cd_arena *a,
					struct torch_version_py *out);

/* A conda-meta/<name>-<version>-<build>.json record. */
struct conda_record {
	const char *name;
	const char *version;
	const char *build;
	const char *channel; /* as recorded: a URL, "conda-forge", "pkgs/main" */
};
/* The file name alone (version and build contain no '-' in conda). */
CD_WUR int distinfo_conda_filename(const char *file, struct cd_arena *a, struct conda_record *out);
/* The JSON record; fields absent or not strings stay NULL. */
CD_WUR int distinfo_parse_conda_json(const uint8_t *p, size_t n, struct cd_arena *a,
				     struct conda_record *out);

enum distinfo_kind { DISTINFO_NONE = 0, DISTINFO_DIST, DISTINFO_EGG };
/* "torch-2.11.0+cu130.dist-info" -> name "torch", version "2.11.0+cu130";
 * "foo-1.0-py3.12.egg-info" and "foo.egg-info" (version NULL) too. Returns
 * the kind, DISTINFO_NONE for other names. */
enum distinfo_kind distinfo_dirname(const char *dir, struct cd_arena *a, const char **name,
				    const char **version);

/* pyvenv.cfg ("key = value" lines): the value of key, NULL when absent. */
CD_WUR int distinfo_cfg_get(const uint8_t *p, size_t n, const char *key, struct cd_arena *a,
			    const char **out);
/* include/pythonX.Y/patchlevel.h: the PY_VERSION string ("3.12.3"). */
CD_WUR int distinfo_patchlevel(const uint8_t *p, size_t n, struct cd_arena *a, const char **out);

#endif
