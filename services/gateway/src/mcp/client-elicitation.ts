import { randomUUID } from "node:crypto";
import {
  ElicitResultSchema,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type ElicitRequestFormParams,
  type ElicitResult,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { decodeJson, encodeJson, endSubscription } from "@agent-orchestrator/shared/runtime";
import { McpElicitationAnswer, subjects } from "@agent-orchestrator/shared/wire";
import type { GatewayContext } from "../gateway-context.js";

/**
 * Asking an MCP client's user during a tool call, on a stateless route (docs/openai-api.md "Approvals through
 * elicitation"). The request goes out on the call's own SSE stream; the client POSTs its answer as a new request,
 * which any gateway replica may receive and which a fresh server there knows nothing of. So the request's JSON-RPC id
 * is this gateway's own, `ao-elicit-<key>` with a random key: the /mcp route takes every answer to such an id before
 * MCP sees it and publishes it on `gateway.mcp.elicitation.<key>` (relayElicitationAnswer), where the waiting call
 * listens and takes it only when the same user sent it.
 */
const idPrefix = "ao-elicit-";
const keyPattern = /^[0-9a-f-]{36}$/;

/** How an elicitation ended: the client's result; an error it answered with; or withdrawn by the caller (`signal`). */
export type ElicitationOutcome = { outcome: "answered"; result: ElicitResult } | { outcome: "failed"; message: string } | { outcome: "withdrawn" };

/** What an elicitation sends through: the transport of the call's server, and the call it belongs to. */
export interface ElicitationStream {
  /** sends a message on the call's response stream */
  send(message: JSONRPCMessage): Promise<void>;
}

/**
 * Sends `params` to the client as `elicitation/create` on the call's stream and waits for the answer from `user`.
 * Aborting `signal` withdraws it: the client is told with `notifications/cancelled`. Answers from anyone else are
 * dropped (and logged): a key is never guessed, and even a leaked one lets nobody else answer.
 */
export async function elicit(context: GatewayContext, user: string, stream: ElicitationStream, params: ElicitRequestFormParams, signal: AbortSignal): Promise<ElicitationOutcome> {
  const key = randomUUID();
  const id = `${idPrefix}${key}`;
  const subscription = context.connection.subscribe(context.subjectPrefix + subjects.mcpElicitationAnswer(key));
  const withdraw = () => endSubscription(subscription);
  signal.addEventListener("abort", withdraw, { once: true });
  try {
    // the subscription is in place at the server before the client can see the question
    await context.connection.flush();
    if (signal.aborted) return { outcome: "withdrawn" };
    await stream.send({ jsonrpc: "2.0", id, method: "elicitation/create", params });
    for await (const message of subscription) {
      let answer: McpElicitationAnswer;
      try {
        answer = decodeJson(message.data, McpElicitationAnswer);
      } catch (error) {
        context.logger.warn({ err: error }, "an invalid elicitation answer was dropped");
        continue;
      }
      if (answer.user !== user) {
        context.logger.warn({ key }, "an elicitation answer from another user was dropped");
        continue;
      }
      if (answer.error) return { outcome: "failed", message: answer.error.message };
      const result = ElicitResultSchema.safeParse(answer.result);
      return result.success ? { outcome: "answered", result: result.data } : { outcome: "failed", message: "the client's answer is not an elicitation result" };
    }
    await stream.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "no longer needed" } }).catch(() => undefined);
    return { outcome: "withdrawn" };
  } finally {
    signal.removeEventListener("abort", withdraw);
    endSubscription(subscription);
  }
}

/**
 * Relays `message` when it is a client's answer to one of this gateway's elicitations, signed by `user`: published for
 * the call that waits for it, on whichever replica. Says whether it was one.
 */
export function relayElicitationAnswer(context: GatewayContext, user: string, message: unknown): boolean {
  const result = isJSONRPCResultResponse(message) ? message : undefined;
  const error = isJSONRPCErrorResponse(message) ? message : undefined;
  const id: RequestId | undefined = result?.id ?? error?.id;
  if (typeof id !== "string" || !id.startsWith(idPrefix) || !keyPattern.test(id.slice(idPrefix.length))) return false;
  const answer: McpElicitationAnswer = error ? { user, error: { code: error.error.code, message: error.error.message.slice(0, 4_000) } } : { user, result: result?.result ?? {} };
  context.connection.publish(context.subjectPrefix + subjects.mcpElicitationAnswer(id.slice(idPrefix.length)), encodeJson(answer));
  return true;
}
