/* diff_in: the inputs of `diff` read into a struct diff: files, directories
 * of *.json (in name order), streams ("-", pipes) of reports one after another.
 * A report over DIFF_REPORT_MAX is listed, not read; one whose fingerprint was
 * seen is read by its head unless verify. An unreadable input is recorded
 * (diff_add_bad) and reading goes on; the return is 0 or CD_ENOMEM. */
#ifndef CD_DIFF_IN_H
#define CD_DIFF_IN_H

#include "core/err.h"
#include "report/diff.h"

#define DIFF_REPORT_MAX ((size_t)16 << 20)

CD_WUR int diff_read_arg(struct diff *d, const char *arg, int verify);

#endif
