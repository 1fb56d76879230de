import type { AgentSummary } from "@agent-orchestrator/shared/wire";
import { toApiError } from "../api/api-error.js";
import { chatApi, type SessionMatch } from "../chat/chat-api.js";
import { h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { matchParts } from "./match-parts.js";
import { projectChoice } from "../projects/project-choice.js";
import { sessionLink } from "./session-item.js";

/** How long typing must pause before a search is sent. */
const debounceMs = 250;

/** What the search needs from the list it sits above. */
export interface ChatSearchHost {
  /** the list the results stand in for while there is a query */
  list: HTMLElement;
  agents(): Map<string, AgentSummary>;
  currentId(): string | undefined;
}

/**
 * The search box above the chats: the current project's chats whose title or messages hold the text, each with
 * the words around the hit. Debounced, and an answer to an older query is dropped. ArrowDown moves from the box
 * into the results and the arrows move through them; Escape clears the search.
 */
export class ChatSearch {
  readonly element: HTMLElement;
  private readonly input = h("input", { id: "chat-search-input", type: "search", autocomplete: "off", maxlength: 200, placeholder: "Search chats…", "aria-controls": "chat-search-results" });
  private readonly status = h("p", { class: "search-status", role: "status" });
  private readonly results = h("ol", { id: "chat-search-results", class: "session-list search-results", "aria-label": "Chats found", hidden: true });
  private timer: ReturnType<typeof setTimeout> | undefined;
  private inFlight: AbortController | undefined;
  private query = "";

  constructor(private readonly host: ChatSearchHost) {
    this.element = h(
      "div",
      { class: "chat-search", role: "search", "aria-label": "Chats of this project" },
      h("label", { for: "chat-search-input", class: "visually-hidden" }, "Search this project's chats"),
      this.input,
      this.status,
    );
    host.list.after(this.results);
    this.input.addEventListener("input", () => this.schedule());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown") {
        const first = this.links()[0];
        if (first) {
          event.preventDefault();
          first.focus();
        }
      } else if (event.key === "Escape" && this.input.value !== "") {
        event.preventDefault();
        this.clear();
      }
    });
    this.results.addEventListener("keydown", (event) => this.moveFocus(event));
    projectChoice.onChange(() => this.clear());
  }

  /** A search is shown: the list's own content is hidden behind it. */
  get active(): boolean {
    return this.query !== "";
  }

  /** The chats may have changed (a turn ended, one was renamed or deleted): the shown results are asked for again. */
  refresh(): void {
    if (this.active) void this.run(this.query);
  }

  clear(): void {
    this.input.value = "";
    this.schedule(0);
  }

  private schedule(delay = debounceMs): void {
    clearTimeout(this.timer);
    const query = this.input.value.trim();
    if (query === "") {
      this.inFlight?.abort();
      this.query = "";
      this.status.textContent = "";
      this.results.hidden = true;
      this.results.replaceChildren();
      this.host.list.hidden = false;
      return;
    }
    this.timer = setTimeout(() => void this.run(query), delay);
  }

  private async run(query: string): Promise<void> {
    this.inFlight?.abort();
    const controller = new AbortController();
    this.inFlight = controller;
    this.query = query;
    this.host.list.hidden = true;
    this.results.hidden = false;
    this.status.textContent = "Searching…";
    try {
      const found = await chatApi.searchChats(projectChoice.get(), query, controller.signal);
      if (controller.signal.aborted) return;
      this.show(found, query);
    } catch (error) {
      if (controller.signal.aborted) return;
      this.status.textContent = "The search failed.";
      this.results.replaceChildren(h("li", {}, errorCallout(toApiError(error))));
    }
  }

  private show(found: SessionMatch[], query: string): void {
    this.status.textContent = found.length === 0 ? `No chat contains “${query}”.` : `${found.length} ${found.length === 1 ? "chat contains" : "chats contain"} “${query}”.`;
    const agents = this.host.agents();
    this.results.replaceChildren(
      ...found.map((session) => {
        const snippet = h("span", { class: "session-match" }, ...matchParts(session.match, query).map((part) => (part.hit ? h("mark", {}, part.text) : part.text)));
        return h("li", {}, sessionLink(session, agents.get(session.agent_id), session.id === this.host.currentId(), snippet));
      }),
    );
  }

  private links(): HTMLAnchorElement[] {
    return [...this.results.querySelectorAll<HTMLAnchorElement>("a.session-item")];
  }

  private moveFocus(event: KeyboardEvent): void {
    const links = this.links();
    const index = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (event.key === "Escape") {
      event.preventDefault();
      this.clear();
      this.input.focus();
      return;
    }
    if (index < 0 || (event.key !== "ArrowDown" && event.key !== "ArrowUp")) return;
    event.preventDefault();
    const next = event.key === "ArrowDown" ? links[index + 1] : links[index - 1];
    if (next) next.focus();
    else if (event.key === "ArrowUp") this.input.focus();
  }
}
