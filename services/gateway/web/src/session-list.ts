import { agentAvatar } from "./agent-avatar.js";
import type { ApiError } from "./api-error.js";
import { byId, h } from "./dom.js";
import { formatRelativeTime } from "./format.js";
import { formatHashRoute } from "./hash-route.js";
import type { AgentSummary, SessionSummary } from "./wire-types.js";

const statusLabels: Record<SessionSummary["status"], string> = {
  idle: "idle",
  running: "running",
  completed: "done",
  failed: "failed",
  cancelled: "stopped",
};

/** The caller's sessions, newest first, each a link to `#/session/<id>`; the open one is marked current. */
export class SessionList {
  private readonly list = byId<HTMLOListElement>("session-list");
  private sessions: SessionSummary[] = [];
  private agents = new Map<string, AgentSummary>();
  private currentId: string | undefined;

  show(sessions: SessionSummary[], agents: Map<string, AgentSummary>): void {
    this.sessions = sessions;
    this.agents = agents;
    this.render();
  }

  setCurrent(sessionId: string | undefined): void {
    this.currentId = sessionId;
    this.render();
  }

  showError(error: Pick<ApiError, "code" | "message">): void {
    this.list.replaceChildren(h("li", { class: "session-empty" }, `Sessions unavailable (${error.code}): ${error.message}`));
  }

  private render(): void {
    if (this.sessions.length === 0) {
      this.list.replaceChildren(h("li", { class: "session-empty" }, "No sessions yet. Pick an agent and say hello."));
      return;
    }
    this.list.replaceChildren(...this.sessions.map((session) => this.item(session)));
  }

  private item(session: SessionSummary): HTMLLIElement {
    const agent = this.agents.get(session.agent_id);
    const current = session.id === this.currentId;
    return h(
      "li",
      {},
      h(
        "a",
        {
          class: "session-item",
          href: formatHashRoute({ view: "session", sessionId: session.id }),
          "aria-current": current ? "page" : undefined,
          // one sentence for screen readers instead of the visual pieces run together
          "aria-label": `${session.title || "Untitled"}, with ${agent?.name ?? session.agent_id}, ${statusLabels[session.status] ?? session.status}, ${formatRelativeTime(session.updated_at)}`,
        },
        agentAvatar(agent ?? { icon: "", name: session.agent_id }),
        h(
          "span",
          { class: "session-text" },
          h("span", { class: "session-title" }, session.title || "Untitled"),
          h(
            "span",
            { class: "session-meta" },
            h("span", {}, agent?.name ?? session.agent_id),
            h("span", { "aria-hidden": "true" }, " · "),
            h("time", { datetime: session.updated_at }, formatRelativeTime(session.updated_at)),
          ),
        ),
        h("span", { class: `status status-${session.status}` }, statusLabels[session.status] ?? session.status),
      ),
    );
  }
}
