/* facts/model: one Hugging Face model as from_pretrained() / pipeline() would
 * find it, as the model probe (probe/model/model.h) read it: where it
 * resolves, its config.json, tokenizer files, weight headers (never the tensor
 * data) and the transformers package that would load it. Every string and
 * array lives in the facts' arena; unknown is NULL / CD_UNK / CD_TRI_UNKNOWN. */
#ifndef CD_FACTS_MODEL_H
#define CD_FACTS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "facts/facts.h"

enum md_source {
	MD_SRC_NONE = 0, /* not located */
	MD_SRC_LOCAL,	 /* a directory given by path */
	MD_SRC_FILE,	 /* a single .gguf or .safetensors file given by path */
	MD_SRC_CACHE,	 /* the Hugging Face hub cache */
	MD_SRC_HUB	 /* not cached: the Hub's metadata, read over HTTP without a download */
};

/* What the Hub said, when it was asked (probe/model/hub.c). */
enum md_hub_state {
	MD_HUB_NOT_ASKED = 0, /* cached, a path, offline, or --root without HF_ENDPOINT */
	MD_HUB_OK,	      /* the repository's metadata was read */
	MD_HUB_NOT_FOUND,     /* no such repository, revision or config.json (404, RepoNotFound) */
	MD_HUB_GATED,	      /* a gated repository this token (or none) may not read (401/403) */
	MD_HUB_DENIED,	      /* 401/403 otherwise: a token that is invalid, a private repository */
	MD_HUB_UNREACHABLE    /* no libcurl, no connection, a timeout, 429 or 5xx */
};

const char *md_hub_state_name(enum md_hub_state s);

/* One file of the repository: its size from the Hub's file list and, for the
 * files the load plan reads, the bytes fetched (whole for JSON, the header's
 * prefix for weights). */
struct md_hub_file {
	const char *name;
	int64_t size;	     /* bytes, CD_UNK when the Hub did not say */
	int status;	     /* HTTP status of the fetch; 0 when not fetched */
	const uint8_t *data; /* the fetched bytes, NULL when not fetched */
	size_t len;
	const char *error; /* why the fetch failed */
};

struct md_hub {
	enum md_hub_state state;
	const char *endpoint;	  /* HF_ENDPOINT, else https://huggingface.co */
	const char *url;	  /* the repository's page */
	const char *token_source; /* "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", the token file;
				     NULL when none was sent (the token itself is never kept) */
	const char *libcurl;	  /* the libcurl that was loaded, NULL when none */
	int status;		  /* the HTTP status that decided the state, 0 for none */
	const char *error_code;	  /* X-Error-Code */
	const char *error;	  /* the reason, in words, for any state but OK */
	const char *gated;	  /* the API's "gated": "auto", "manual"; NULL when not gated */
	const char *sha;	  /* the commit the revision resolved to */
	size_t n_files;
	struct md_hub_file *files;
	uint64_t download_bytes; /* the files' sizes added up */
	/* The API's own count of the safetensors parameters ("safetensors":
	 * {"parameters": {dtype: n}, "total": n}), when it gives one: a cross-check
	 * of the headers, and the count when the headers could not all be read. */
	uint64_t api_parameters;
	size_t n_api_dtypes;
	struct md_dtype_stat *api_dtypes;
	size_t n_requests;
	uint64_t bytes_read; /* over the network, all requests */
	int limited;	     /* a bound (requests, bytes, time) stopped the reads early */
};

/* The state of one file the load needs. */
enum md_fstate {
	MD_F_OK = 0,
	MD_F_MISSING,	 /* absent (a shard the index names, config.json, ...) */
	MD_F_DANGLING,	 /* a cache symlink whose blob is gone */
	MD_F_LOOP,	 /* a symlink loop */
	MD_F_UNREADABLE, /* permission denied, not a regular file, I/O error */
	MD_F_TRUNCATED,	 /* shorter than its own header says */
	MD_F_CORRUPT	 /* the header is invalid or inconsistent */
};

const char *md_fstate_name(enum md_fstate s);

struct md_file {
	const char *name; /* relative to the model directory */
	const char *path; /* in-root path */
	const char *blob; /* symlink target, for cache snapshots */
	enum md_fstate state;
	const char *problem; /* why, for any state but OK */
	int64_t size;	     /* bytes, CD_UNK when unknown */
	size_t n_tensors;
	uint64_t n_params;
};

/* One tensor of the checkpoint, as the memory plan needs it. */
struct md_tensor {
	const char *name;
	uint64_t nelem;
	uint64_t rows;	/* first dimension (output features of a Linear weight) */
	uint64_t bytes; /* as stored */
	uint16_t bits;	/* per element as stored; 0 when unknown (GGUF blocks) */
	uint8_t ndim;
	uint8_t is_float;
};

struct md_dtype_stat {
	const char *dtype;
	uint64_t params, bytes;
};

struct md_config {
	enum cd_tri present;
	enum md_fstate state; /* of the config.json file */
	const char *error;    /* not JSON, not an object, unreadable */
	const char *model_type;
	size_t n_arch;
	const char **architectures;
	const char *transformers_version;
	const char *dtype; /* "dtype" (transformers 5) or "torch_dtype" */
	const char *quant_method;
	const char *attn_implementation;
	int has_vision, has_audio; /* vision_config / audio_config present */
	/* auto_map: classes served by code in the repository */
	size_t n_auto_map;
	const char **auto_map;		/* "AutoConfig=configuration_x.XConfig" */
	enum cd_tri auto_config_remote; /* auto_map names AutoConfig */
	size_t n_remote_files;
	const char **remote_files;   /* "modeling_x.py" or "org/repo: modeling_x.py" */
	enum cd_tri *remote_present; /* per file: present in the model directory */
	/* Geometry for the KV cache (text_config first for multimodal configs). */
	int64_t num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, head_dim,
		max_position_embeddings;
};

struct md_transformers {
	const char *prefix;	   /* the Python environment */
	const char *found_via;	   /* python.found_via: "--env", "VIRTUAL_ENV", "CONDA_PREFIX",
				      "PATH", "pyenv" */
	const char *site_packages; /* where transformers was found */
	const char *path;	   /* the package directory */
	const char *version;
	enum cd_tri knows_type; /* the installed tree defines config.model_type */
	const char *knows_via;	/* file that answered */
	enum cd_tri flash_attn; /* flash_attn importable from the same site dir */
	const char *flash_attn_version;
	enum cd_tri bitsandbytes;
	const char *error; /* why the lookup stopped, when it did */
};

struct md_tokenizer {
	size_t n_files;
	const char **files; /* tokenizer files present */
	const char *tokenizer_class;
};

struct md_gguf {
	const char *file;
	uint32_t version;
	const char *architecture, *name;
	int64_t file_type, context_length, block_count, head_count, head_count_kv, embedding_length,
		key_length;
	size_t n_types;
	struct md_dtype_stat *types; /* ggml types with parameter and byte counts */
	size_t n_unknown_types;
};

struct md_weights {
	const char *format; /* "safetensors", "safetensors-sharded", "pytorch",
			       "pytorch-sharded", "gguf"; NULL when none found */
	const char *index;  /* the *.index.json used */
	const char *index_error;
	size_t n_files;
	struct md_file *files;
	size_t n_tensors;
	struct md_tensor *tensors;
	uint64_t n_params;
	int params_exact; /* from headers, not estimated from file sizes */
	uint64_t disk_bytes;
	size_t n_dtypes;
	struct md_dtype_stat *dtypes;
	size_t n_index_missing; /* tensors the index lists but their shard lacks */
	const char *index_missing_example;
	size_t n_index_extra; /* tensors in shards that the index does not list */
	size_t n_other_gguf;  /* further .gguf files not planned */
	int has_pickle;	      /* the load would unpickle .bin files */
	struct md_gguf gguf;
};

struct cd_model_facts {
	const char *spec;     /* PATH or ORG/NAME as given */
	const char *revision; /* --revision, default "main" */
	enum md_source source;
	const char *dir;       /* in-root directory holding config.json (snapshot) */
	const char *file;      /* MD_SRC_FILE: the file's name inside dir */
	const char *not_found; /* why the model could not be located */
	/* Hub cache resolution */
	const char *cache_dir; /* the cache transformers would use */
	const char *cache_var; /* the variable that chose it, or "default" */
	const char *found_in;  /* another cache that holds the model, if any */
	const char *repo_dir;  /* models--ORG--NAME */
	const char *commit;    /* the snapshot's commit hash */
	enum cd_tri offline;   /* HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE */
	int not_cached;	       /* repo, revision or snapshot not cached (yet) */
	size_t n_incomplete;
	const char **incomplete; /* blobs/<etag>.incomplete, with sizes */
	struct md_hub hub;
	struct md_config config;
	struct md_tokenizer tok;
	struct md_weights w;
	struct md_transformers tf;
};

#endif
