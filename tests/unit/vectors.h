/* vectors: read the TSV test vectors under tests/unit/data (generated from
 * packaging by gen_pep_vectors.py). One header line, '#' lines skipped. The
 * file is read whole into memory the caller frees with vec_close. */
#ifndef CD_TEST_VECTORS_H
#define CD_TEST_VECTORS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VEC_COLS 8

struct vec {
	char *text;
	char *pos;
	int header_done;
	size_t ncols;
	char *col[VEC_COLS];
	size_t line;
};

static inline int vec_open(struct vec *v, const char *name)
{
	char path[512];
	FILE *f;
	long n;

	memset(v, 0, sizeof(*v));
	snprintf(path, sizeof(path), "tests/unit/data/%s", name);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	v->text = calloc(1, (size_t)n + 1);
	if (!v->text || fread(v->text, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	fclose(f);
	v->pos = v->text;
	return 0;
}

/* Next data row into v->col; 0 at the end. Empty fields stay "". */
static inline int vec_next(struct vec *v)
{
	while (v->pos && *v->pos) {
		char *line = v->pos, *nl = strchr(line, '\n'), *p;
		v->pos = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		v->line++;
		if (line[0] == '#')
			continue;
		if (!v->header_done) {
			v->header_done = 1;
			continue;
		}
		v->ncols = 0;
		for (p = line;;) {
			char *tab = strchr(p, '\t');
			if (v->ncols < VEC_COLS)
				v->col[v->ncols++] = p;
			if (!tab)
				break;
			*tab = '\0';
			p = tab + 1;
		}
		while (v->ncols < VEC_COLS)
			v->col[v->ncols++] = (char *)"";
		return 1;
	}
	return 0;
}

static inline void vec_close(struct vec *v)
{
	free(v->text);
	v->text = NULL;
}

#endif
