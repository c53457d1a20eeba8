/* libs_util: the pure string logic of the library probe and its checks,
 * kept apart so unit tests can reach it: versions in file names, which names
 * are NVIDIA libraries (kb/nvlibs' table), which file names are copies of a
 * SONAME, the glob patterns of torch's preload list, and LD_LIBRARY_PATH
 * without the entries that shadow a copy. Functions write into caller buffers
 * and return lengths like snprintf, or 0/1 answers; nothing is allocated. */
#ifndef CD_LIBS_UTIL_H
#define CD_LIBS_UTIL_H

#include <stddef.h>

/* The version a file name carries after ".so.": "libcudnn.so.9.19.0" ->
 * "9.19.0" (3 components). Returns the number of dotted numeric components
 * (0 when there is no ".so." followed by digits); out gets them. */
int libs_file_version(const char *base, char *out, size_t cap);
/* Two versions of one library differ: compared on the components both have
 * ("9.19.0" and "9.19.0.56" are the same release, "9" and "9.19" too). 0 when
 * either is NULL or not a dotted number. */
int libs_versions_differ(const char *a, const char *b);
/* "libcudnn_graph.so.9" is an NVIDIA library whose copies matter: its name
 * starts with a stem of data/nvidia_libs.tsv (kb/nvlibs.h). */
int libs_is_cuda_name(const char *base);
/* file is a copy of soname: the same name, soname + ".x.y", or a vendored
 * copy "<stem>.<8 hex>.so.<major>" / "<stem>-<8 hex>.so.<major>". */
int libs_copy_matches(const char *soname, const char *file);
/* The glob patterns of torch/__init__.py's preload list: literal text and
 * '*' (any run) and one trailing "[0-9]" class. */
int libs_glob(const char *pattern, const char *name);
/* LD_LIBRARY_PATH (value) without the entries in drop[0..n): entries are
 * compared with trailing '/' removed; empty entries are kept. Writes the
 * result to out; returns its length, 0 when nothing is left. */
size_t libs_ldpath_without(const char *value, const char *const *drop, size_t n, char *out,
			   size_t cap);
/* The PEP 503 name a top-level directory or extension file stands for:
 * "flash_attn_2_cuda.cpython-312-x86_64-linux-gnu.so" -> "flash-attn-2-cuda". */
void libs_dist_name(const char *file, char *out, size_t cap);

#endif
