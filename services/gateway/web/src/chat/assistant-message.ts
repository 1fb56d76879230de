import type { AgentSummary, Usage } from "@agent-orchestrator/shared/wire";
import { agentAvatar } from "../agents/agent-avatar.js";
import type { ApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { frameThrottle } from "./frame-throttle.js";
import { renderMarkdown } from "../lib/page-markdown.js";
import { sessionLinkTarget } from "../files/session-link.js";
import { toolCallRow, type ToolCallEvent, type ToolCallRow, type ToolResultEvent } from "./tool-call-row.js";
import { toolRowKey } from "./tool-row-key.js";

/**
 * One answer of the agent, built as its events arrive: text and tool calls in the order they happened
 * (text before a tool call stays above it), markdown re-rendered at most once per frame while it streams.
 */
export class AssistantMessage {
  readonly element: HTMLElement;
  private readonly parts: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly rows = new Map<string, ToolCallRow>();
  private fullText = "";
  private segmentText = "";
  private segment: HTMLElement | undefined;
  private toolList: HTMLUListElement | undefined;
  private readonly render = frameThrottle(() => {
    if (this.segment) this.segment.innerHTML = renderMarkdown(this.segmentText);
  });

  constructor(
    agent: AgentSummary | undefined,
    private readonly openFile: (relativePath: string) => void,
  ) {
    this.parts = h("div", { class: "message-parts" }, typingIndicator());
    this.footer = h("div", { class: "message-footer" });
    this.parts.addEventListener("click", (event) => {
      const target = sessionLinkTarget((event.target as Element).closest("a")?.getAttribute("href") ?? "");
      if (target === undefined) return;
      event.preventDefault();
      openFile(target);
    });
    this.element = h(
      "article",
      { class: "message assistant is-streaming", "aria-busy": "true", "aria-label": `${agent?.name ?? "Agent"} said` },
      agentAvatar(agent),
      h("div", { class: "message-content" }, this.parts, this.footer),
    );
  }

  /** A finished answer from the session's history. */
  static completed(agent: AgentSummary | undefined, content: string, openFile: (relativePath: string) => void): AssistantMessage {
    const message = new AssistantMessage(agent, openFile);
    message.appendText(content);
    message.settle();
    message.addCopyButton();
    return message;
  }

  appendText(text: string): void {
    if (!this.segment) {
      this.clearTyping();
      this.segment = h("div", { class: "markdown" });
      this.segmentText = "";
      this.toolList = undefined;
      this.parts.append(this.segment);
    }
    this.segmentText += text;
    this.fullText += text;
    this.render.request();
  }

  addToolCall(call: ToolCallEvent): void {
    const parent = call.parent_call_id === undefined ? undefined : this.rows.get(call.parent_call_id);
    if (parent) {
      // a subagent's call, indented under the run_subagent call that started it
      const row = toolCallRow(call, this.openFile);
      this.rows.set(toolRowKey(call), row);
      parent.nest(row.element);
      return;
    }
    this.clearTyping();
    this.render.flush();
    this.segment = undefined;
    if (!this.toolList) {
      this.toolList = h("ul", { class: "tool-calls", "aria-label": "Tool calls" });
      this.parts.append(this.toolList);
    }
    const row = toolCallRow(call, this.openFile);
    this.rows.set(toolRowKey(call), row);
    this.toolList.append(row.element);
  }

  completeToolCall(result: ToolResultEvent): void {
    this.rows.get(toolRowKey(result))?.complete(result);
  }

  /** A tool call waiting for a decision: its card, where the call stands among the answer's text and calls. */
  addApproval(card: HTMLElement): void {
    this.clearTyping();
    this.render.flush();
    this.segment = undefined;
    this.toolList = undefined;
    this.parts.append(card);
  }

  /** The turn paused for a decision: no longer streaming, though not finished (no footer yet). */
  pause(): void {
    this.clearTyping();
    this.render.flush();
    this.element.classList.remove("is-streaming");
    this.element.classList.add("is-paused");
    this.element.setAttribute("aria-busy", "false");
  }

  /** The turn resumed after the decision: its events follow on in this message. */
  resume(): void {
    this.element.classList.remove("is-paused");
    this.element.classList.add("is-streaming");
    this.element.setAttribute("aria-busy", "true");
    this.segment = undefined;
    this.toolList = undefined;
    this.parts.append(typingIndicator());
  }

  finish(response: string, iterations: number, usage: Usage): void {
    if (this.fullText === "" && response !== "") this.appendText(response);
    this.settle();
    const steps = `${iterations} ${iterations === 1 ? "step" : "steps"}`;
    this.footer.append(h("span", { class: "usage" }, `${steps} · ${usage.total_tokens.toLocaleString()} tokens`));
    this.addCopyButton();
  }

  /** A stopped turn is a quiet note; any other error is a callout with its code, message and hint. */
  fail(error: Pick<ApiError, "code" | "message">): void {
    this.settle();
    if (error.code === "CANCELLED") this.parts.append(h("p", { class: "note" }, "Stopped."));
    else this.parts.append(errorCallout(error));
  }

  private settle(): void {
    this.clearTyping();
    for (const row of this.rows.values()) row.abandon();
    this.render.flush();
    this.element.classList.remove("is-streaming", "is-paused");
    this.element.setAttribute("aria-busy", "false");
  }

  private clearTyping(): void {
    this.parts.querySelector(".typing")?.remove();
  }

  private addCopyButton(): void {
    if (this.fullText === "" || !navigator.clipboard) return;
    const button = h("button", { type: "button", class: "link-button copy-button" }, "Copy");
    button.addEventListener("click", () => {
      void navigator.clipboard.writeText(this.fullText).then(
        () => (button.textContent = "Copied"),
        () => (button.textContent = "Copy failed"),
      );
    });
    this.footer.append(button);
  }
}

const typingIndicator = (): HTMLElement => h("span", { class: "typing" }, h("span", { class: "visually-hidden" }, "The agent is thinking"), h("span"), h("span"), h("span"));
