import { z } from "zod";
import { baseEnvSchema, envInt } from "@agent-orchestrator/shared";
import { parseAuthTokens } from "./auth-tokens.js";
import { TrustedProxies } from "./trusted-proxies.js";

export const gatewayEnvSchema = baseEnvSchema.extend({
  PORT: envInt(3000, 0, 65535),
  /** defaults to 127.0.0.1 without AUTH_TOKENS (an open gateway must not be reachable from the network) */
  HOST: z.string().min(1).optional(),
  /** `user:token` pairs separated by commas, e.g. `alice:s3cret,bob:other` */
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
    }),
  /** how long a running turn may go without any event before the gateway gives up on it */
  CHAT_IDLE_TIMEOUT_MS: envInt(150_000, 1_000, 3_600_000),
  /** how long a turn may wait for an orchestrator to take it (longer under heavy load) */
  RUN_PICKUP_TIMEOUT_MS: envInt(30_000, 500, 600_000),
  /** NATS requests to the registry, orchestrator and tool-runner (session look-ups, files) */
  REQUEST_TIMEOUT_MS: envInt(5_000, 100, 60_000),
  /**
   * requests per minute per user, one budget for every door (429 above): an HTTP request on /api, /v1 or
   * /mcp one, a WebSocket chat, watch or cancel one, an MCP batch one per message in it
   */
  RATE_LIMIT_PER_MINUTE: envInt(600, 1, 1_000_000),
  /** origins allowed to open the WebSocket besides the gateway's own, comma-separated */
  ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")),
  BODY_LIMIT_BYTES: envInt(256 * 1024, 1_024, 16 * 1024 * 1024),
  /**
   * different wrong tokens one client address may send per minute (HTTP and WebSocket); past it a token new
   * to that address gets 429 with retry-after, while tokens that have signed in from there still work
   */
  AUTH_FAILURES_PER_MINUTE: envInt(10, 1, 100_000),
  /**
   * the proxies whose X-Forwarded-For names the client address that failed sign-ins and WebSocket caps
   * count: unset trusts none (the socket's peer is the client); a number trusts that many nearest hops; or
   * addresses and CIDR ranges, comma-separated, and `loopback`, `linklocal`, `uniquelocal` (as Express' `trust proxy`)
   */
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
    }),
  /** messages one WebSocket may send per second (bursts up to the same number); above it the socket is closed (1008) */
  WS_MESSAGES_PER_SECOND: envInt(20, 1, 10_000),
  /** a WebSocket that has not signed in (Authorization on the upgrade, or `{type:"auth"}`) this long after it opened is closed (1008) */
  WS_AUTH_TIMEOUT_MS: envInt(10_000, 100, 600_000),
  /** open WebSockets in all (per gateway replica); an upgrade past it gets 503 */
  WS_MAX_CONNECTIONS: envInt(2_000, 1, 1_000_000),
  /** open WebSockets from one client address (see TRUSTED_PROXIES), signed in or not; an upgrade past it gets 429 */
  WS_MAX_CONNECTIONS_PER_ADDRESS: envInt(100, 1, 1_000_000),
  /** open WebSockets of one user; an upgrade (or `{type:"auth"}`) past it gets 429 (or RATE_LIMITED and 1008) */
  WS_MAX_CONNECTIONS_PER_USER: envInt(32, 1, 1_000_000),
  /** sessions one WebSocket may watch at once; a `watch` past it gets a RATE_LIMITED error event */
  WS_MAX_WATCHES_PER_SOCKET: envInt(16, 1, 10_000),
  /** watches one user may have open at once over all their WebSockets; past it, a RATE_LIMITED error event */
  WS_MAX_WATCHES_PER_USER: envInt(64, 1, 1_000_000),
  /**
   * how long the HTTP server keeps an idle keep-alive connection open: above the idle timeouts of clients
   * and proxies in front (Node's own 5 s races a client that sends on a connection just as it is closed)
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: envInt(65_000, 1_000, 290_000),
  /**
   * how long a client may take to send a request's headers: above HTTP_KEEP_ALIVE_TIMEOUT_MS (default: 1 s
   * above it), and at most Node's 300 s for a whole request
   */
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(300_000).optional(),
  /**
   * host names (no port) that `/mcp` (and, without AUTH_TOKENS, every route) answers to, comma-separated,
   * besides localhost, 127.0.0.1, [::1] and HOST: a request whose `Host` is another name is refused
   * (DNS-rebinding protection)
   */
  ALLOWED_HOSTS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").map((host) => host.trim().toLowerCase()).filter((host) => host !== "")),
});
export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;

/**
 * Host names the gateway answers to where it checks `Host` (`/mcp` always; every route and the WebSocket
 * without AUTH_TOKENS): the loopback names, HOST when it is one address, and ALLOWED_HOSTS.
 */
export function allowedHosts(config: GatewayConfig): string[] {
  const hosts = new Set(["localhost", "127.0.0.1", "[::1]", ...config.ALLOWED_HOSTS]);
  if (config.HOST && config.HOST !== "0.0.0.0" && config.HOST !== "::") hosts.add(config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST);
  return [...hosts];
}

/** Where the HTTP server listens: all interfaces only when requests are authenticated. */
export function listenHost(config: GatewayConfig): string {
  return config.HOST ?? (config.AUTH_TOKENS ? "0.0.0.0" : "127.0.0.1");
}

/** Problems between settings that no single variable's schema can see; undefined when there are none. */
export function gatewayConfigProblem(config: GatewayConfig): string | undefined {
  if (config.HTTP_HEADERS_TIMEOUT_MS !== undefined && config.HTTP_HEADERS_TIMEOUT_MS <= config.HTTP_KEEP_ALIVE_TIMEOUT_MS) {
    return `Invalid configuration: HTTP_HEADERS_TIMEOUT_MS (${config.HTTP_HEADERS_TIMEOUT_MS}) must be above HTTP_KEEP_ALIVE_TIMEOUT_MS (${config.HTTP_KEEP_ALIVE_TIMEOUT_MS})`;
  }
  return undefined;
}
