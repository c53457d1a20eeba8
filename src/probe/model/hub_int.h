/* hub_int: the two halves of the Hub probe. hub_fetch.c runs in an isolated
 * child: it loads libcurl, asks the Hub's API for the repository's files and
 * fetches what the load plan reads (config.json, tokenizer_config.json, the
 * index, each weight file's header by range requests), writing one frame per
 * response to the parent. hub.c parses the frames into the facts. Bounded:
 * HUB_REQUESTS_MAX requests and HUB_BYTES_MAX bytes, under one deadline. */
#ifndef CD_HUB_INT_H
#define CD_HUB_INT_H

#include <stddef.h>
#include <stdint.h>

#include "probe/isolate.h"

#define HUB_REQUESTS_MAX 1024
#define HUB_BYTES_MAX	 ((uint64_t)256 << 20)
#define HUB_JSON_MAX	 ((size_t)16 << 20)    /* the API answer, config.json, tokenizer_config */
#define HUB_INDEX_MAX	 ((size_t)64 << 20)    /* as the local reader's index cap */
#define HUB_HEADER_MAX	 ((uint64_t)100000000) /* safetensors' own header limit */
#define HUB_PREFIX_FIRST ((uint64_t)64 << 10)
#define HUB_GGUF_MAX	 ((uint64_t)64 << 20)

/* What the child is asked; strings live in the parent's memory (copied by fork). */
struct hub_req {
	const char *endpoint; /* no trailing '/' */
	const char *repo;     /* ORG/NAME */
	const char *revision;
	const char *token; /* NULL: none */
	int timeout_ms;	   /* per request */
};

/* Frames: a header line "KIND STATUS TOTAL LEN CODE NAME\n" and LEN bytes.
 * KIND: curl (the libcurl version), nolib (libcurl could not be loaded), api,
 * file, err (no response: the message), limit, end. CODE is X-Error-Code or
 * "-"; TOTAL the file's length from Content-Range, -1 when unknown. */
void hub_fetch_child(struct iso_out *o, void *arg); /* an iso_fn */

#endif
