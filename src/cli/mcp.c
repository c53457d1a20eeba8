/* mcp: `cuda-doctor mcp` - a Model Context Protocol server over stdio, so an
 * AI coding assistant asks this machine instead of guessing. JSON-RPC 2.0, one
 * message per line (the MCP stdio transport: UTF-8, newline-delimited, no
 * embedded newlines), parsed with jansson. Methods: initialize, ping,
 * tools/list, tools/call (mcp_tools.c); notifications are never answered. A
 * line that is not JSON is -32700, a message that is not a request -32600
 * (batches too: MCP 2025-06-18 removed them), an unknown method -32601, bad
 * params or an unknown tool -32602; a line over MCP_LINE_MAX is discarded to
 * its newline and answered -32600. The server runs until stdin ends. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/mcp.h"
#include "core/buf.h"

#define MCP_LINE_MAX ((size_t)8 << 20) /* explain's logs come inline */
#define MCP_CHUNK    65536
#define JSONRPC	     "2.0" /* the protocol's version string, JSON-RPC 2.0 section 4 */

enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602
};

/* Newest first; a client asking for another gets the newest. */
static const char *const versions[] = {"2025-06-18", "2025-03-26", "2024-11-05", NULL};

static const char instructions[] =
	"cuda-doctor diagnoses the NVIDIA driver, GPUs, CUDA toolkits, containers and the "
	"Python / PyTorch / DeepSpeed / Hugging Face stack of the machine this server runs on, "
	"from its files, without importing torch. Call check before guessing at an environment "
	"problem, explain with the text of a failed run, model before a from_pretrained() or "
	"pipeline() load, jit before a DeepSpeed or torch extension build. Each finding carries "
	"the evidence and the exact fix.";

static int send(json_t *msg)
{
	int rc = 0;

	if (!msg || json_dumpf(msg, stdout, JSON_COMPACT) != 0 || fputc('\n', stdout) == EOF ||
	    fflush(stdout) != 0)
		rc = -1;
	json_decref(msg);
	return rc;
}

static json_t *error_msg(json_t *id, int code, const char *message)
{
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", JSONRPC, "id",
			 id ? id : json_null(), "error", "code", code, "message", message);
}

static json_t *result_msg(json_t *id, json_t *result)
{
	return json_pack("{s:s, s:O, s:o}", "jsonrpc", JSONRPC, "id", id, "result", result);
}

static json_t *initialize(json_t *params)
{
	const char *want = json_string_value(json_object_get(params, "protocolVersion"));
	const char *v = versions[0];
	size_t i;

	for (i = 0; want && versions[i]; i++)
		if (!strcmp(want, versions[i]))
			v = versions[i];
	return json_pack("{s:s, s:{s:{s:b}}, s:{s:s, s:s, s:s}, s:s}", "protocolVersion", v,
			 "capabilities", "tools", "listChanged", 0, "serverInfo", "name",
			 "cuda-doctor", "title", "cuda-doctor", "version", CD_VERSION,
			 "instructions", instructions);
}

static json_t *call(const struct cd_opts *opts, json_t *id, json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments"), *res;
	char msg[160];
	int unknown;

	if (!json_is_object(params) || !name)
		return error_msg(id, RPC_INVALID_PARAMS, "tools/call needs params.name");
	if (args && !json_is_object(args) && !json_is_null(args))
		return error_msg(id, RPC_INVALID_PARAMS, "params.arguments must be an object");
	res = mcp_tools_call(opts, name, json_is_null(args) ? NULL : args, &unknown);
	if (unknown) {
		snprintf(msg, sizeof(msg), "Unknown tool: %.100s", name);
		return error_msg(id, RPC_INVALID_PARAMS, msg);
	}
	return res ? result_msg(id, res) : error_msg(id, RPC_INVALID_PARAMS, "out of memory");
}

/* The reply to one message, or NULL when none is due (a notification, a
 * response from the client). */
static json_t *dispatch(const struct cd_opts *opts, json_t *m)
{
	json_t *id = json_object_get(m, "id"), *params = json_object_get(m, "params");
	const char *method = json_string_value(json_object_get(m, "method"));
	const char *ver = json_string_value(json_object_get(m, "jsonrpc"));

	if (!json_is_object(m))
		return error_msg(NULL, RPC_INVALID_REQUEST,
				 json_is_array(m) ? "batches are not supported"
						  : "a request must be a JSON object");
	if (id && !json_is_string(id) && !json_is_integer(id))
		return error_msg(NULL, RPC_INVALID_REQUEST, "id must be a string or an integer");
	if (!ver || strcmp(ver, JSONRPC))
		return error_msg(id, RPC_INVALID_REQUEST, "jsonrpc must be \"" JSONRPC "\"");
	if (!json_object_get(m, "method") &&
	    (json_object_get(m, "result") || json_object_get(m, "error")))
		return NULL; /* a response: this server sends no requests */
	if (!method)
		return error_msg(id, RPC_INVALID_REQUEST, "method must be a string");
	if (!id)
		return NULL; /* notifications/initialized, notifications/cancelled, ... */
	if (params && !json_is_object(params) && !json_is_array(params))
		return error_msg(id, RPC_INVALID_PARAMS, "params must be an object");
	if (!strcmp(method, "initialize"))
		return result_msg(id, initialize(params));
	if (!strcmp(method, "ping"))
		return result_msg(id, json_object());
	if (!strcmp(method, "tools/list"))
		return result_msg(id, mcp_tools_list());
	if (!strcmp(method, "tools/call"))
		return call(opts, id, params);
	return error_msg(id, RPC_METHOD_NOT_FOUND, "Method not found");
}

static int handle_line(const struct cd_opts *opts, const char *p, size_t n)
{
	json_error_t je;
	json_t *m, *reply;
	char msg[300];

	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (!n)
		return 0;
	m = json_loadb(p, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL | JSON_DECODE_ANY, &je);
	if (!m) {
		snprintf(msg, sizeof(msg), "Parse error: %s (column %d)", je.text, je.column);
		return send(error_msg(NULL, RPC_PARSE_ERROR, msg));
	}
	reply = dispatch(opts, m);
	json_decref(m);
	return reply ? send(reply) : 0;
}

/* Split what stdin gives into lines; a line past the cap is dropped to its
 * newline and answered once. */
static int serve(const struct cd_opts *opts)
{
	struct cd_buf line;
	char chunk[MCP_CHUNK];
	int rc = 0, dropping = 0;
	ssize_t got;

	buf_init(&line, MCP_LINE_MAX);
	while (!rc && (got = read(STDIN_FILENO, chunk, sizeof(chunk))) != 0) {
		char *p = chunk, *nl;
		size_t left;
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		left = (size_t)got;
		while (!rc && left) {
			size_t take;
			nl = memchr(p, '\n', left);
			take = nl ? (size_t)(nl - p) : left;
			if (!dropping && buf_append(&line, p, take)) {
				dropping = 1;
				buf_reset(&line);
			}
			if (nl) {
				rc = dropping ? send(error_msg(NULL, RPC_INVALID_REQUEST,
							       "request larger than 8 MiB"))
					      : handle_line(opts, line.p ? line.p : "", line.len);
				dropping = 0;
				buf_reset(&line);
				take++;
			}
			p += take;
			left -= take;
		}
	}
	if (!rc && !dropping && line.len)
		rc = handle_line(opts, line.p, line.len);
	buf_free(&line);
	return rc;
}

int cmd_mcp(int argc, char **argv, struct cd_opts *opts)
{
	if (argc > 1)
		return cli_usage_error("mcp", "unexpected argument '%s'", argv[1]);
	if (isatty(STDIN_FILENO))
		fprintf(stderr, "cuda-doctor mcp: a Model Context Protocol server; it reads "
				"JSON-RPC messages on stdin (docs/mcp.md). Ctrl-D ends it.\n");
	return serve(opts) ? CD_EXIT_INTERNAL : CD_EXIT_OK;
}
