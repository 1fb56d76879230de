import type { ApprovalDecisionBody, ApprovalOutcome, RunEvent } from "@agent-orchestrator/shared/wire";
import { ApiError } from "./api-error.js";
import type { TokenStore } from "../sign-in/token-store.js";

/** The socket's answer to `approve`: how the call ended and who decided (docs/approvals.md). */
export interface LiveDecision {
  decision: ApprovalOutcome;
  by?: string;
  arguments_edited?: boolean;
}

/** What the page needs of a WebSocket: a seam, so tests drive the client without a server. */
export type SocketLike = Pick<WebSocket, "send" | "close" | "addEventListener">;

type WatchListener = (event: RunEvent) => void;

interface PendingAnswer {
  resolve(decision: LiveDecision): void;
  reject(error: ApiError): void;
  timer: ReturnType<typeof setTimeout>;
}

/** Waits before the next attempt after each failed one in a row: a gateway restarting is back within seconds. */
const reconnectDelaysMs = [1_000, 2_000, 5_000, 10_000, 30_000];
/** An `approve` with no answer by then is given up, and the page decides by REST instead. */
const answerTimeoutMs = 15_000;

const socketUrl = (): string => `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;

/**
 * The page's one WebSocket to `/ws` (docs/api.md "WebSocket"), opened while a chat is watched: every event of the
 * watched chats' turns (the page learns of a decision another member made, and follows a turn that resumed), and
 * decisions on waiting tool calls (`approve`). A socket that closes is opened again, with the watches, after a
 * growing pause; a watch then replays the running turn from its start, so listeners drop events they have seen.
 * Signed in by the upgrade (the sign-in cookie, or nobody needed) or, with a token, by a first `auth` message.
 */
export class LiveSocket {
  private socket: SocketLike | undefined;
  private ready = false;
  private readonly watches = new Map<string, Set<WatchListener>>();
  private readonly answers = new Map<string, PendingAnswer>();
  private failures = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly tokens: Pick<TokenStore, "get">,
    private readonly openSocket: (url: string) => SocketLike = (url) => new WebSocket(url),
  ) {}

  /** Signed in and open: a decision can go this way. */
  get connected(): boolean {
    return this.ready;
  }

  /** Every event of the chat's turns from now on (and the running turn from its start) until the returned stop. */
  watch(sessionId: string, listener: WatchListener): () => void {
    let listeners = this.watches.get(sessionId);
    if (!listeners) {
      listeners = new Set();
      this.watches.set(sessionId, listeners);
      if (this.ready) this.send({ type: "watch", session_id: sessionId });
    }
    listeners.add(listener);
    this.connect();
    const watched = listeners;
    return () => {
      watched.delete(listener);
      if (watched.size > 0 || this.watches.get(sessionId) !== watched) return;
      this.watches.delete(sessionId);
      if (this.ready) this.send({ type: "unwatch", session_id: sessionId });
    };
  }

  /** A decision on a waiting call; fails at once when the socket is not connected, so the caller can use REST. */
  approve(sessionId: string, approvalId: string, body: ApprovalDecisionBody): Promise<LiveDecision> {
    if (!this.ready) return Promise.reject(new ApiError("NETWORK_ERROR", "The live connection is not open"));
    this.answers.get(approvalId)?.reject(new ApiError("CANCELLED", "Sent again"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(approvalId, new ApiError("NETWORK_ERROR", "No answer on the live connection")), answerTimeoutMs);
      this.answers.set(approvalId, { resolve, reject, timer });
      this.send({ type: "approve", session_id: sessionId, approval_id: approvalId, ...body });
    });
  }

  private connect(): void {
    if (this.socket || this.retry || this.watches.size === 0) return;
    let socket: SocketLike;
    try {
      socket = this.openSocket(socketUrl());
    } catch {
      return this.closed(undefined);
    }
    this.socket = socket;
    socket.addEventListener("open", () => {
      const token = this.tokens.get();
      // the gateway answers `ready` once the token is checked; without one the upgrade signed the page in
      if (token) this.send({ type: "auth", token });
      else this.signedIn();
    });
    socket.addEventListener("message", (message) => this.receive(message.data));
    socket.addEventListener("close", () => this.closed(socket));
  }

  private signedIn(): void {
    this.ready = true;
    for (const sessionId of this.watches.keys()) this.send({ type: "watch", session_id: sessionId });
  }

  private receive(data: unknown): void {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(String(data)) as Record<string, unknown>;
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null) return;
    if (message["type"] === "ready") {
      this.failures = 0;
      return this.signedIn();
    }
    const approvalId = message["approval_id"];
    // the answer to an `approve` names the call and no run; the same event in a watched turn carries its run
    if (typeof approvalId === "string" && message["run_id"] === undefined) return this.answered(approvalId, message);
    const sessionId = message["session_id"];
    if (typeof sessionId !== "string" || typeof message["run_id"] !== "string") return;
    this.failures = 0;
    for (const listener of [...(this.watches.get(sessionId) ?? [])]) listener(message as unknown as RunEvent);
  }

  private answered(approvalId: string, message: Record<string, unknown>): void {
    if (message["type"] === "approval_decided") return this.settle(approvalId, undefined, message as unknown as LiveDecision);
    const error = (message["error"] ?? {}) as { code?: unknown; message?: unknown };
    this.settle(approvalId, new ApiError(typeof error.code === "string" ? error.code : "BAD_RESPONSE", typeof error.message === "string" ? error.message : "The decision was refused"));
  }

  private settle(approvalId: string, error: ApiError | undefined, decision?: LiveDecision): void {
    const answer = this.answers.get(approvalId);
    if (!answer) return;
    this.answers.delete(approvalId);
    clearTimeout(answer.timer);
    if (error) answer.reject(error);
    else if (decision) answer.resolve({ decision: decision.decision, ...(decision.by === undefined ? {} : { by: decision.by }), ...(decision.arguments_edited ? { arguments_edited: true } : {}) });
  }

  private closed(socket: SocketLike | undefined): void {
    if (socket !== this.socket) return;
    this.socket = undefined;
    this.ready = false;
    for (const approvalId of [...this.answers.keys()]) this.settle(approvalId, new ApiError("NETWORK_ERROR", "The live connection closed"));
    if (this.watches.size === 0) return;
    const delay = reconnectDelaysMs[Math.min(this.failures, reconnectDelaysMs.length - 1)];
    this.failures += 1;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connect();
    }, delay);
  }

  private send(message: object): void {
    try {
      this.socket?.send(JSON.stringify(message));
    } catch {
      // a socket that is closing: its close event reconnects
    }
  }
}
