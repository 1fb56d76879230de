import type { ApiClient } from "./api-client.js";
import { toApiError } from "./api-error.js";
import { h } from "./dom.js";
import type { ProjectView } from "./wire-types.js";

/** Personal project first, then the others by name. */
const personalFirst = (left: ProjectView, right: ProjectView): number => Number(right.personal) - Number(left.personal) || left.name.localeCompare(right.name);

/**
 * A minimal project selector: a `<select>` of the caller's projects. `default` stands for the personal
 * project until the list names its id. `chosen` is called when the user picks another.
 */
export class ProjectSelect {
  private projects: ProjectView[] = [];

  constructor(
    private readonly select: HTMLSelectElement,
    private readonly api: ApiClient,
    chosen: (projectId: string) => void,
  ) {
    select.addEventListener("change", () => chosen(select.value));
  }

  /** The caller's project `projectId` (or the personal one for `default`), once the list is loaded. */
  async load(projectId: string): Promise<ProjectView | undefined> {
    try {
      this.projects = (await this.api.listProjects()).sort(personalFirst);
    } catch (error) {
      const failure = toApiError(error);
      this.select.replaceChildren(h("option", { value: projectId }, `Projects unavailable (${failure.code})`));
      return undefined;
    }
    const current = this.projects.find((project) => (projectId === "default" ? project.personal : project.id === projectId));
    this.select.replaceChildren(
      ...this.projects.map((project) => h("option", { value: project.id, selected: project === current }, project.personal ? `${project.name} (personal)` : `${project.name} · ${project.role}`)),
    );
    return current;
  }
}
