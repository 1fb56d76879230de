import type { AgentSummary, SessionSummary } from "@agent-orchestrator/shared/wire";
import type { ApiError } from "../api/api-error.js";
import { chatActionsMenu } from "./chat-menu.js";
import { ChatSearch } from "./chat-search.js";
import { byId, h } from "../lib/dom.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { projectChoice } from "../projects/project-choice.js";
import { chatTitle, sessionLink } from "./session-item.js";

/**
 * The current project's chats, newest first, each a link to `#/session/<id>` (the open one marked current)
 * with its actions (rename, export, delete), under a search box over the project's chats.
 */
export class SessionList {
  private readonly list = byId<HTMLOListElement>("session-list");
  private readonly search: ChatSearch;
  private sessions: SessionSummary[] = [];
  private agents = new Map<string, AgentSummary>();
  private currentId: string | undefined;

  constructor() {
    this.search = new ChatSearch({ list: this.list, agents: () => this.agents, currentId: () => this.currentId });
    this.list.before(this.search.element);
  }

  show(sessions: SessionSummary[], agents: Map<string, AgentSummary>): void {
    this.sessions = sessions;
    this.agents = agents;
    this.render();
    this.search.refresh();
  }

  setCurrent(sessionId: string | undefined): void {
    this.currentId = sessionId;
    this.render();
  }

  /** The title the list shows for `sessionId` ("" when it does not list it). */
  titleOf(sessionId: string): string {
    return this.sessions.find((session) => session.id === sessionId)?.title ?? "";
  }

  showError(error: Pick<ApiError, "code" | "message">): void {
    this.list.replaceChildren(h("li", { class: "session-empty" }, `Sessions unavailable (${error.code}): ${error.message}`));
  }

  private render(): void {
    if (this.sessions.length === 0) {
      this.list.replaceChildren(h("li", { class: "session-empty" }, "No sessions in this project yet. Pick an agent and say hello."));
      return;
    }
    this.list.replaceChildren(...this.sessions.map((session) => this.item(session)));
  }

  private item(session: SessionSummary): HTMLLIElement {
    const agent = this.agents.get(session.agent_id);
    const title = chatTitle(session, agent?.name ?? session.agent_id);
    const actions = chatActionsMenu({ id: session.id, title }, { renamed: (id, newTitle) => this.renamed(id, newTitle), deleted: (id) => this.deleted(id) });
    return h("li", { class: "session-row" }, sessionLink(session, agent, session.id === this.currentId), actions);
  }

  private renamed(sessionId: string, title: string): void {
    this.sessions = this.sessions.map((session) => (session.id === sessionId ? { ...session, title } : session));
    this.render();
    this.search.refresh();
  }

  private deleted(sessionId: string): void {
    this.sessions = this.sessions.filter((session) => session.id !== sessionId);
    this.render();
    this.search.refresh();
    // the open chat is gone: the project's overview takes its place
    if (sessionId === this.currentId) location.hash = formatHashRoute({ view: "project", projectId: projectChoice.get() });
  }
}
