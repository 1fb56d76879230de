import type { AgentSummary, SessionView } from "@agent-orchestrator/shared/wire";
import { toApiError } from "../api/api-error.js";
import { pageApi } from "../api/page-api.js";
import { h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { exportChat } from "./chat-export.js";
import { formatCost, formatRelativeTime } from "../lib/format.js";
import { sessionStatusLabel } from "./session-status.js";
import { writtenFileTarget } from "./written-file-link.js";

/**
 * "About this chat": a collapsed panel above the conversation with what the chat is and did (status, agent,
 * dates, turns, token use, the workflows it ran, the files it wrote as links to open them) and its export.
 * It loads when opened, and again while open whenever the chat may have changed.
 */
export class ChatAbout {
  readonly element: HTMLDetailsElement;
  private readonly body = h("div", { class: "chat-about-body" });
  private sessionId: string | undefined;
  private agent: AgentSummary | undefined;
  /** bumped on every load, so an older answer does not overwrite a newer one */
  private loads = 0;

  constructor(private readonly openSessionFile: (relativePath: string) => void) {
    this.element = h("details", { class: "chat-about", hidden: true }, h("summary", { class: "chat-about-summary" }, "About this chat"), this.body);
    this.element.addEventListener("toggle", () => {
      if (this.element.open) void this.load();
    });
  }

  /** The chat the panel is about (undefined: no chat yet, the panel is hidden), and its agent when known. */
  show(sessionId: string | undefined, agent: AgentSummary | undefined): void {
    const changed = sessionId !== this.sessionId;
    this.sessionId = sessionId;
    this.agent = agent;
    this.element.hidden = sessionId === undefined;
    if (changed) {
      this.element.open = false;
      this.body.replaceChildren();
    } else if (this.element.open) void this.load();
  }

  private async load(): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    const load = ++this.loads;
    if (this.body.childElementCount === 0) this.body.append(h("p", { class: "muted" }, "Loading…"));
    try {
      const session = await pageApi.getSession(sessionId);
      if (load === this.loads && sessionId === this.sessionId) this.body.replaceChildren(...this.facts(session));
    } catch (error) {
      if (load === this.loads && sessionId === this.sessionId) this.body.replaceChildren(errorCallout(toApiError(error)));
    }
  }

  private facts(session: SessionView): HTMLElement[] {
    const usage = session.usage;
    const row = (term: string, ...value: Array<Node | string>): HTMLElement[] => [h("dt", {}, term), h("dd", {}, ...value)];
    const time = (iso: string): HTMLElement => h("time", { datetime: iso, title: new Date(iso).toLocaleString() }, formatRelativeTime(iso));
    return [
      h(
        "dl",
        { class: "chat-facts" },
        ...row("Status", h("span", { class: `status status-${session.status}` }, sessionStatusLabel(session.status))),
        ...row("Agent", this.agent ? `${this.agent.name} — ${this.agent.title}` : session.agent_id),
        ...row("Started", time(session.created_at)),
        ...row("Last active", time(session.updated_at)),
        ...row("Turns", String(session.turns)),
        ...row(
          "Tokens",
          `${usage.total_tokens.toLocaleString()} (${usage.prompt_tokens.toLocaleString()} in${usage.cached_prompt_tokens ? `, ${usage.cached_prompt_tokens.toLocaleString()} of them cached` : ""}, ${usage.completion_tokens.toLocaleString()} out)`,
        ),
        // only where the model's route has a price (docs/models.md "Cost")
        ...(usage.cost === undefined ? [] : row("Cost", formatCost(usage.cost))),
      ),
      h("h3", {}, "Workflows run"),
      session.workflows.length > 0 ? h("ul", { class: "chat-about-list" }, ...session.workflows.map((workflow) => h("li", {}, h("code", {}, workflow)))) : h("p", { class: "muted" }, "None yet."),
      h("h3", {}, "Files written"),
      session.files_written.length > 0 ? h("ul", { class: "chat-about-list" }, ...session.files_written.map((path) => h("li", {}, this.fileLink(session.project_id, path)))) : h("p", { class: "muted" }, "None yet."),
      h("div", { class: "chat-about-actions" }, h("button", { type: "button", class: "button button-quiet button-small", onclick: () => void exportChat(session.id) }, "Export as Markdown")),
    ];
  }

  private fileLink(projectId: string, virtualPath: string): HTMLElement {
    const target = writtenFileTarget(projectId, virtualPath);
    if (target.kind === "project") return h("a", { href: target.href, title: `Open ${target.path} in the project's files` }, target.path);
    if (target.kind === "session") {
      return h("button", { type: "button", class: "link-button", title: `Open ${target.path} in this chat's files`, onclick: () => this.openSessionFile(target.path) }, target.path);
    }
    return h("code", {}, virtualPath);
  }
}
