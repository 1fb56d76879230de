import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { AppError, parseJson, SessionGetReply, subjects, toErrorBody, WsClientMessage, type RunEvent } from "@agent-orchestrator/shared";
import { bearerUser, clientAddress } from "./auth.js";
import { startChatRun } from "./chat-route.js";
import { allowedHosts } from "./config.js";
import { watchSession } from "./event-replay.js";
import type { GatewayContext } from "./gateway-context.js";
import { hostAllowed } from "./host-check.js";
import { MessageRate } from "./message-rate.js";
import { callService } from "./nats-call.js";
import { originAllowed } from "./origin-check.js";
import { publishCancel } from "./run-cancel.js";

/** Largest message a client may send; chats are small, and ws would otherwise accept 100 MiB. */
export const wsMaxPayloadBytes = 64 * 1024;
/** A client that lets this much pile up unread is disconnected before memory grows without bound. */
export const wsMaxBufferedBytes = 1024 * 1024;

/**
 * `/ws`: chat, cancel and watch over one socket, with the same event shapes as SSE. The `Origin` must be
 * the gateway's own (or listed in ALLOWED_ORIGINS); with AUTH_TOKENS the token comes in the
 * `Authorization` header or as the first message `{type:"auth", token}`.
 */
export function attachWebSocket(server: Server, context: GatewayContext): WebSocketServer {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: wsMaxPayloadBytes });
  const hosts = allowedHosts(context.config);
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(request.url ?? "/", "http://gateway").pathname;
    if (path !== "/ws") return refuse(socket, 404, "Not Found");
    if (!originAllowed(request, context.config.ALLOWED_ORIGINS)) {
      context.logger.warn({ origin: request.headers.origin }, "WebSocket from a foreign origin refused");
      return refuse(socket, 403, "Forbidden");
    }
    const tokens = context.config.AUTH_TOKENS;
    if (!tokens && !hostAllowed(request, hosts)) {
      context.logger.warn({ host: request.headers.host }, "WebSocket for a foreign host name refused");
      return refuse(socket, 403, "Forbidden");
    }
    const address = clientAddress(request);
    if (tokens) {
      const wait = context.authFailures.retryAfterSeconds(address);
      if (wait > 0) return refuse(socket, 429, "Too Many Requests", `Retry-After: ${wait}\r\n`);
    }
    const user = tokens ? bearerUser(tokens, request.headers.authorization) : "local";
    if (tokens && request.headers.authorization !== undefined && !user) {
      context.authFailures.fail(address);
      return refuse(socket, 401, "Unauthorized");
    }
    sockets.handleUpgrade(request, socket, head, (ws) => new Connection(ws, context, user, address).start());
  });
  return sockets;
}

function refuse(socket: Duplex, status: number, reason: string, headers = ""): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\n${headers}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}

class Connection {
  private readonly controllers = new Set<AbortController>();
  private readonly rate: MessageRate;
  private readonly runs = new Map<string, { runId: string; detach: boolean; close: () => void }>();
  private closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly context: GatewayContext,
    private user: string | undefined,
    private readonly address: string,
  ) {
    this.rate = new MessageRate(context.config.WS_MESSAGES_PER_SECOND);
  }

  start(): void {
    this.ws.on("message", (data, isBinary) => {
      if (!this.rate.take()) {
        this.sendError(new AppError("RATE_LIMITED", `More than ${this.context.config.WS_MESSAGES_PER_SECOND} messages a second`));
        this.ws.close(1008, "too many messages");
        return;
      }
      if (isBinary) return this.sendError(new AppError("BAD_REQUEST", "Send JSON text messages"));
      void this.handle(data.toString()).catch((error: unknown) => this.sendError(error));
    });
    this.ws.on("close", () => this.shutDown());
    this.ws.on("error", (error) => this.context.logger.warn({ err: error }, "WebSocket error"));
  }

  private async handle(text: string): Promise<void> {
    const parsed = parseJson(text);
    const message = parsed.ok ? WsClientMessage.safeParse(parsed.value) : undefined;
    if (!message?.success) throw new AppError("BAD_REQUEST", "Not a valid message: expected {type: auth|chat|cancel|watch, …}");
    const body = message.data;
    if (body.type === "auth") {
      const tokens = this.context.config.AUTH_TOKENS;
      if (tokens && this.context.authFailures.retryAfterSeconds(this.address) > 0) {
        this.sendError(new AppError("RATE_LIMITED", "Too many wrong tokens from this address; try again later"));
        this.ws.close(1008, "too many wrong tokens");
        return;
      }
      const user = tokens ? bearerUser(tokens, `Bearer ${body.token}`) : "local";
      if (!user) {
        this.context.authFailures.fail(this.address);
        this.sendError(new AppError("UNAUTHORIZED", "A valid token is required"));
        this.ws.close(1008, "unauthorized");
        return;
      }
      this.user = user;
      this.send({ type: "ready" });
      return;
    }
    const owner = this.user;
    if (!owner) {
      this.sendError(new AppError("UNAUTHORIZED", "Send {type:\"auth\", token} first"));
      this.ws.close(1008, "unauthorized");
      return;
    }
    if (body.type === "chat") return this.chat(owner, body);
    const session = (await callService(this.context, subjects.sessionGet, { session_id: body.session_id, owner }, SessionGetReply)).session;
    if (body.type === "cancel") {
      if (session.status === "running") publishCancel(this.context, session.id, session.run_id ?? undefined);
      this.send({ type: "cancelled", session_id: session.id, cancelled: session.status === "running" });
      return;
    }
    const controller = this.track(new AbortController());
    const events = watchSession(
      { connection: this.context.connection, logger: this.context.logger, subjectPrefix: this.context.subjectPrefix, idleTimeoutMs: 24 * 3_600_000, signal: controller.signal },
      session.id,
      session.status === "running" ? session.run_started_at : null,
    );
    void this.relay(events).finally(() => this.controllers.delete(controller));
  }

  private async chat(owner: string, body: Extract<WsClientMessage, { type: "chat" }>): Promise<void> {
    const run = await startChatRun(this.context, body, owner);
    const key = run.first.session_id;
    this.runs.set(key, { runId: run.first.run_id, detach: body.detach === true, close: run.close });
    try {
      await this.relay(this.context.metrics.observe(run.events));
    } finally {
      if (this.runs.get(key)?.runId === run.first.run_id) this.runs.delete(key);
    }
  }

  private async relay(events: AsyncIterable<RunEvent>): Promise<void> {
    for await (const event of events) {
      if (this.closed) return;
      this.send(event);
    }
  }

  private send(message: object): void {
    if (this.closed) return;
    if (this.ws.bufferedAmount > wsMaxBufferedBytes) {
      this.context.logger.warn({ buffered: this.ws.bufferedAmount }, "WebSocket client too slow; disconnected");
      this.ws.close(1013, "too slow");
      this.shutDown();
      return;
    }
    this.ws.send(JSON.stringify(message));
  }

  private sendError(error: unknown): void {
    this.send({ type: "error", error: toErrorBody(error) });
  }

  private track(controller: AbortController): AbortController {
    this.controllers.add(controller);
    return controller;
  }

  /** The client is gone: stop relaying, and cancel its turns unless they were detached. */
  private shutDown(): void {
    if (this.closed) return;
    this.closed = true;
    for (const controller of this.controllers) controller.abort();
    for (const [sessionId, run] of this.runs) {
      run.close();
      if (!run.detach) publishCancel(this.context, sessionId, run.runId);
    }
    this.runs.clear();
  }
}
