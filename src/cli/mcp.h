/* mcp: the tools `cuda-doctor mcp` serves (mcp_tools.c). Each tool runs this
 * binary's own command (check, explain, model, jit, fix) in an isolated child
 * under a deadline and returns its JSON report. The returned json_t trees
 * belong to the caller (json_decref); a tool that cannot run is a result with
 * isError set, never a failure of the server. */
#ifndef CD_CLI_MCP_H
#define CD_CLI_MCP_H

#include <jansson.h>

#include "core/err.h"
#include "core/opts.h"

/* The tools/list result: {"tools": [{name, title, description, inputSchema}]}. */
CD_WUR json_t *mcp_tools_list(void);
/* The tools/call result for one tool and its arguments (an object or NULL):
 * {"content": [{"type": "text", "text": REPORT}], "structuredContent": REPORT,
 * "isError": false}. *unknown is set when no tool has that name (the caller
 * answers with a JSON-RPC error instead). */
CD_WUR json_t *mcp_tools_call(const struct cd_opts *opts, const char *name, json_t *args,
			      int *unknown);

#endif
