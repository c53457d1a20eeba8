/* diff_in: the inputs of `cuda-doctor diff` read into a struct diff: report
 * files, directories of *.json files (not recursive, in name order), and
 * streams ("-" for stdin, or a pipe) of reports one after another (JSON lines
 * or printed reports). Each report is capped (DIFF_REPORT_MAX: a larger one
 * is not read, only listed); only the head of a report whose fingerprint was
 * seen is read, unless verify. An input that cannot be read is recorded with
 * diff_add_bad and reading goes on; the return is CD_ENOMEM or 0. */
#ifndef CD_DIFF_IN_H
#define CD_DIFF_IN_H

#include "report/diff.h"

#define DIFF_REPORT_MAX ((size_t)16 << 20)

int diff_read_arg(struct diff *d, const char *arg, int verify);

#endif
