import type { AgentSummary, NextStep, ProjectArtifact, ProjectOverview, ProjectView } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { byId, h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { formatRelativeTime } from "../lib/format.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { projectChoice } from "./project-choice.js";
import { readOnlyNote } from "./read-only-note.js";

export interface OverviewHooks {
  findProject(projectId: string): Promise<ProjectView | undefined>;
  agent(agentId: string): AgentSummary | undefined;
  /** the one click: start `step`'s agent on it in a new chat of the project */
  start(projectId: string, step: NextStep & { agent_id: string }): void;
}

const phaseStates = { done: "Done", current: "Current phase", ahead: "Not started" } as const;

/**
 * A project at a glance (`#/projects/<id>`): BMAD's four phases with the documents the project has (each a link
 * to the Files view, with who wrote it and when), the current phase marked, and the workflow the method
 * recommends next with its agent and why, started with one click (docs/projects.md "The method at a glance").
 */
export class ProjectOverviewView {
  private readonly section = byId<HTMLElement>("overview-view");
  private readonly body = byId<HTMLElement>("overview-body");
  private generation = 0;

  constructor(
    private readonly api: ApiClient,
    private readonly hooks: OverviewHooks,
  ) {}

  async show(projectId: string): Promise<void> {
    const generation = ++this.generation;
    this.section.hidden = false;
    projectChoice.set(projectId);
    this.body.replaceChildren(h("p", { class: "muted" }, "Loading the project…"));
    try {
      const [project, overview] = await Promise.all([this.hooks.findProject(projectId), this.api.projectOverview(projectId)]);
      if (generation !== this.generation) return;
      document.title = `${project?.name ?? "Project"} · Agent Orchestrator`;
      this.body.replaceChildren(...this.render(projectId, project, overview));
    } catch (error) {
      if (generation !== this.generation) return;
      document.title = "Project · Agent Orchestrator";
      this.body.replaceChildren(h("h1", { id: "overview-title" }, "Project"), errorCallout(toApiError(error), h("a", { class: "button", href: "#/" }, "Choose an agent")));
    }
  }

  hide(): void {
    this.generation++;
    this.section.hidden = true;
  }

  private render(projectId: string, project: ProjectView | undefined, overview: ProjectOverview): HTMLElement[] {
    const readOnly = project?.role === "viewer";
    const files = h("a", { class: "button button-quiet button-small", href: formatHashRoute({ view: "files", projectId }) }, "All files");
    return [
      h(
        "header",
        { class: "overview-header" },
        h("div", {}, h("h1", { id: "overview-title" }, project?.name ?? projectId), h("p", { class: "muted" }, project ? `${project.personal ? "Your personal project" : `Owned by ${project.owner}`} · you are ${project.role}` : "")),
        files,
      ),
      readOnly ? readOnlyNote() : null,
      this.nextStep(projectId, overview, readOnly),
      h(
        "ol",
        { class: "phases", "aria-label": "The method's phases" },
        ...overview.phases.map((phase) => {
          const state = phase.phase === overview.current && !phase.done ? "current" : phase.done ? "done" : "ahead";
          return h(
            "li",
            { class: `phase phase-${state}`, "aria-current": state === "current" ? "step" : undefined },
            h("div", { class: "phase-head" }, h("h2", {}, phase.label), h("span", { class: `phase-state phase-state-${state}` }, phaseStates[state])),
            phase.artifacts.length > 0
              ? h("ul", { class: "artifacts", "aria-label": `Documents of ${phase.label}` }, ...phase.artifacts.map((artifact) => this.artifact(projectId, artifact)))
              : h("p", { class: "muted phase-empty" }, "No documents yet."),
          );
        }),
      ),
    ].filter((element): element is HTMLElement => element !== null);
  }

  private nextStep(projectId: string, overview: ProjectOverview, readOnly: boolean): HTMLElement {
    const step = overview.next;
    if (!step) {
      const why = overview.catalogue === null ? "This BMAD install ships no help catalogue, so there is no recommended next step." : "The method has nothing more to recommend here.";
      return h("section", { class: "next-step", "aria-labelledby": "next-title" }, h("h2", { id: "next-title" }, "Next step"), h("p", { class: "muted" }, why));
    }
    const agent = step.agent_id === undefined ? undefined : this.hooks.agent(step.agent_id);
    const agentId = step.agent_id;
    const start =
      agentId !== undefined && agent !== undefined && !readOnly
        ? h("button", { type: "button", class: "button button-primary", onclick: () => this.hooks.start(projectId, { ...step, agent_id: agentId }) }, `Start with ${agent.name}`)
        : null;
    return h(
      "section",
      { class: "next-step", "aria-labelledby": "next-title" },
      h("p", { class: "next-label" }, "Recommended next"),
      h("h2", { id: "next-title" }, h("code", {}, step.code), " ", step.name),
      h("p", {}, step.description),
      h("p", { class: "next-reason" }, step.reason),
      h("p", { class: "next-agent" }, agent ? `${agent.icon} ${agent.name} — ${agent.title}` : step.agent_id ? `Agent ${step.agent_id} (not installed)` : "No agent runs this workflow"),
      start,
    );
  }

  private artifact(projectId: string, artifact: ProjectArtifact): HTMLLIElement {
    const { author } = artifact;
    const agent = author.agent_id ? (this.hooks.agent(author.agent_id)?.name ?? author.agent_id) : undefined;
    const chat = author.session_id ? h("a", { href: formatHashRoute({ view: "session", sessionId: author.session_id }) }, "the chat") : null;
    return h(
      "li",
      { class: "artifact" },
      h("a", { class: "artifact-link", href: formatHashRoute({ view: "files", projectId, path: artifact.path }) }, h("strong", {}, artifact.label), h("span", { class: "artifact-path" }, artifact.path)),
      h(
        "span",
        { class: "artifact-meta" },
        `by ${author.user}${agent ? ` with ${agent}` : ""}`,
        chat ? " in " : "",
        chat,
        " · ",
        h("time", { datetime: artifact.updated_at, title: new Date(artifact.updated_at).toLocaleString() }, formatRelativeTime(artifact.updated_at)),
      ),
    );
  }
}
