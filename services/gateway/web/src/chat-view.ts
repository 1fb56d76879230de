import { agentAvatar } from "./agent-avatar.js";
import { AssistantMessage } from "./assistant-message.js";
import { byId, h } from "./dom.js";
import type { AgentSummary } from "./wire-types.js";

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
  private following = true;

  constructor(private readonly openFile: (relativePath: string) => void) {
    this.scroller.addEventListener("scroll", () => {
      this.following = this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight < followSlack;
    });
    new MutationObserver(() => {
      if (this.following) this.scroller.scrollTop = this.scroller.scrollHeight;
    }).observe(this.log, { childList: true, subtree: true, characterData: true });
  }

  /** Empties the log and shows whom the chat is with (`agent` is undefined when it is not installed or not known). */
  reset(agent: AgentSummary | undefined, title: string, subtitle: string): void {
    this.log.replaceChildren();
    this.following = true;
    this.avatar.replaceChildren(agentAvatar(agent ?? { icon: "", name: title }));
    this.title.textContent = title;
    this.subtitle.textContent = subtitle;
    this.setFileCount(undefined);
  }

  append(element: HTMLElement): void {
    this.log.append(element);
  }

  /** The agent's introduction goes first, even when it arrives after the user has started writing. */
  showIntro(element: HTMLElement): void {
    this.log.prepend(element);
  }

  addUserMessage(text: string): void {
    this.following = true;
    this.log.append(h("article", { class: "message user", "aria-label": "You said" }, h("div", { class: "message-content" }, h("p", { class: "user-text" }, text))));
  }

  addAssistantMessage(agent: AgentSummary | undefined): AssistantMessage {
    const message = new AssistantMessage(agent, this.openFile);
    this.log.append(message.element);
    return message;
  }

  /** undefined hides the files button (a new chat has no session yet). */
  setFileCount(count: number | undefined): void {
    this.filesButton.hidden = count === undefined;
    this.filesCount.textContent = String(count ?? 0);
    this.filesButton.setAttribute("aria-label", `Files (${count ?? 0})`);
  }
}
