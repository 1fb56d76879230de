import { z } from "zod";
import { baseEnvSchema, envInt } from "@agent-orchestrator/shared";
import { parseAuthTokens } from "./auth-tokens.js";

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
  /** requests per minute per user on /api (429 above) */
  RATE_LIMIT_PER_MINUTE: envInt(600, 1, 1_000_000),
  /** origins allowed to open the WebSocket besides the gateway's own, comma-separated */
  ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((value) => (value ?? "").split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")),
  BODY_LIMIT_BYTES: envInt(256 * 1024, 1_024, 16 * 1024 * 1024),
  /** wrong tokens one client address may send per minute (HTTP and WebSocket); then 429 with retry-after */
  AUTH_FAILURES_PER_MINUTE: envInt(10, 1, 100_000),
  /** messages one WebSocket may send per second (bursts up to the same number); above it the socket is closed (1008) */
  WS_MESSAGES_PER_SECOND: envInt(20, 1, 10_000),
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
