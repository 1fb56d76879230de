import express, { type NextFunction, type Request, type Response } from "express";
import { AppError, type AuditPublisher, type Logger } from "@agent-orchestrator/shared/runtime";
import type { AgentList } from "./agents/agent-list.js";
import { agentsRoutes } from "./agents/agents-routes.js";
import { auditRoutes } from "./audit/audit-routes.js";
import { authenticate } from "./auth/auth.js";
import { oidcRoutes } from "./auth/oidc-routes.js";
import type { SignInServices } from "./auth/sign-in-services.js";
import { chatRoute } from "./chat/chat-route.js";
import type { StartChat } from "./chat/start-chat.js";
import { allowedHosts, authenticationRequired } from "./config.js";
import type { GatewayContext } from "./gateway-context.js";
import { healthRoute } from "./health-route.js";
import { gitRoutes } from "./git/git-routes.js";
import { StagedResponses } from "./git/staged-responses.js";
import { projectArchiveRoute } from "./repositories/project-archive-route.js";
import { greetingRoutes } from "./sessions/greeting-routes.js";
import { requireAllowedHost } from "./http/host-check.js";
import { refuseCrossSiteWrites } from "./http/cross-site-writes.js";
import { mcpRoute } from "./mcp/mcp-route.js";
import { openAiRoutes } from "./openai/openai-routes.js";
import { projectFilesRoutes } from "./files/project-files-routes.js";
import { projectOverviewRoute } from "./files/project-overview-route.js";
import { projectsRoutes } from "./projects/projects-routes.js";
import { branchRoutes } from "./repositories/branch-routes.js";
import { pushRoute } from "./repositories/push-route.js";
import { repositoryRoutes } from "./repositories/repository-routes.js";
import { usageRoutes } from "./usage/usage-routes.js";
import { settingsRoutes } from "./settings/settings-routes.js";
import { rateLimit } from "./limits/rate-limit.js";
import type { UserRateLimit } from "./limits/user-rate-limit.js";
import type { WebSocketCaps } from "./limits/websocket-caps.js";
import type { ResponseStore } from "./openai/response-store.js";
import type { PersonalTokens } from "./tokens/personal-tokens.js";
import type { ContentReader } from "./files/content-reader.js";
import type { UploadStaging } from "./uploads/upload-staging.js";
import { requestContext, securityHeaders } from "./http/request-context.js";
import { sendError } from "./http/send-error.js";
import { sessionFilesRoutes } from "./files/session-files-routes.js";
import { sessionsRoutes } from "./sessions/sessions-routes.js";
import { approvalRoutes } from "./sessions/approval-routes.js";
import { tokensRoutes } from "./tokens/tokens-routes.js";
import { toAppError } from "./http/to-app-error.js";
import { traceRequests } from "./http/trace-requests.js";
import { uploadRoutes } from "./uploads/upload-routes.js";
import { sessionUploadRoutes } from "./uploads/session-upload-routes.js";
import { webPage } from "./web-page.js";
import { jsonBody } from "./http/json-body.js";

/**
 * The gateway's feature services, built once at start (gateway-service.ts). Each route factory below is handed
 * the ones it uses; the core every route shares is the GatewayContext.
 */
export interface GatewayServices {
  /** who a caller is: the limit on wrong tokens, OpenID Connect (undefined without OIDC_ISSUER), the personal tokens */
  auth: SignInServices;
  /** personal API tokens (docs/tokens.md): made, listed and revoked by their owners */
  personalTokens: PersonalTokens;
  /** each user's request budget, shared by every door (HTTP, SSE, /v1, /mcp per message, WebSocket messages) */
  requestRate: UserRateLimit;
  /** WebSockets and watches held open, per address, per user and in all */
  webSockets: WebSocketCaps;
  /** every agent the registry lists, kept until the registry announces a change */
  agents: AgentList;
  /** where request bodies are streamed on their way to the tool-runner (docs/uploads.md) */
  uploads: UploadStaging;
  /** file contents read chunk by chunk for downloads and exports */
  contents: ContentReader;
  /** the audit log (docs/audit.md): `audit.record({...})` records one act; it never throws nor fails the act */
  audit: AuditPublisher;
  /** `/v1/responses` by id: each response's chat and turn (docs/openai-api.md "Responses"), in KV */
  responses: ResponseStore;
  /** the chat use case every door starts its turns with (chat/start-chat.ts) */
  startChat: StartChat;
}

/** The express application: routes, limits and the error shape of docs/design.md "Clients" everywhere. */
export function createApp(context: GatewayContext, services: GatewayServices): express.Express {
  const { auth, requestRate, agents, uploads, contents, audit, responses, startChat } = services;
  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.use(traceRequests, requestContext(context.logger), securityHeaders, countRequests(context));
  // unauthenticated, the Host is the only thing a DNS-rebinding page cannot fake, and a browser's Origin the
  // only sign that another site's page sent a write (signed in, a cookie's writes carry the CSRF proof instead)
  if (!authenticationRequired(context.config)) app.use(requireAllowedHost(allowedHosts(context.config)), refuseCrossSiteWrites(context.config.ALLOWED_ORIGINS));
  app.use(healthRoute(context));
  app.get("/metrics", (_request, response, next) => {
    context.metrics.registry.metrics().then((text) => response.type(context.metrics.registry.contentType).send(text), next);
  });
  // each API authenticates before it reads a body, takes from the caller's request budget, and answers in its own error shape
  app.use(gitRoutes(context, { auth, requestRate, uploads, audit }));
  app.use("/v1", openAiRoutes(context, { auth, requestRate, agents, startChat, responses }));
  app.use("/mcp", mcpRoute(context, { auth, requestRate, agents, startChat }));
  // sign-in and sign-out, and who the caller is (auth/oidc-routes.ts)
  app.use(oidcRoutes(context, { auth, audit }));
  app.use("/api", authenticate(context, auth, { cookie: true }), rateLimit(requestRate));
  // a chat turn is the API's hot path: its route comes first and parses its own JSON body (bench/README.md "A sixth pass")
  app.use(chatRoute(context, { startChat }));
  // a file upload's body is the file itself, whatever its type: these routes come before the JSON parser
  const staged = new StagedResponses(context);
  app.use(projectArchiveRoute(context, { contents, staged, audit }), uploadRoutes(context, { uploads, audit }), sessionUploadRoutes(context, { uploads, audit }), projectFilesRoutes(context, { contents, staged, audit }), repositoryRoutes(context, { uploads, audit }), branchRoutes(context, { audit }));
  app.use(pushRoute(context, { audit }));
  app.use(jsonBody(context.config.BODY_LIMIT_BYTES));
  app.use(
    greetingRoutes(context, { audit }),
    agentsRoutes(context, { agents }),
    sessionsRoutes(context, { audit }),
    approvalRoutes(context),
    sessionFilesRoutes(context),
    projectsRoutes(context, { audit }),
    settingsRoutes(context, { audit }),
    usageRoutes(context),
    projectOverviewRoute(context),
    tokensRoutes(context, { tokens: services.personalTokens, audit }),
    auditRoutes(context),
  );
  app.use(webPage());
  app.use((_request, response) => sendError(response, new AppError("NOT_FOUND", "No such route")));
  app.use(errorHandler);
  return app;
}

function countRequests(context: GatewayContext) {
  return (request: Request, response: Response, next: NextFunction): void => {
    response.on("finish", () => {
      const route = (request.route as { path?: string } | undefined)?.path ?? "unmatched";
      context.metrics.requests.inc({ method: request.method, route: String(route), status: String(response.statusCode) });
    });
    next();
  };
}

/** Express' own errors (body too large, malformed JSON) and ours become the error shape of docs/design.md "Clients". */
function errorHandler(error: unknown, _request: Request, response: Response, _next: NextFunction): void {
  const appError = toAppError(error, response.locals["logger"] as Logger);
  if (response.headersSent) {
    response.end();
    return;
  }
  sendError(response, appError);
}
