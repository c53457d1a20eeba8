/* model: facts about one Hugging Face model as from_pretrained() / pipeline()
 * would find it: where it resolves (a local directory, a .gguf/.safetensors
 * file, or the hub cache's refs/snapshots/blobs), its config.json, tokenizer
 * files, weight headers (never the tensor data), and the transformers package
 * of the Python environment that would load it. A probe: it reads files under
 * the facts' root, never prints, never executes anything it finds, and records
 * what it cannot learn as unknown (NULL / CD_UNK / CD_TRI_UNKNOWN). Every string
 * and array lives in the facts' arena. */
#ifndef CD_PROBE_MODEL_H
#define CD_PROBE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "facts/model.h"

struct md_request {
	const char *spec;
	const char *revision; /* NULL: "main" */
};

/* Locate and read the model; never fails as a whole (problems are facts). */
void model_probe(struct cd_facts *f, const struct md_request *req, struct cd_model_facts *m);

/* Parts of the probe, in their own files. */
void hfcache_resolve(struct cd_facts *f, struct cd_model_facts *m); /* hfcache.c */
void tf_probe(struct cd_facts *f, struct cd_model_facts *m);	    /* transformers.c */
void tf_check_type(struct cd_facts *f, struct cd_model_facts *m);   /* after config.json */
void weights_probe(struct cd_facts *f, struct cd_model_facts *m);   /* model_weights.c */
void gguf_probe_file(struct cd_facts *f, struct cd_model_facts *m, const char *name);
/* Not cached: the Hub's metadata over HTTP (hub.c); sets m->hub, and on
 * success m->source = MD_SRC_HUB with m->dir the files' base URL. */
void hub_probe(struct cd_facts *f, struct cd_model_facts *m);
/* The Hub's entry for a path under m->dir; NULL when not listed or not MD_SRC_HUB. */
const struct md_hub_file *hub_file_at(const struct cd_model_facts *m, const char *path);

/* File helpers shared by the model probe files (model_io.c). Paths are in-root
 * for a directory or the cache, and under the Hub's base URL for MD_SRC_HUB,
 * where the files are the ones the Hub listed and fetched. */
enum md_fstate md_check_file(struct cd_facts *f, const struct cd_model_facts *m, const char *path,
			     int64_t *size, const char **blob, const char **problem);
/* Read at most max bytes from the start of a file; *size gets the file size. */
CD_WUR int md_read_prefix(struct cd_facts *f, const struct cd_model_facts *m, const char *path,
			  size_t max, struct cd_buf *out, uint64_t *size, struct cd_err *err);
/* The whole file, at most max bytes (CD_ENOMEM beyond), as file_read. */
CD_WUR int md_read_file(struct cd_facts *f, const struct cd_model_facts *m, const char *path,
			size_t max, struct cd_buf *out, struct cd_err *err);

#endif
