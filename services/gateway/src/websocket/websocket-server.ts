import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { AppError, toErrorBody } from "@agent-orchestrator/shared/runtime";
import { type SignInVia } from "@agent-orchestrator/shared/wire";
import { allowedOrigins, bearerToken, cookieSession, localUser } from "../auth/auth.js";
import type { SignIn } from "../auth/auth-throttle.js";
import { bearerCheck, bearerSignIn } from "../auth/bearer-sign-in.js";
import { allowedHosts, authenticationRequired } from "../config.js";
import type { GatewayContext } from "../gateway-context.js";
import { hostAllowed } from "../http/host-check.js";
import { httpStatusByCode } from "../http/http-status.js";
import { originAllowed } from "../http/origin-check.js";
import { WebSocketConnection, type WebSocketServices } from "./websocket-connection.js";

/** Largest message a client may send; chats are small, and ws would otherwise accept 100 MiB. */
export const wsMaxPayloadBytes = 64 * 1024;

/** Seconds a client refused for the gateway's total of sockets is asked to wait. */
const fullRetryAfterSeconds = 5;

/**
 * `/ws`: chat, cancel and watch over one socket, with the same event shapes as SSE. The `Origin` must be
 * the gateway's own (or listed in ALLOWED_ORIGINS); with AUTH_TOKENS or OIDC_ISSUER the token comes in the
 * `Authorization` header or as the first message `{type:"auth", token}` within WS_AUTH_TIMEOUT_MS, or the
 * upgrade carries the browser sign-in's cookie, from a page whose `Origin` is the gateway's own (a WebSocket
 * has no CSRF token: a browser always sends the `Origin`, and another site's page cannot forge it).
 * Refused at the upgrade, before any socket exists: a wrong token (401, or 429 for an address that sent too
 * many), and a socket past the caps (limits/websocket-caps.ts: 503 past the total, 429 past the address's or
 * the user's).
 */
export function attachWebSocket(server: Server, context: GatewayContext, services: WebSocketServices): WebSocketServer {
  const { auth } = services;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: wsMaxPayloadBytes });
  const hosts = allowedHosts(context.config);
  const required = authenticationRequired(context.config);
  const signInBearer = bearerSignIn(context, auth);
  const checkBearer = bearerCheck(context, auth);
  const origins = allowedOrigins(context, auth);
  /** The upgrade's user: its bearer token's, else its sign-in cookie's; undefined until `{type:"auth"}`. */
  const signInOf = async (request: IncomingMessage, address: string): Promise<SignIn | undefined> => {
    if (request.headers.authorization !== undefined) return signInBearer(address, bearerToken(request.headers.authorization));
    const session = await cookieSession(context, auth, request);
    if (!session) return undefined;
    if (request.headers.origin === undefined) return { ok: false, error: new AppError("CSRF_REFUSED", "A WebSocket signed in by the sign-in cookie must come from the page's origin") };
    return { ok: true, user: session.user, via: session.sign_in };
  };
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://gateway").pathname;
    if (path !== "/ws") return refuse(socket, 404);
    if (!originAllowed(request, origins)) {
      context.logger.warn({ origin: request.headers.origin }, "WebSocket from a foreign origin refused");
      return refuse(socket, 403);
    }
    if (!required && !hostAllowed(request, hosts)) {
      context.logger.warn({ host: request.headers.host }, "WebSocket for a foreign host name refused");
      return refuse(socket, 403);
    }
    const address = context.clientAddress(request);
    if (!required) return open(request, socket, head, address, localUser);
    signInOf(request, address).then(
      (signedIn) => {
        if (signedIn === undefined) return open(request, socket, head, address, undefined);
        if (!signedIn.ok) {
          if (signedIn.retryAfterSeconds !== undefined) context.metrics.refusals.inc({ limit: "sign_in" });
          return refuse(socket, httpStatusByCode[signedIn.error.code], signedIn.error, signedIn.retryAfterSeconds);
        }
        // the socket asks again before each message: a revoked token or an ended sign-in stops it there
        const header = request.headers.authorization;
        const stillSignedIn =
          header === undefined
            ? async () => (await cookieSession(context, auth, request)) !== undefined
            : async () => (await checkBearer(bearerToken(header))).ok;
        open(request, socket, head, address, signedIn.user, stillSignedIn, signedIn.via);
      },
      (error: unknown) => {
        context.logger.error({ err: error }, "WebSocket sign-in failed");
        refuse(socket, 503);
      },
    );
  });

  function open(request: IncomingMessage, socket: Duplex, head: Buffer, address: string, user: string | undefined, stillSignedIn?: () => Promise<boolean>, signedInVia?: SignInVia): void {
    const admitted = services.webSockets.admit(address, user);
    if (!admitted.ok) {
      context.metrics.refusals.inc({ limit: admitted.limit });
      return refuse(socket, admitted.status, admitted.error, admitted.status === 503 ? fullRetryAfterSeconds : 1);
    }
    // the slots are held until the TCP connection is gone, however it ends: a handshake ws refuses, a
    // close, a reset, a terminate
    context.metrics.webSockets.inc();
    const release = () => {
      admitted.socket.release();
      context.metrics.webSockets.dec();
    };
    socket.once("close", release);
    if (socket.destroyed) {
      socket.off("close", release);
      return release();
    }
    sockets.handleUpgrade(request, socket, head, (ws) => new WebSocketConnection(ws, context, services, { user, signedInVia, address, slots: admitted.socket, stillSignedIn }).start());
  }
  return sockets;
}

const reasons: Readonly<Record<number, string>> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
  503: "Service Unavailable",
};

/** Answers an upgrade with an HTTP error (the error body of docs/design.md "Clients" when there is one) and closes. */
function refuse(socket: Duplex, status: number, error?: AppError, retryAfterSeconds?: number): void {
  const body = error ? JSON.stringify({ success: false, error: toErrorBody(error) }) : "";
  const headers = [
    `HTTP/1.1 ${status} ${reasons[status] ?? "Error"}`,
    ...(retryAfterSeconds === undefined ? [] : [`Retry-After: ${retryAfterSeconds}`]),
    ...(status === 401 ? ['WWW-Authenticate: Bearer realm="agent-orchestrator"'] : []),
    ...(body ? ["Content-Type: application/json"] : []),
    "Connection: close",
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  // destroyed once written, as ws does: a client that never closes its side must not keep the descriptor
  socket.once("finish", () => socket.destroy());
  socket.end(`${headers.join("\r\n")}\r\n\r\n${body}`);
}
