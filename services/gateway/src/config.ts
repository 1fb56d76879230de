import { z } from "zod";
import { baseEnvSchema, envInt } from "@agent-orchestrator/shared/runtime";
import { parseAuthTokens } from "./env/auth-tokens.js";
import { oidcConfigProblem, oidcEnvShape } from "./env/oidc-config.js";
import { TrustedProxies } from "./env/trusted-proxies.js";

export const gatewayEnvSchema = baseEnvSchema.extend({
  PORT: envInt(3000, 0, 65535).describe("HTTP port (also serves `GET /metrics`)"),
  HOST: z
    .string()
    .min(1)
    .optional()
    .describe(
      "listen address; unset: 127.0.0.1 without AUTH_TOKENS and OIDC_ISSUER (an open gateway must not be reachable from the network), 0.0.0.0 with either",
    ),
  AUTH_TOKENS: z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined || value.trim() === "") return undefined;
      const parsed = parseAuthTokens(value);
      if (!parsed.ok) {
        context.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed.value;
    })
    .describe(
      "`user:token` pairs, comma-separated, e.g. `alice:s3cret-token,bob:other-token` (tokens of at least 8 characters); unset: no authentication, every caller is the user `local` (docs/api.md \"Authentication\")",
    ),
  CHAT_IDLE_TIMEOUT_MS: envInt(660_000, 1_000, 3_600_000).describe(
    "how long a running turn may go without any event before the gateway gives up on it; above the orchestrator's longest silence, MODEL_FIRST_BYTE_TIMEOUT_MS (10 min: a local model reading a long prompt sends nothing meanwhile) (docs/models.md \"Timeouts\")",
  ),
  RUN_PICKUP_TIMEOUT_MS: envInt(30_000, 500, 600_000).describe(
    "how long a turn may wait for an orchestrator to take it; after it the queued turn is dropped and the answer is OVERLOADED (503, `retry-after: 5`) when orchestrators answer but are all busy, SERVICE_UNAVAILABLE only when none answers two pings in a row",
  ),
  REQUEST_TIMEOUT_MS: envInt(5_000, 100, 60_000).describe(
    "time limit of NATS requests to the registry, orchestrator and tool-runner (agents, sessions, projects, files)",
  ),
  RATE_LIMIT_PER_MINUTE: envInt(600, 1, 1_000_000).describe(
    "requests per minute per user, one budget for every door: an HTTP request on /api (JSON or SSE), /v1 or /mcp costs one, each message of an MCP batch one, each WebSocket `chat`, `watch` and `cancel` one; above it 429 RATE_LIMITED with `retry-after` (on the WebSocket a RATE_LIMITED error event)",
  ),
  ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").map((origin) => origin.trim()).filter((origin) => origin !== ""))
    .describe("extra origins, comma-separated, allowed to open /ws and call /mcp from a browser, and without sign-in to send /api and /v1 writes (the gateway's own origin always is; a write from any other is 403 CSRF_REFUSED)"),
  BODY_LIMIT_BYTES: envInt(256 * 1024, 1_024, 16 * 1024 * 1024).describe(
    "largest accepted JSON request body (413 above); file uploads and archives have UPLOAD_MAX_BYTES",
  ),
  UPLOAD_MAX_BYTES: envInt(256 * 1024 * 1024, 1_024, 64 * 1024 * 1024 * 1024).describe(
    "largest file one upload (`PUT` or one part of a multipart `POST` to /api/projects/:id/files or /api/sessions/:id/files), code snapshot or import archive may be; past it the upload stops with 413 PAYLOAD_TOO_LARGE and nothing is stored (docs/uploads.md)",
  ),
  REPOSITORY_BUNDLE_MAX_BYTES: envInt(2 * 1024 * 1024 * 1024, 1_024, 64 * 1024 * 1024 * 1024).describe(
    "largest git bundle `PUT /api/projects/:id/repository` takes (docs/repositories.md); past it 413 PAYLOAD_TOO_LARGE and nothing is stored. The tool-runner's REPOSITORY_MAX_BYTES bounds what it keeps",
  ),
  REPOSITORY_IMPORT_TIMEOUT_MS: envInt(30 * 60_000, 10_000, 2 * 60 * 60_000).describe(
    "how long a client may take to send a repository bundle (`PUT /api/projects/:id/repository`: 1 GB at 0.6 MB/s by default; past it 408 and the connection closed), and how long the gateway then waits for a tool-runner to take the repository: a bundle received, checked by git index-pack and stored, or a clone made (a 1 GB bundle takes minutes: bench/README.md measure 21). Past it 504 SERVICE_TIMEOUT; the tool-runner may still finish, and GET shows whether it did",
  ),
  UPLOAD_MAX_FILES: envInt(100, 1, 10_000).describe("files one multipart upload may carry; past it the request is refused with 413 and nothing after the limit is stored"),
  UPLOAD_TIMEOUT_MS: envInt(300_000, 1_000, 600_000).describe(
    "how long a client may take to send an upload, snapshot, import archive or `git push` body (past it 408 and the connection closed), and how long the gateway then waits for the tool-runner to take one upload (store it, convert a document) or an archive (check and store every file), and to answer one git request (a clone's pack made, a push stored)",
  ),
  GIT_PUSH_MAX_BYTES: envInt(512 * 1024 * 1024, 1_024, 64 * 1024 * 1024 * 1024).describe(
    "largest body of one `git push` over /git/<project>.git (its pack, after decompression); past it the push is refused in git's own report (`remote unpack failed: the push is larger than …`) and nothing of it is stored (docs/repositories.md \"Plain git over HTTP\")",
  ),
  AUTH_FAILURES_PER_MINUTE: envInt(10, 1, 100_000).describe(
    "different wrong tokens one client address may send per minute (HTTP, /v1, /mcp, the WebSocket upgrade and `{type:\"auth\"}`; the same wrong token again counts once); past it a token new to that address gets 429 RATE_LIMITED with `retry-after`, unchecked, until the oldest failure is a minute old, while tokens that have signed in from that address before keep working. Refused OpenID Connect callbacks are counted the same way on a count of their own: past it a callback gets 429 and leaves no audit record",
  ),
  PERSONAL_TOKENS_PER_USER: envInt(20, 1, 1_000).describe(
    "personal API tokens one user may hold at once (`POST /api/tokens`); past it 409 TOKEN_LIMIT until one is revoked (docs/tokens.md)",
  ),
  AUDIT_MAX_AGE_DAYS: envInt(365, 1, 36_500).describe(
    "days the AUDIT stream keeps a record (docs/audit.md); older records are dropped by JetStream, so export them first if they must be kept longer",
  ),
  AUDIT_MAX_BYTES: envInt(1024 ** 3, 1024 ** 2, 1024 ** 4).describe(
    "bytes of the AUDIT stream; at the limit the oldest records are dropped (discard old), so recording never stops. JetStream reserves the limit on disk when the stream is made",
  ),
  RESPONSES_MAX_AGE_DAYS: envInt(30, 1, 3_650).describe(
    "days a `/v1/responses` response is kept in the gateway's `responses` bucket (retrieved by id, continued by `previous_response_id`; docs/openai-api.md \"Responses\"). The chat it belongs to is kept until it is deleted",
  ),
  JS_REPLICAS: envInt(1, 1, 5).describe(
    "copies of the gateway's AUDIT stream and `personal_tokens` bucket (the others are the orchestrator's and the tool-runner's); 3 on a three-server cluster. They are made with it; an existing stream keeps the replicas it has (change them with the `nats` CLI)",
  ),
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((value, context) => {
      const parsed = TrustedProxies.parse(value);
      if (!parsed.ok) {
        context.addIssue({ code: "custom", message: parsed.error });
        return z.NEVER;
      }
      return parsed.value;
    })
    .describe(
      "the proxies whose X-Forwarded-For names the client address (what AUTH_FAILURES_PER_MINUTE and WS_MAX_CONNECTIONS_PER_ADDRESS count): unset, none (the socket's peer is the client); a number, that many nearest hops whatever their address; or addresses and CIDR ranges, comma-separated, and `loopback`, `linklocal`, `uniquelocal` (Express' `trust proxy` names), e.g. `10.0.0.0/8,loopback`. `true` and `*` are refused. Set it only to what is really in front of the gateway: a trusted peer can name any address",
    ),
  WS_MESSAGES_PER_SECOND: envInt(20, 1, 10_000).describe(
    "messages one WebSocket may send per second (bursts up to the same number); above it the socket gets a RATE_LIMITED error and is closed (1008)",
  ),
  WS_AUTH_TIMEOUT_MS: envInt(10_000, 100, 600_000).describe(
    "a WebSocket that has not signed in (Authorization on the upgrade, or `{type:\"auth\"}`) this long after it opened gets an UNAUTHORIZED error and is closed (1008 `authentication timeout`)",
  ),
  WS_MAX_CONNECTIONS: envInt(2_000, 1, 1_000_000).describe(
    "WebSockets open at once on one gateway replica; an upgrade past it gets 503 with `retry-after: 5`",
  ),
  WS_MAX_CONNECTIONS_PER_ADDRESS: envInt(100, 1, 1_000_000).describe(
    "WebSockets open at once from one client address (IPv6: one /64; see TRUSTED_PROXIES), signed in or not; an upgrade past it gets 429",
  ),
  WS_MAX_CONNECTIONS_PER_USER: envInt(32, 1, 1_000_000).describe(
    "WebSockets open at once of one user; past it 429 at the upgrade, or a RATE_LIMITED error and a 1008 close after `{type:\"auth\"}`",
  ),
  WS_MAX_WATCHES_PER_SOCKET: envInt(16, 1, 10_000).describe(
    "sessions one WebSocket may watch at once; a `watch` past it gets a RATE_LIMITED error event (`unwatch` frees one)",
  ),
  WS_MAX_WATCHES_PER_USER: envInt(64, 1, 1_000_000).describe(
    "watches one user may have open at once over all their WebSockets; past it a RATE_LIMITED error event",
  ),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: envInt(65_000, 1_000, 290_000).describe(
    "how long the HTTP server keeps an idle keep-alive connection open; keep it above the idle timeout of every client and proxy in front (Node's own 5 s raced clients that reuse a connection just as it closed)",
  ),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(300_000)
    .optional()
    .describe(
      "how long a client may take to send a request's headers; unset: HTTP_KEEP_ALIVE_TIMEOUT_MS + 1000. Must be above HTTP_KEEP_ALIVE_TIMEOUT_MS (the gateway stops at start otherwise)",
    ),
  HTTP_REQUEST_TIMEOUT_MS: envInt(300_000, 1_000, 60 * 60_000).describe(
    "how long a client may take to send a whole request once its headers arrived, on routes without a bound of their own (Node's 300 s); a repository bundle (`PUT /api/projects/:id/repository`) has REPOSITORY_IMPORT_TIMEOUT_MS, a file upload, snapshot, import archive or `git push` body UPLOAD_TIMEOUT_MS. Past it 408 and the connection is closed (docs/operations.md \"Slow uploads\")",
  ),
  ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").map((host) => host.trim().toLowerCase()).filter((host) => host !== ""))
    .describe(
      "extra host names (no port, comma-separated) that /mcp answers to, and without AUTH_TOKENS and OIDC_ISSUER every route and /ws, besides localhost, 127.0.0.1, [::1] and HOST; a request whose `Host` is any other name is refused with 403 (DNS-rebinding protection)",
    ),
  ...oidcEnvShape,
});
export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;

/** Whether callers must prove who they are (AUTH_TOKENS, OpenID Connect or both); otherwise everyone is the local user. */
export const authenticationRequired = (config: GatewayConfig): boolean => config.AUTH_TOKENS !== undefined || config.OIDC_ISSUER !== undefined;

/**
 * Host names the gateway answers to where it checks `Host` (`/mcp` always; every route and the WebSocket
 * without AUTH_TOKENS and OIDC_ISSUER): the loopback names, HOST when it is one address, and ALLOWED_HOSTS.
 */
export function allowedHosts(config: GatewayConfig): string[] {
  const hosts = new Set(["localhost", "127.0.0.1", "[::1]", ...config.ALLOWED_HOSTS]);
  if (config.HOST && config.HOST !== "0.0.0.0" && config.HOST !== "::") hosts.add(config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST);
  return [...hosts];
}

/** Where the HTTP server listens: all interfaces only when requests are authenticated. */
export function listenHost(config: GatewayConfig): string {
  return config.HOST ?? (authenticationRequired(config) ? "0.0.0.0" : "127.0.0.1");
}

/** Problems between settings that no single variable's schema can see; undefined when there are none. */
export function gatewayConfigProblem(config: GatewayConfig): string | undefined {
  const oidcProblem = oidcConfigProblem(config);
  if (oidcProblem) return oidcProblem;
  if (config.HTTP_HEADERS_TIMEOUT_MS !== undefined && config.HTTP_HEADERS_TIMEOUT_MS <= config.HTTP_KEEP_ALIVE_TIMEOUT_MS) {
    return `Invalid configuration: HTTP_HEADERS_TIMEOUT_MS (${config.HTTP_HEADERS_TIMEOUT_MS}) must be above HTTP_KEEP_ALIVE_TIMEOUT_MS (${config.HTTP_KEEP_ALIVE_TIMEOUT_MS})`;
  }
  return undefined;
}
