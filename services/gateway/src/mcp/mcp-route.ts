import { Router, type NextFunction, type Request, type Response } from "express";
import { hostHeaderValidation } from "@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { AppError, type Logger } from "@agent-orchestrator/shared/runtime";
import { authenticate, currentSignIn, currentUser } from "../auth/auth.js";
import { allowedHosts } from "../config.js";
import type { GatewayContext } from "../gateway-context.js";
import { relayElicitationAnswer } from "./client-elicitation.js";
import { createMcpServer, type McpServices } from "./mcp-server.js";
import { canElicit, sessionIdFor } from "./mcp-session-id.js";
import { originAllowed } from "../http/origin-check.js";
import { rateLimit } from "../limits/rate-limit.js";
import type { UserRateLimit } from "../limits/user-rate-limit.js";
import type { SignInServices } from "../auth/sign-in-services.js";
import { sendError } from "../http/send-error.js";
import { toAppError } from "../http/to-app-error.js";
import { jsonBody } from "../http/json-body.js";

/**
 * `/mcp`: the MCP server over Streamable HTTP, stateless: every POST gets its own server and transport,
 * so any gateway replica answers any request and nothing lives in one process (a conversation's state is
 * the `chat` tool's session, in the orchestrator's store). Before MCP sees a request: the `Host` must be
 * one this gateway answers to and a browser's `Origin` its own or allowed (DNS-rebinding protection), and
 * the bearer token must be valid, as on `/api`. `initialize` is answered with an `Mcp-Session-Id` that carries what
 * the client declared (mcp-session-id.ts), so a later request knows whether its client can be asked questions; a
 * client's answer to one (elicitation) is relayed to the call that waits for it, on whichever replica
 * (client-elicitation.ts), and never reaches a server of its own.
 */
export function mcpRoute(context: GatewayContext, services: McpServices & { auth: SignInServices; requestRate: UserRateLimit }): Router {
  const router = Router();
  router.use(hostHeaderValidation(allowedHosts(context.config)), (request, _response, next) => {
    next(originAllowed(request, context.config.ALLOWED_ORIGINS) ? undefined : new AppError("FORBIDDEN", "This origin may not use /mcp"));
  });
  // a JSON-RPC batch is as many requests as it has messages: 60 `tools/call` in one POST start 60 turns
  router.use(authenticate(context, services.auth), jsonBody(context.config.BODY_LIMIT_BYTES), rateLimit(services.requestRate, jsonRpcMessages));

  router.post(
    "/",
    async (request, response) => {
      const user = currentUser(response);
      const batch = Array.isArray(request.body);
      const messages: unknown[] = batch ? (request.body as unknown[]) : [request.body];
      const rest = messages.filter((message) => !relayElicitationAnswer(context, user, message));
      // only answers to this gateway's questions: accepted, as MCP accepts any POST of responses
      if (rest.length === 0) {
        response.status(202).end();
        return;
      }
      const initialize = rest.find((message) => isInitializeRequest(message));
      const server = createMcpServer(context, services, {
        owner: user,
        signIn: currentSignIn(response),
        clientAddress: context.clientAddress(request),
        canElicit: canElicit(request.headers["mcp-session-id"]),
      });
      // a session id only at initialize, where the transport hands it out; later requests are served statelessly
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: initialize === undefined ? undefined : () => sessionIdFor(initialize) });
      response.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, batch ? rest : rest[0]);
    },
  );
  // stateless: no stream to open with GET, no session to end with DELETE
  router.all("/", (_request, response) => {
    response.status(405).set("allow", "POST").json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed" }, id: null });
  });
  router.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => {
    const appError = toAppError(error, response.locals["logger"] as Logger);
    if (response.headersSent) response.end();
    else sendError(response, appError);
  });
  return router;
}

/** The messages of an MCP POST: a batch's length, else one. */
const jsonRpcMessages = (request: Request): number => (Array.isArray(request.body) ? Math.max(1, request.body.length) : 1);
