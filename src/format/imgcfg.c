/* imgcfg: see imgcfg.h. Shapes: docker/podman inspect (a JSON array, the
 * first object's Config.Env and Architecture), the OCI image config
 * (image-spec config.md: config.Env, architecture) and the OCI runtime
 * config (runtime-spec config.md: process.env). An entry without "=" is
 * skipped, as the engines skip it. */
#include "format/imgcfg.h"

#include <jansson.h>
#include <string.h>

static int env_of(const json_t *list, struct cd_arena *a, struct imgcfg *out, struct cd_err *err)
{
	size_t i, n, k = 0;

	if (!json_is_array(list))
		return err_set(err, CD_EFORMAT, "the environment is not a list of strings");
	n = json_array_size(list);
	if (n > IMGCFG_ENV_MAX)
		return err_set(err, CD_ERANGE, "more than %d environment entries", IMGCFG_ENV_MAX);
	out->env = arena_calloc(a, n + 1, sizeof(*out->env));
	if (!out->env)
		return err_set(err, CD_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		const json_t *v = json_array_get(list, i);
		const char *s = json_string_value(v);
		size_t len = json_string_length(v);
		if (!json_is_string(v))
			return err_set(err, CD_EFORMAT, "environment entry %zu is not a string", i);
		if (len > IMGCFG_VAR_MAX)
			return err_set(err, CD_ERANGE, "environment entry %zu is over %zu bytes", i,
				       IMGCFG_VAR_MAX);
		if (memchr(s, 0, len) || !memchr(s, '=', len) || s[0] == '=')
			continue;
		if (!(out->env[k++] = arena_strndup(a, s, len)))
			return err_set(err, CD_ENOMEM, "out of memory");
	}
	out->n_env = k;
	return 0;
}

static const char *arch_of(const json_t *o, const char *key, struct cd_arena *a)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? arena_strdup(a, json_string_value(v)) : NULL;
}

int imgcfg_parse(const uint8_t *p, size_t n, struct cd_arena *a, struct imgcfg *out,
		 struct cd_err *err)
{
	json_error_t je;
	json_t *root, *o, *env = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (n > IMGCFG_INPUT_MAX)
		return err_set(err, CD_ERANGE, "over %zu bytes: not an image configuration",
			       IMGCFG_INPUT_MAX);
	if (!(root = json_loadb((const char *)p, n, 0, &je)))
		return err_set(err, CD_EFORMAT, "not JSON (line %d: %s)", je.line, je.text);
	o = root;
	if (json_is_array(root) && json_is_object(json_array_get(root, 0)) &&
	    json_is_object(json_object_get(json_array_get(root, 0), "Config"))) {
		o = json_array_get(root, 0); /* docker inspect IMAGE|CONTAINER */
		env = json_object_get(json_object_get(o, "Config"), "Env");
		out->kind = "docker-inspect";
		out->arch = arch_of(o, "Architecture", a);
	} else if (json_is_object(json_object_get(root, "process"))) {
		env = json_object_get(json_object_get(root, "process"), "env");
		out->kind = "oci-runtime";
	} else if (json_is_object(json_object_get(root, "config"))) {
		env = json_object_get(json_object_get(root, "config"), "Env");
		out->kind = "oci-image";
		out->arch = arch_of(root, "architecture", a);
	} else if (json_is_object(json_object_get(root, "Config"))) { /* one inspect object */
		env = json_object_get(json_object_get(root, "Config"), "Env");
		out->kind = "docker-inspect";
		out->arch = arch_of(root, "Architecture", a);
	}
	if (!out->kind)
		rc = err_set(err, CD_EFORMAT,
			     "not an image configuration: no Config.Env (docker inspect), "
			     "config.Env (OCI image) or process.env (OCI runtime bundle)");
	else if (!env || json_is_null(env))
		rc = (out->env = arena_calloc(a, 1, sizeof(*out->env)))
			     ? 0
			     : err_set(err, CD_ENOMEM, "out of memory");
	else
		rc = env_of(env, a, out, err);
	json_decref(root);
	return rc;
}
