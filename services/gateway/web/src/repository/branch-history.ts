import { toApiError } from "../api/api-error.js";
import { byId, h } from "../lib/dom.js";
import { errorCallout } from "../ui/error-callout.js";
import { openModal } from "../ui/modal-dialog.js";
import { commitList } from "./commit-list.js";
import { repositoryApi, type RepositoryApi, type RepositoryView } from "./repository-api.js";

/**
 * The files view's "Repository" button, shown for a project with a git repository: a dialog with its branches (the
 * default first, then each chat's) and the chosen branch's commits, newest first, 50 at a time (docs/repositories.md
 * "A chat's work").
 */
export class BranchHistory {
  private readonly button = byId<HTMLButtonElement>("repository-history");
  private projectId: string | undefined;
  private repository: RepositoryView | undefined;

  constructor(private readonly api: RepositoryApi = repositoryApi) {
    this.button.addEventListener("click", () => this.open());
  }

  /** The project the files view shows: the button appears once its repository is known to exist. */
  async show(projectId: string): Promise<void> {
    this.projectId = projectId;
    this.button.hidden = true;
    const repository = await this.api.repository(projectId).catch(() => null);
    if (this.projectId !== projectId) return;
    this.repository = repository ?? undefined;
    this.button.hidden = repository === null;
  }

  private open(): void {
    const { projectId, repository } = this;
    if (projectId === undefined || !repository) return;
    const branches = [...repository.branches].sort((a, b) => Number(b.name === repository.default_branch) - Number(a.name === repository.default_branch));
    const choice = h("select", { id: "branch-choice" }, ...branches.map((branch) => h("option", { value: branch.name }, branch.name)));
    const history = h("div", { class: "branch-commits", "aria-live": "polite" });
    const load = async (skip: number) => {
      const branch = choice.value;
      if (skip === 0) history.replaceChildren(h("p", { class: "muted" }, "Loading…"));
      try {
        const page = await this.api.commits(projectId, branch, skip);
        if (choice.value !== branch) return;
        if (skip === 0) history.replaceChildren();
        history.querySelector(".more-commits")?.remove();
        history.append(commitList(page.commits, `Commits of ${branch}`));
        if (page.more) {
          const more = h("button", { class: "button button-quiet more-commits", type: "button" }, "Older commits");
          more.addEventListener("click", () => void load(skip + page.commits.length));
          history.append(more);
        }
      } catch (error) {
        history.replaceChildren(errorCallout(toApiError(error)));
      }
    };
    choice.addEventListener("change", () => void load(0));
    openModal("Repository", (dialog) => [
      h("p", {}, `Default branch ${repository.default_branch}; ${repository.branches.length} branch${repository.branches.length === 1 ? "" : "es"}. Clone it with git (docs: repositories).`),
      h("label", { for: "branch-choice" }, "Branch"),
      choice,
      history,
      h("div", { class: "dialog-actions" }, h("button", { class: "button", type: "button", onclick: () => dialog.close() }, "Close")),
    ]).classList.add("repository-dialog");
    void load(0);
  }
}
