import type { WebSocket } from "ws";
import { AppError, parseJson, toErrorBody, type AuditPublisher } from "@agent-orchestrator/shared/runtime";
import { WsClientMessage, type RunEvent, type SignInVia } from "@agent-orchestrator/shared/wire";
import { bearerCheck, bearerSignIn } from "../auth/bearer-sign-in.js";
import type { SignInServices } from "../auth/sign-in-services.js";
import type { StartChat } from "../chat/start-chat.js";
import { authenticationRequired } from "../config.js";
import { watchSession } from "../chat/event-replay.js";
import type { GatewayContext } from "../gateway-context.js";
import { MessageRate } from "../limits/message-rate.js";
import { publishCancel } from "../chat/run-cancel.js";
import { requireChatOwner, sessionAccess } from "../access/session-access.js";
import { decideApproval } from "../chat/approval-decision.js";
import type { UserRateLimit } from "../limits/user-rate-limit.js";
import type { SocketSlots, WebSocketCaps } from "../limits/websocket-caps.js";
import { WatchAccess } from "./watch-access.js";

/** A client that lets this much pile up unread is disconnected before memory grows without bound. */
export const wsMaxBufferedBytes = 1024 * 1024;

/**
 * How long a socket closed by the gateway (a policy close) may take to answer the close frame before its
 * connection is cut: a hostile client that never answers must not keep its slot for ws's 30 s.
 */
const closeGraceMs = 2_000;

export interface OpenedSocket {
  /** the user signed in on the upgrade (always the local user without AUTH_TOKENS); undefined until `{type:"auth"}` */
  user: string | undefined;
  /** how `user` signed in on the upgrade (its display name is `user_name`'s default); undefined for the local user */
  signedInVia?: SignInVia | undefined;
  address: string;
  /** the caps' slots the socket holds (limits/websocket-caps.ts) */
  slots: SocketSlots;
  /** whether the upgrade's credential still signs its user in (undefined: the local user, nothing to end) */
  stillSignedIn?: (() => Promise<boolean>) | undefined;
}

/** What `/ws` uses besides the core: sign-in, the caps on sockets, the request budget, the audit log and the chat use case. */
export interface WebSocketServices {
  auth: SignInServices;
  /** WebSockets and watches held open, per address, per user and in all */
  webSockets: WebSocketCaps;
  requestRate: UserRateLimit;
  audit: AuditPublisher;
  startChat: StartChat;
}

type Watch = { controller: AbortController; release: () => void };

/**
 * One client's `/ws` socket: sign-in (by the upgrade or a first `auth` message, within WS_AUTH_TIMEOUT_MS),
 * then `chat`, `cancel`, `watch` and `unwatch`. Every message of a signed-in user but `unwatch` takes one
 * request from that user's budget (limits/user-rate-limit.ts), as an HTTP request would; watches are capped per
 * socket and per user (limits/websocket-caps.ts).
 */
export class WebSocketConnection {
  private readonly rate: MessageRate;
  private readonly signInBearer: ReturnType<typeof bearerSignIn>;
  private readonly checkBearer: ReturnType<typeof bearerCheck>;
  private readonly runs = new Map<string, { runId: string; detach: boolean; close: () => void }>();
  /** this socket's watches by session id */
  private readonly watches = new Map<string, Set<Watch>>();
  private user: string | undefined;
  private signedInVia: SignInVia | undefined;
  /** asked before each message: a token revoked or expired, or a sign-out, ends the socket there (docs/tokens.md) */
  private stillSignedIn: (() => Promise<boolean>) | undefined;
  /** the `{type:"auth"}` being checked, if any */
  private signingIn: Promise<void> | undefined;
  private authTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly context: GatewayContext,
    private readonly services: WebSocketServices,
    private readonly opened: OpenedSocket,
  ) {
    this.rate = new MessageRate(context.config.WS_MESSAGES_PER_SECOND);
    this.signInBearer = bearerSignIn(context, services.auth);
    this.checkBearer = bearerCheck(context, services.auth);
    this.user = opened.user;
    this.signedInVia = opened.signedInVia;
    this.stillSignedIn = opened.stillSignedIn;
  }

  start(): void {
    this.ws.on("message", (data, isBinary) => {
      if (this.closed) return;
      if (!this.rate.take()) {
        this.sendError(new AppError("RATE_LIMITED", `More than ${this.context.config.WS_MESSAGES_PER_SECOND} messages a second`));
        this.closeForPolicy(1008, "too many messages");
        return;
      }
      if (isBinary) return this.sendError(new AppError("BAD_REQUEST", "Send JSON text messages"));
      void this.handle(data.toString()).catch((error: unknown) => this.sendError(error));
    });
    this.ws.on("close", () => this.shutDown());
    this.ws.on("error", (error) => this.context.logger.warn({ err: error }, "WebSocket error"));
    if (this.user === undefined) {
      const seconds = this.context.config.WS_AUTH_TIMEOUT_MS / 1000;
      this.authTimer = setTimeout(() => {
        this.context.metrics.refusals.inc({ limit: "ws_auth_timeout" });
        this.sendError(new AppError("UNAUTHORIZED", `Not signed in within ${seconds} s: send Authorization on the upgrade or {type:"auth", token} first`));
        this.closeForPolicy(1008, "authentication timeout");
      }, this.context.config.WS_AUTH_TIMEOUT_MS);
    }
  }

  private async handle(text: string): Promise<void> {
    const parsed = parseJson(text);
    const message = parsed.ok ? WsClientMessage.safeParse(parsed.value) : undefined;
    if (!message?.success) throw new AppError("BAD_REQUEST", "Not a valid message: expected {type: auth|chat|cancel|watch|unwatch|approve, …}");
    const body = message.data;
    if (body.type === "auth") {
      // a client may send its chat right behind its auth: that message waits for the sign-in to be checked
      const signingIn = this.signIn(body.token);
      this.signingIn = signingIn.catch(() => undefined);
      return signingIn;
    }
    if (this.signingIn) await this.signingIn;
    const user = this.user;
    if (!user) {
      this.sendError(new AppError("UNAUTHORIZED", "Send {type:\"auth\", token} first"));
      this.closeForPolicy(1008, "unauthorized");
      return;
    }
    if (this.stillSignedIn && !(await this.stillSignedIn())) {
      this.sendError(new AppError("UNAUTHORIZED", "This socket's sign-in has ended (the token was revoked or expired, or its user signed out)"));
      this.closeForPolicy(1008, "signed out");
      return;
    }
    if (body.type === "unwatch") return this.unwatch(body.session_id);
    const refused = this.services.requestRate.take(user);
    if (refused) throw new AppError("RATE_LIMITED", `${refused.error.message} (try again in ${refused.retryAfterSeconds} s)`);
    if (body.type === "chat") return this.chat(user, body);
    if (body.type === "watch") return this.watch(user, body.session_id);
    if (body.type === "approve") return this.approve(user, body);
    const session = await sessionAccess(this.context, body.session_id, user);
    requireChatOwner(session, user);
    const paused = session.status === "awaiting_approval";
    if (session.status === "running") publishCancel(this.context, session.id, session.run_id ?? undefined);
    // a chat paused for a decision: its pending calls are rejected and the turn ends CANCELLED (docs/approvals.md)
    if (paused) publishCancel(this.context, session.id, undefined, user);
    const cancelled = session.status === "running" || paused;
    void this.services.audit.record({ actor: user, action: "chat_cancelled", project_id: session.project_id, target: session.id, client_address: this.opened.address, outcome: "ok", ...(cancelled ? {} : { detail: "not running" }) });
    this.send({ type: "cancelled", session_id: session.id, cancelled });
  }

  /**
   * `{type:"approve"}`: a decision on a pending tool call (docs/approvals.md), answered on this socket with
   * `approval_decided`; the resumed turn's events bring the same to every watcher of the chat.
   */
  private async approve(user: string, body: Extract<WsClientMessage, { type: "approve" }>): Promise<void> {
    const { session_id: sessionId, approval_id: approvalId } = body;
    const decision = { decision: body.decision, arguments: body.arguments, message: body.message };
    try {
      const approval = await decideApproval(this.context, { user, sessionId, approvalId, clientAddress: this.opened.address }, decision);
      const decided = approval.decided;
      this.send({
        type: "approval_decided",
        session_id: sessionId,
        approval_id: approvalId,
        decision: decided?.outcome ?? body.decision,
        ...(decided?.by === undefined ? {} : { by: decided.by }),
        ...(decided?.arguments_edited ? { arguments_edited: true } : {}),
      });
    } catch (error) {
      // said with the chat's and the call's ids, so a client deciding several calls knows which one failed
      this.send({ type: "error", session_id: sessionId, approval_id: approvalId, error: toErrorBody(error) });
    }
  }

  /** `{type:"auth"}`: the token is checked as on HTTP (auth/bearer-sign-in.ts), then the user's socket cap. */
  private async signIn(token: string): Promise<void> {
    if (!authenticationRequired(this.context.config)) return this.ready();
    const signedIn = await this.signInBearer(this.opened.address, token);
    if (this.closed) return;
    if (!signedIn.ok) {
      if (signedIn.retryAfterSeconds !== undefined) this.context.metrics.refusals.inc({ limit: "sign_in" });
      this.sendError(signedIn.error);
      this.closeForPolicy(1008, signedIn.retryAfterSeconds === undefined ? "unauthorized" : "too many wrong tokens");
      return;
    }
    if (this.user !== undefined) {
      // a socket belongs to one user: its slots, turns and watches are counted as theirs
      if (signedIn.user !== this.user) throw new AppError("BAD_REQUEST", "This socket is signed in as another user already");
      this.signedInVia = signedIn.via;
      this.stillSignedIn = async () => (await this.checkBearer(token)).ok;
      return this.ready();
    }
    const refused = this.opened.slots.signIn(signedIn.user);
    if (refused) {
      this.context.metrics.refusals.inc({ limit: "ws_user" });
      this.sendError(refused);
      this.closeForPolicy(1008, "too many sockets");
      return;
    }
    this.user = signedIn.user;
    this.signedInVia = signedIn.via;
    this.stillSignedIn = async () => (await this.checkBearer(token)).ok;
    this.ready();
  }

  private ready(): void {
    clearTimeout(this.authTimer);
    this.send({ type: "ready" });
  }

  private async chat(owner: string, body: Extract<WsClientMessage, { type: "chat" }>): Promise<void> {
    const run = await this.services.startChat({ body, owner, signIn: this.signedInVia, clientAddress: this.opened.address });
    const key = run.first.session_id;
    this.runs.set(key, { runId: run.first.run_id, detach: body.detach === true, close: run.close });
    try {
      await this.relay(run.events);
    } finally {
      if (this.runs.get(key)?.runId === run.first.run_id) this.runs.delete(key);
    }
  }

  /**
   * `{type:"watch"}`: any member of the chat's project may watch it, viewers too, for as long as they may read it
   * (websocket/watch-access.ts: a watch whose user lost access ends with `{type:"error", session_id, error}`). The
   * slot is taken before the session is looked up, so watches sent together cannot all pass the cap.
   */
  private async watch(user: string, sessionId: string): Promise<void> {
    const slot = this.opened.slots.watch(user);
    if (!slot.ok) {
      this.context.metrics.refusals.inc({ limit: "ws_watches" });
      throw slot.error;
    }
    const watch: Watch = {
      controller: new AbortController(),
      release: () => {
        slot.release();
        this.context.metrics.watches.dec();
      },
    };
    this.context.metrics.watches.inc();
    const session = await sessionAccess(this.context, sessionId, user).catch((error: unknown) => {
      watch.release();
      throw error;
    });
    if (this.closed) return watch.release();
    const watching = this.watches.get(session.id) ?? new Set<Watch>();
    watching.add(watch);
    this.watches.set(session.id, watching);
    const events = watchSession(
      { connection: this.context.connection, logger: this.context.logger, subjectPrefix: this.context.subjectPrefix, idleTimeoutMs: 24 * 3_600_000, signal: watch.controller.signal },
      session.id,
      session.status === "running" ? session.run_started_at : null,
    );
    const access = new WatchAccess({
      context: this.context,
      user,
      session,
      stillSignedIn: async () => this.stillSignedIn === undefined || (await this.stillSignedIn()),
      onLost: () => watch.controller.abort(),
    });
    void this.relay(access.gate(events))
      .catch((error: unknown) => this.sendError(error))
      .finally(() => {
        access.close();
        if (access.ended) this.send({ type: "error", session_id: session.id, error: toErrorBody(access.ended) });
        this.stopWatch(session.id, watch);
      });
  }

  /** `{type:"unwatch"}`: ends this socket's watches of the session and gives their slots back at once. */
  private unwatch(sessionId: string): void {
    const watching = [...(this.watches.get(sessionId) ?? [])];
    for (const watch of watching) this.stopWatch(sessionId, watch);
    this.send({ type: "unwatched", session_id: sessionId, stopped: watching.length });
  }

  private stopWatch(sessionId: string, watch: Watch): void {
    const watching = this.watches.get(sessionId);
    if (!watching?.delete(watch)) return;
    if (watching.size === 0) this.watches.delete(sessionId);
    watch.controller.abort();
    watch.release();
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
      this.closeForPolicy(1013, "too slow");
      this.shutDown();
      return;
    }
    this.ws.send(JSON.stringify(message));
  }

  private sendError(error: unknown): void {
    this.send({ type: "error", error: toErrorBody(error) });
  }

  /** Closes with `code`, and cuts the connection if the client has not answered the close within a grace time. */
  private closeForPolicy(code: number, reason: string): void {
    this.ws.close(code, reason);
    setTimeout(() => this.ws.terminate(), closeGraceMs).unref();
  }

  /** The client is gone: stop relaying, cancel its turns unless they were detached, give its slots back. */
  private shutDown(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authTimer);
    for (const [sessionId, watching] of this.watches) for (const watch of [...watching]) this.stopWatch(sessionId, watch);
    for (const [sessionId, run] of this.runs) {
      run.close();
      if (!run.detach) publishCancel(this.context, sessionId, run.runId);
    }
    this.runs.clear();
    this.opened.slots.release();
  }
}
