import { z } from "zod";

/**
 * An MCP client's answer to an `elicitation/create` the gateway sent during a `chat` tool call, relayed by the gateway
 * replica that received the client's POST to the one whose call waits for it, on `gateway.mcp.elicitation.<key>`
 * (docs/openai-api.md "Approvals through elicitation"): the stateless /mcp route gives each POST its own server, so the
 * answer never reaches the waiting one by itself. `user` is who signed the POST: the waiting call takes only its own
 * user's answer. `result` is the JSON-RPC result (an ElicitResult, checked by the waiting call), `error` its error.
 */
export const McpElicitationAnswer = z.object({
  user: z.string().min(1).max(128),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ code: z.number().int(), message: z.string().max(4_000) }).optional(),
});
export type McpElicitationAnswer = z.infer<typeof McpElicitationAnswer>;
