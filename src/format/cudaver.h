/* cudaver: where a CUDA toolkit on disk says which version it is, read from
 * its files and never by running anything. Each parser takes the caller's
 * bytes (or a directory entry name) and writes a version string such as
 * "12.4.131" into the caller's buffer: digits and dots only, validated, at
 * most CUDAVER_MAX-1 characters. Nothing is allocated beyond jansson's
 * temporary tree. Returns 0, CD_ENOENT when the bytes hold no version, or
 * CD_EFORMAT when they are not the expected format. */
#ifndef CD_CUDAVER_H
#define CD_CUDAVER_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define CUDAVER_MAX	 32
#define CUDAVER_FILE_MAX ((size_t)1 << 20) /* version.json of CUDA 13 is ~4 KiB */

/* version.json (CUDA 11.1+): {"cuda": {"version": "12.4.1"}, "cuda_nvcc":
 * {"version": "12.4.131"}, ...}; component is "cuda" or "cuda_nvcc". */
CD_WUR int cudaver_json(const uint8_t *p, size_t n, const char *component, char *out, size_t cap);
/* version.txt (CUDA <= 11.0): "CUDA Version 10.2.89". */
CD_WUR int cudaver_txt(const uint8_t *p, size_t n, char *out, size_t cap);
/* cuda.h: "#define CUDA_VERSION 12040" -> *v = 12040. The macro sits in the
 * first few KiB of a 1 MiB header; callers pass the first CUDAVER_HEADER_HEAD. */
#define CUDAVER_HEADER_HEAD ((size_t)64 << 10)
CD_WUR int cudaver_header(const uint8_t *p, size_t n, int *v);
/* A package directory entry: prefix "nvidia_cuda_nvcc" matches wheel
 * metadata "nvidia_cuda_nvcc-13.0.88.dist-info" and
 * "nvidia_cuda_nvcc_cu12-12.4.131.dist-info"; prefix "cuda-nvcc" matches the
 * conda record "cuda-nvcc-12.4.131-h2d2c4d0_0.json". */
CD_WUR int cudaver_pkgname(const char *name, const char *prefix, char *out, size_t cap);
/* A small nvcc wrapper script ("#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc
 * "$@""): the first absolute path ending in "/bin/nvcc" that it names. */
#define CUDAVER_WRAPPER_MAX 4096
CD_WUR int cudaver_wrapper(const uint8_t *p, size_t n, char *out, size_t cap);
/* dpkg's status database (/var/lib/dpkg/status, deb822 paragraphs): the
 * upstream version of package pkg ("Version: 13.0.88-1" -> "13.0.88"), for
 * toolkits installed from NVIDIA's apt repository, which have no version.json. */
#define CUDAVER_DPKG_MAX ((size_t)8 << 20)
CD_WUR int cudaver_dpkg(const uint8_t *p, size_t n, const char *pkg, char *out, size_t cap);
/* Is s a plausible version: 1-31 chars of digits and dots, starting and
 * ending with a digit, no empty component. */
int cudaver_valid(const char *s);

#endif
