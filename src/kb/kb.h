/* kb: the knowledge base, data/ files embedded at build time (tools/embed.c).
 * kb_get returns a file by its name under data/ ("driver_cuda.tsv"). The TSV
 * reader walks a table line by line: one header line, tab-separated fields,
 * '#' lines ignored. Nothing is allocated; a reader borrows the embedded
 * bytes and its own line buffer, so rows are valid until the next kb_tsv_next. */
#ifndef CD_KB_H
#define CD_KB_H

#include <stddef.h>

#include "core/err.h"

struct kb_file {
	const char *name;
	const unsigned char *data;
	size_t len;
};

extern const struct kb_file kb_files[];

const struct kb_file *kb_get(const char *name);

#define KB_TSV_COLS 32
#define KB_TSV_LINE 16384

struct kb_tsv {
	const struct kb_file *file;
	size_t pos;
	size_t ncols;
	char header[KB_TSV_LINE];
	const char *cols[KB_TSV_COLS];
	char line[KB_TSV_LINE];
	size_t nfields;
	const char *fields[KB_TSV_COLS];
	size_t lineno;
};

/* 0, or CD_ENOENT when the file is not embedded. */
CD_WUR int kb_tsv_open(struct kb_tsv *t, const char *name);
/* Next data row; 1 when a row was read, 0 at the end. */
int kb_tsv_next(struct kb_tsv *t);
/* Index of a header column, or -1. */
int kb_tsv_col(const struct kb_tsv *t, const char *name);
/* Field of the current row by column name; "" when the row is short, NULL
 * when the column does not exist. */
const char *kb_tsv_get(const struct kb_tsv *t, const char *name);
/* A cell's whole number from 0 to 999 (a version major, a bound), -1 when
 * the cell is NULL, empty or does not start with one. */
int kb_cell_int(const char *s);

/* Called for each data row; 0 goes on, anything else stops the walk. */
typedef int (*kb_row_fn)(const struct kb_tsv *t, void *ctx);
/* Every data row of an embedded table through a reader on the heap (its line
 * buffers are too large for a stack frame). 0 when every row was read;
 * CD_ENOENT when the table is not embedded, CD_ENOMEM; else what row
 * returned to stop. */
CD_WUR int kb_tsv_each(const char *name, kb_row_fn row, void *ctx);
/* A fixed pool for tables parsed once into static storage: kb_pool_dup
 * copies s (NULL or too big for what is left: NULL). Never freed. */
struct kb_pool {
	char *p;
	size_t len, cap;
};
CD_WUR const char *kb_pool_dup(struct kb_pool *pool, const char *s);

#endif
