import type { Server } from "node:http";
import type { GatewayConfig } from "../config.js";
import { armRequestDeadline } from "./request-deadline.js";

/**
 * Sets the HTTP server's keep-alive and header timeouts from the config. Node closes an idle keep-alive
 * connection after 5 s by default; a client (or proxy) that keeps idle connections longer may send its next
 * request on one just as the server closes it, and sees "Connection error" or ECONNRESET. So the server
 * waits longer than the usual client and proxy idle timeouts (65 s: above an AWS load balancer's 60 s), and
 * the headers timeout stays above it, or a connection reused at the end of its idle time could be cut by
 * the headers timer while its request arrives.
 */
export function applyHttpServerTimeouts(server: Server, config: Pick<GatewayConfig, "HTTP_KEEP_ALIVE_TIMEOUT_MS" | "HTTP_HEADERS_TIMEOUT_MS" | "HTTP_REQUEST_TIMEOUT_MS">): void {
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = config.HTTP_HEADERS_TIMEOUT_MS ?? config.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000;
  // Node's one bound for every whole request is off (the headers' stays): each request gets HTTP_REQUEST_TIMEOUT_MS
  // before any route runs, and a route with large bodies its own (request-deadline.ts)
  server.requestTimeout = 0;
  server.prependListener("request", (request, response) => armRequestDeadline(request, response, config.HTTP_REQUEST_TIMEOUT_MS));
}
