import type { ProjectView } from "@agent-orchestrator/shared/wire";
import type { ApiClient } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { confirmAction } from "../ui/confirm-dialog.js";
import { byId, h } from "../lib/dom.js";
import { formatCost, formatOwnSpending } from "../lib/format.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { openMembersDialog } from "./members-dialog.js";
import { openMySettingsDialog, openProjectSettingsDialog } from "./settings-dialog.js";
import { projectChoice } from "./project-choice.js";
import { askForText } from "../ui/text-dialog.js";
import { showToast } from "../ui/toasts.js";

/** Personal project first, then the others by name. */
const personalFirst = (left: ProjectView, right: ProjectView): number => Number(right.personal) - Number(left.personal) || left.name.localeCompare(right.name);

const roleLabels: Record<ProjectView["role"], string> = { owner: "owner", editor: "editor", viewer: "viewer · read only" };

/**
 * The project switcher at the top of the sidebar, the one place the current project is chosen
 * (project-choice.ts keeps it): a select of the caller's projects, the project's role, its overview,
 * members and BMAD settings, the caller's own settings, and creating, renaming and deleting projects. Only the owner sees rename, delete and member
 * management; the personal project cannot be deleted (the API refuses it: every client that names no
 * project would only get a new one). On a narrow screen the panel is folded to the project's name.
 */
export class ProjectPanel {
  private readonly panel = byId<HTMLDetailsElement>("project-panel");
  private readonly select = byId<HTMLSelectElement>("project-select");
  private readonly nameText = byId<HTMLElement>("project-name");
  private readonly roleText = byId<HTMLElement>("project-role");
  private readonly overviewLink = byId<HTMLAnchorElement>("project-overview-link");
  private readonly renameButton = byId<HTMLButtonElement>("project-rename");
  private readonly deleteButton = byId<HTMLButtonElement>("project-delete");
  private readonly spendingText = byId<HTMLElement>("project-spending");
  private readonly ownSpendingText = byId<HTMLElement>("own-spending");
  private projects: ProjectView[] = [];
  private loaded: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: ApiClient,
    /** after a project was renamed or deleted: views that show it load again */
    private readonly changed: () => void,
  ) {
    // open beside the page on a wide screen, folded in the drawer on a narrow one; the user's toggle holds until the width class changes
    const wide = window.matchMedia("(min-width: 861px)");
    this.panel.open = wide.matches;
    wide.addEventListener("change", () => (this.panel.open = wide.matches));
    this.select.addEventListener("change", () => this.choose(this.select.value));
    byId("project-create").addEventListener("click", () => void this.create());
    this.renameButton.addEventListener("click", () => void this.rename());
    this.deleteButton.addEventListener("click", () => void this.remove());
    byId("project-members").addEventListener("click", () => void this.members());
    byId("project-settings").addEventListener("click", () => void this.settings());
    byId("my-settings").addEventListener("click", () => openMySettingsDialog(this.api));
    projectChoice.onChange(() => this.render());
  }

  /** Loads the caller's projects (again). */
  reload(): Promise<void> {
    this.loaded = this.load();
    return this.loaded;
  }

  /** The caller's project `projectId` (`default`: the personal one) with their role, once the list is loaded. */
  async find(projectId: string): Promise<ProjectView | undefined> {
    await this.loaded;
    return this.lookup(projectId);
  }

  private lookup(projectId: string): ProjectView | undefined {
    return this.projects.find((project) => (projectId === "default" ? project.personal : project.id === projectId));
  }

  private async load(): Promise<void> {
    try {
      this.projects = (await this.api.listProjects()).sort(personalFirst);
    } catch (error) {
      const failure = toApiError(error);
      this.select.replaceChildren(h("option", { value: projectChoice.get() }, `Projects unavailable (${failure.code})`));
      return;
    }
    this.render();
  }

  private render(): void {
    const current = this.lookup(projectChoice.get());
    if (current === undefined && this.projects.length === 0) return;
    this.select.replaceChildren(
      ...this.projects.map((project) => h("option", { value: project.id, selected: project === current }, project.personal ? `${project.name} (personal)` : `${project.name} · ${project.role}`)),
    );
    this.nameText.textContent = current?.name ?? "Unknown project";
    this.roleText.textContent = current ? roleLabels[current.role] : "";
    this.overviewLink.href = formatHashRoute({ view: "project", projectId: current?.id ?? projectChoice.get() });
    this.renameButton.hidden = current?.role !== "owner";
    this.deleteButton.hidden = current?.role !== "owner" || current.personal;
    if (current) void this.showSpending(current.id);
  }

  /** The project's spending this month and its budget, and the caller's own; nothing where nothing is priced (no route has a price). */
  private async showSpending(projectId: string): Promise<void> {
    const usage = await this.api.projectUsage(projectId).catch(() => undefined);
    if (this.lookup(projectChoice.get())?.id !== projectId) return;
    const budget = usage?.monthly_budget.limit;
    const spent = usage?.this_month.cost ?? 0;
    this.spendingText.hidden = usage === undefined || (spent === 0 && budget === null);
    this.spendingText.textContent = `This month: ${formatCost(spent)}${budget === null || budget === undefined ? "" : ` of ${formatCost(budget)}`}`;
    const own = await this.api.ownUsage().catch(() => undefined);
    const line = own && formatOwnSpending(own);
    this.ownSpendingText.hidden = line === undefined;
    this.ownSpendingText.textContent = line ?? "";
  }

  /** Picking a project shows it: its files when the files are in view, its overview otherwise. */
  private choose(projectId: string): void {
    const inFiles = location.hash.includes("/files");
    location.hash = formatHashRoute(inFiles ? { view: "files", projectId } : { view: "project", projectId });
  }

  private async create(): Promise<void> {
    const name = await askForText({ title: "New project", label: "Name of the project", confirm: "Create project" });
    if (name === undefined) return;
    try {
      const project = await this.api.createProject(name);
      await this.reload();
      location.hash = formatHashRoute({ view: "project", projectId: project.id });
    } catch (error) {
      this.fail("The project could not be created", error);
    }
  }

  private async rename(): Promise<void> {
    const project = this.lookup(projectChoice.get());
    if (!project) return;
    const name = await askForText({ title: `Rename ${project.name}`, label: "New name", value: project.name, confirm: "Rename" });
    if (name === undefined || name === project.name) return;
    try {
      await this.api.renameProject(project.id, name);
      await this.reload();
      showToast(`Renamed to ${name}.`);
      this.changed();
    } catch (error) {
      this.fail("The project could not be renamed", error);
    }
  }

  private async remove(): Promise<void> {
    const project = this.lookup(projectChoice.get());
    if (!project) return;
    const sure = await confirmAction({
      title: `Delete ${project.name}?`,
      text: `“${project.name}” will be deleted with all its chats and files, for every member. This cannot be undone.`,
      confirm: `Delete ${project.name}`,
    });
    if (!sure) return;
    try {
      await this.api.deleteProject(project.id);
      showToast(`${project.name} was deleted.`);
      projectChoice.set("default");
      await this.reload();
      location.hash = formatHashRoute({ view: "project", projectId: "default" });
      this.changed();
    } catch (error) {
      const failure = toApiError(error);
      if (failure.code === "PROJECT_BUSY") showToast(`${project.name} is busy: a chat is answering. Stop it or wait, then delete again.`, "error");
      else this.fail("The project could not be deleted", failure);
    }
  }

  private async members(): Promise<void> {
    const project = await this.find(projectChoice.get());
    if (project) openMembersDialog(this.api, project);
  }

  private async settings(): Promise<void> {
    const project = await this.find(projectChoice.get());
    if (project) openProjectSettingsDialog(this.api, project);
  }

  private fail(what: string, error: unknown): void {
    const failure = toApiError(error);
    showToast(`${what} (${failure.code}): ${failure.message}`, "error");
  }
}
