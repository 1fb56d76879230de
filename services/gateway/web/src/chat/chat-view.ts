import type { AgentSummary } from "@agent-orchestrator/shared/wire";
import { agentAvatar } from "../agents/agent-avatar.js";
import { AssistantMessage } from "./assistant-message.js";
import { ChatAbout } from "./chat-about.js";
import { byId, h } from "../lib/dom.js";
import { parseHashRoute } from "../lib/hash-route.js";

/** How close to the bottom (px) still counts as "following the conversation". */
const followSlack = 96;

/**
 * The conversation pane: header with the agent and the files button, and the message log. While the
 * reader is at the bottom it follows new content; once they scroll up to read, it stays where they are.
 */
export class ChatView {
  readonly section = byId<HTMLElement>("chat-view");
  private readonly scroller = byId<HTMLElement>("chat-scroll");
  private readonly log = byId<HTMLElement>("chat-log");
  private readonly avatar = byId<HTMLElement>("chat-avatar");
  private readonly title = byId<HTMLElement>("chat-title");
  private readonly subtitle = byId<HTMLElement>("chat-subtitle");
  private readonly filesButton = byId<HTMLButtonElement>("files-button");
  private readonly filesCount = byId<HTMLElement>("files-count");
  private readonly about: ChatAbout;
  private agent: AgentSummary | undefined;
  private following = true;

  /** `openFile` opens a file of the chat's session folder (a path relative to it) in the files panel. */
  constructor(readonly openFile: (relativePath: string) => void) {
    this.about = new ChatAbout(openFile);
    this.scroller.before(this.about.element);
    this.scroller.addEventListener("scroll", () => {
      this.following = this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight < followSlack;
    });
    new MutationObserver(() => {
      if (this.following) this.scroller.scrollTop = this.scroller.scrollHeight;
    }).observe(this.log, { childList: true, subtree: true, characterData: true });
    // a phone turned, or a window resized: the reader who followed the end still sees it
    new ResizeObserver(() => {
      if (this.following) this.scroller.scrollTop = this.scroller.scrollHeight;
    }).observe(this.scroller);
  }

  /** Empties the log and shows whom the chat is with (`agent` is undefined when it is not installed or not known). */
  reset(agent: AgentSummary | undefined, title: string, subtitle: string): void {
    this.log.replaceChildren();
    this.following = true;
    this.agent = agent;
    this.avatar.replaceChildren(agentAvatar(agent ?? { icon: "", name: title }));
    this.title.textContent = title;
    this.subtitle.textContent = subtitle;
    this.setFileCount(undefined);
  }

  append(element: HTMLElement): void {
    this.log.append(element);
  }

  /** `attachments`: the chips of the files the message carried, shown under its text. */
  addUserMessage(text: string, attachments?: HTMLElement): void {
    this.following = true;
    this.log.append(h("article", { class: "message user", "aria-label": "You said" }, h("div", { class: "message-content" }, h("p", { class: "user-text" }, text), attachments)));
  }

  addAssistantMessage(agent: AgentSummary | undefined): AssistantMessage {
    const message = new AssistantMessage(agent, this.openFile);
    this.log.append(message.element);
    return message;
  }

  /**
   * undefined hides the files button (a new chat has no session yet). A count means the chat has a session,
   * which the URL names by then (`#/session/<id>`): the "About this chat" panel shows for it, and loads again
   * if open, as the count is refreshed whenever a turn may have changed the chat.
   */
  setFileCount(count: number | undefined): void {
    const route = parseHashRoute(location.hash);
    this.about.show(count !== undefined && route.view === "session" ? route.sessionId : undefined, this.agent);
    this.filesButton.hidden = count === undefined;
    this.filesCount.textContent = String(count ?? 0);
    this.filesButton.setAttribute("aria-label", `Files (${count ?? 0})`);
  }
}
