import type { ApprovalDecisionBody, ApprovalView, RunEvent } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { ApiError } from "../api/api-error.js";
import type { LiveSocket } from "../api/live-socket.js";
import type { ApprovalApi } from "../approvals/approval-api.js";
import { ApprovalCard, type ShownApproval } from "../approvals/approval-card.js";
import type { ApprovalEnd } from "../approvals/approval-words.js";
import type { CallFile } from "../approvals/call-file.js";
import type { CurrentFile } from "../approvals/proposed-change.js";
import type { AssistantMessage } from "./assistant-message.js";
import type { ApprovalDecidedEvent, ApprovalRequiredEvent } from "./chat-turn.js";
import { resumedRunEvents } from "./resumed-run.js";
import { WatchedRuns } from "./watched-runs.js";

/** The open chat as its approvals need it. */
export interface ApprovalChat {
  sessionId: string;
  projectId: string;
  /** a viewer of the project: cards are read-only until the listing says otherwise */
  readOnly: boolean;
}

/** Opens a turn's events for the page's turn runner. */
export type OpenEvents = (signal: AbortSignal) => Promise<AsyncGenerator<RunEvent>>;

export interface ChatApprovalsDeps {
  api: Pick<ApiClient, "getSession" | "watch" | "readFile" | "readProjectFile">;
  approvals: Pick<ApprovalApi, "ofSession" | "decide">;
  live: Pick<LiveSocket, "connected" | "approve" | "watch">;
  /** a new assistant message for calls the chat's listing shows and no turn on the page did */
  newMessage(): AssistantMessage;
  /** a turn resumed after a decision: the page plays it on into `message` */
  resumed(message: AssistantMessage, open: OpenEvents): void;
  /** the page saw or made a decision, or a new waiting call: the badge counts again */
  changed(): void;
}

interface ShownCard {
  card: ApprovalCard;
  message: AssistantMessage;
  /** the turn it resumed is played (or being played) on the page */
  resumed: boolean;
}

/**
 * How long a waiting call seen only on the chat's watch (a turn another client started) may take to arrive through a
 * turn the page plays, before the page lists the chat's approvals to show it on its own.
 */
const strayCallMs = 1_500;

/**
 * The approval cards of the open chat (docs/approvals.md "On the web page"): a card for each waiting call, put where
 * its turn paused (or, for calls listed when the chat opens, in a message of their own); decisions sent over the
 * page's WebSocket when it is connected, else by REST; the chat watched over the WebSocket so a decision made by
 * another member or client updates the card and the turn it resumed plays on in the same message.
 */
export class ChatApprovals {
  private chat: ApprovalChat | undefined;
  private readonly cards = new Map<string, ShownCard>();
  /** messages made only to hold listed calls: removed once their cards move into a turn's message */
  private readonly holders = new Set<AssistantMessage>();
  private runs = new WatchedRuns();
  private stopWatching: (() => void) | undefined;
  private strayTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly deps: ChatApprovalsDeps) {}

  /** The chat with this session is open: watch it. */
  open(chat: ApprovalChat): void {
    if (this.chat?.sessionId === chat.sessionId) {
      this.chat = chat;
      return;
    }
    this.close();
    this.chat = chat;
    this.runs = new WatchedRuns();
    this.stopWatching = this.deps.live.watch(chat.sessionId, (event) => this.watched(event));
  }

  /** The page left the chat. */
  close(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
    this.runs.close();
    clearTimeout(this.strayTimer);
    this.cards.clear();
    this.holders.clear();
    this.chat = undefined;
  }

  /** A turn the page plays paused at a call: its card goes into that turn's message. */
  required(event: ApprovalRequiredEvent, message: AssistantMessage): void {
    const shown = this.cards.get(event.approval_id);
    if (shown) {
      this.move(shown, message);
    } else {
      const card = this.card(event);
      if (!card) return;
      this.cards.set(event.approval_id, { card, message, resumed: false });
      message.addApproval(card.element);
    }
    this.deps.changed();
    void this.list();
  }

  /** A call was decided, expired or cancelled (seen in a turn the page plays, or on the watch). */
  decided(event: ApprovalDecidedEvent): void {
    this.cards.get(event.approval_id)?.card.end({ outcome: event.decision, by: event.by, arguments_edited: event.arguments_edited });
    this.deps.changed();
  }

  /** The chat's waiting calls: cards learn who may decide, and calls no turn on the page showed get cards. */
  async list(): Promise<void> {
    const chat = this.chat;
    if (!chat) return;
    let views: ApprovalView[];
    try {
      views = await this.deps.approvals.ofSession(chat.sessionId);
    } catch {
      // the cards keep the page's own guess of who may decide; the gateway checks every decision
      return;
    }
    if (chat !== this.chat) return;
    let holder: AssistantMessage | undefined;
    for (const view of views) {
      const shown = this.cards.get(view.approval_id);
      if (shown) {
        shown.card.update(view);
        continue;
      }
      const card = this.card(view);
      if (!card) continue;
      card.update(view);
      if (!holder) {
        holder = this.deps.newMessage();
        holder.pause();
        this.holders.add(holder);
      }
      holder.addApproval(card.element);
      this.cards.set(view.approval_id, { card, message: holder, resumed: false });
    }
  }

  private card(shown: ShownApproval): ApprovalCard | undefined {
    const chat = this.chat;
    if (!chat) return undefined;
    return new ApprovalCard({
      shown,
      mayDecide: !chat.readOnly,
      readFile: (file) => this.readFile(chat, file),
      decide: (body) => this.decide(chat, shown.approval_id, body),
    });
  }

  private move(shown: ShownCard, message: AssistantMessage): void {
    if (shown.message === message) return;
    const from = shown.message;
    shown.message = message;
    message.addApproval(shown.card.element);
    if (this.holders.has(from) && !from.element.querySelector(".approval-card")) {
      this.holders.delete(from);
      from.element.remove();
    }
  }

  private async decide(chat: ApprovalChat, approvalId: string, body: ApprovalDecisionBody): Promise<ApprovalEnd> {
    const said = body.decision === "reject" && body.message !== undefined ? { message: body.message } : {};
    if (this.deps.live.connected) {
      try {
        const answer = await this.deps.live.approve(chat.sessionId, approvalId, body);
        this.deps.changed();
        // the resumed turn comes on the chat's watch, beginning with this decision
        return { outcome: answer.decision, by: answer.by, arguments_edited: answer.arguments_edited, ...said };
      } catch (error) {
        // not sent, or no answer: REST says what became of it (a decision that did arrive answers APPROVAL_DECIDED)
        if (!ApiError.is(error) || error.code !== "NETWORK_ERROR") throw error;
      }
    }
    const view = await this.deps.approvals.decide(chat.sessionId, approvalId, body);
    this.deps.changed();
    const shown = this.cards.get(approvalId);
    if (shown && !shown.resumed && chat === this.chat) {
      shown.resumed = true;
      this.deps.resumed(shown.message, (signal) => resumedRunEvents(this.deps.api, chat.sessionId, approvalId, signal));
    }
    return { outcome: view.decided?.outcome ?? body.decision, by: view.decided?.by, arguments_edited: view.decided?.arguments_edited, ...said };
  }

  /** An event of the chat's watch: decisions from anywhere, and the turns they resume. */
  private watched(event: RunEvent): void {
    if (!this.runs.add(event)) return;
    if (event.type === "approval_required" && !this.cards.has(event.approval_id)) {
      clearTimeout(this.strayTimer);
      this.strayTimer = setTimeout(() => void this.list(), strayCallMs);
      this.deps.changed();
    }
    if (event.type !== "approval_decided") return;
    this.decided(event);
    const shown = this.cards.get(event.approval_id);
    if (!shown || shown.resumed) return;
    shown.resumed = true;
    const play = this.runs.claim(event.run_id);
    this.deps.resumed(shown.message, (signal) => Promise.resolve(play(signal)));
  }

  /** The file a call would change, as it is now: `exists: false` when there is none, undefined when it cannot be read whole. */
  private async readFile(chat: ApprovalChat, file: CallFile): Promise<CurrentFile | undefined> {
    try {
      if (file.space === "session") {
        const read = await this.deps.api.readFile(chat.sessionId, file.path);
        return read.truncated ? undefined : { exists: true, text: read.text };
      }
      const read = await this.deps.api.readProjectFile(chat.projectId, file.path);
      return read.truncated ? undefined : { exists: true, text: read.content };
    } catch (error) {
      return ApiError.is(error) && error.status === 404 ? { exists: false } : undefined;
    }
  }
}
