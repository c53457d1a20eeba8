/* hostcc: the newest host compiler an nvcc release accepts, from
 * data/host_compiler.tsv (CUDA's include/crt/host_config.h and torch's
 * cpp_extension bounds; each row carries its source). Read on each call;
 * nothing allocates. Shared by the JIT check and explain's stated versions. */
#ifndef CD_HOSTCC_H
#define CD_HOSTCC_H

/* Newest gcc (family NULL or "gcc") or clang major that nvcc X.Y accepts
 * (host_config.h), or with torch_table torch's BuildExtension bound; -1 when
 * the table has no value. A "X.x" row stands for minors after the listed
 * ones (host_config.h only). */
int kb_max_host_compiler(int nvcc_major, int nvcc_minor, const char *family, int torch_table);

#endif
