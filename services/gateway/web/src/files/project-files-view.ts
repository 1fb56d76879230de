import type { BranchPoint, ProjectView } from "@agent-orchestrator/shared/wire";
import type { ApiClient, ListedFile } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { byId, h } from "../lib/dom.js";
import { dropZone } from "./drop-zone.js";
import { errorCallout } from "../ui/error-callout.js";
import { FilePane } from "./file-pane.js";
import { buildFileTree, parentOf } from "./file-tree-model.js";
import { FileTreeView } from "./file-tree-view.js";
import { FileUploader } from "./file-uploader.js";
import { formatHashRoute } from "../lib/hash-route.js";
import { projectChoice } from "../projects/project-choice.js";
import { saveBlob } from "../lib/save-blob.js";
import { showToast } from "../ui/toasts.js";

/** A branch of the project's repository as the branch picker offers it: `label` names a chat's branch by its title. */
export interface BranchChoice {
  name: string;
  label: string;
  /** the repository's default branch: shown when no branch is asked for */
  default: boolean;
}

/**
 * The project's files (`#/projects/<id>/files[/<path>]`): a tree of its own files and its code snapshot's,
 * the open file with its history, uploads by button, drag and drop or paste into the folder in view, and
 * the whole project as a zip. A file's path is in the URL, so Back and a shared link work. In a project with a
 * git repository (docs/repositories.md "The files API on a repository"), a branch picker (`?branch=` in the URL)
 * and the chosen branch's files, read-only: no uploads, history or zip.
 */
export class ProjectFilesView {
  private readonly section = byId<HTMLElement>("files-view");
  private readonly treePane = byId<HTMLElement>("files-tree-pane");
  private readonly uploadTarget = byId<HTMLElement>("upload-target");
  private readonly uploadButton = byId<HTMLButtonElement>("upload-button");
  private readonly uploadInput = byId<HTMLInputElement>("upload-input");
  private readonly archiveButton = byId<HTMLButtonElement>("download-archive");
  private readonly branchPicker = h("select", { id: "branch-picker", "aria-label": "Branch" });
  private readonly branchField = h("label", { class: "branch-field", hidden: true }, "Branch ", this.branchPicker);
  private readonly repositoryNote = h(
    "p",
    { class: "read-only-note", role: "note", hidden: true },
    h("strong", {}, "These are the files of the project's git repository."),
    " Change them with git (clone it, commit, push) or through a chat; a chat's own branch shows its work before it is committed.",
  );
  private readonly tree = new FileTreeView({ openFile: (node) => this.navigate(node.path), chooseFolder: (folder) => this.setFolder(folder.path) });
  private readonly pane: FilePane;
  private readonly uploader: FileUploader;
  private projectId: string | undefined;
  private writable = false;
  private files: ListedFile[] = [];
  /** the branch the URL asks for (undefined: the default branch, or the project's stored files) */
  private branch: string | undefined;
  /** the project has a repository: its files are shown, read-only */
  private repository = false;
  /** which branch and commit the list is of */
  private shown: BranchPoint | undefined;
  private loaded: Promise<void> = Promise.resolve();
  private folder = "";
  private openPath: string | undefined;

  constructor(
    private readonly api: ApiClient,
    /** the caller's project with their role (the project switcher's list) */
    private readonly findProject: (projectId: string) => Promise<ProjectView | undefined>,
    /** the branches of the project's repository, the default first; null when it has none */
    private readonly branches: (projectId: string) => Promise<BranchChoice[] | null> = async () => null,
  ) {
    this.pane = new FilePane(byId("file-pane-title"), byId("file-pane-actions"), byId("file-pane-body"), api, {
      open: (path) => this.navigate(path),
      restored: (file) => {
        showToast(`Revision ${file.revision} of ${file.path} written from the old one.`);
        void this.reload().then(() => this.openFile(file.path));
      },
    });
    this.uploader = new FileUploader(api, {
      finished: (stored) => void this.afterUpload(stored.map((uploaded) => uploaded.markdown?.path ?? uploaded.file.path)),
      open: (path) => this.navigate(path),
    });
    byId("uploads-slot").replaceWith(this.uploader.element);
    this.treePane.append(this.tree.element);
    this.uploadButton.addEventListener("click", () => this.uploadInput.click());
    this.uploadInput.addEventListener("change", () => {
      this.upload([...(this.uploadInput.files ?? [])]);
      this.uploadInput.value = "";
    });
    this.archiveButton.addEventListener("click", () => void this.downloadArchive());
    byId("files-view-title").after(this.branchField);
    byId("files-read-only").after(this.repositoryNote);
    this.branchPicker.addEventListener("change", () => {
      if (this.projectId === undefined) return;
      const chosen = this.branchPicker.value;
      location.hash = formatHashRoute({ view: "files", projectId: this.projectId, ...(chosen === "" ? {} : { branch: chosen }) });
    });
    byId("refresh-files").addEventListener("click", () => void this.reload().then(() => this.openFile(this.openPath)));
    byId("file-pane-back").addEventListener("click", () => this.navigate(undefined));
    dropZone(this.section, byId("drop-overlay"), (files) => this.upload(files));
  }

  /** Shows project `projectId`, and file `path` in it when given, on branch `branch` of its repository when named. */
  async show(projectId: string, path: string | undefined, branch?: string): Promise<void> {
    this.section.hidden = false;
    document.title = "Project files · Agent Orchestrator";
    projectChoice.set(projectId);
    if (projectId !== this.projectId) {
      this.projectId = projectId;
      this.branch = branch;
      this.files = [];
      this.openPath = undefined;
      this.setFolder("");
      this.loaded = this.load(projectId);
    } else if (branch !== this.branch) {
      this.branch = branch;
      this.files = [];
      this.openPath = undefined;
      this.loaded = this.reload();
    }
    await this.loaded;
    if (this.projectId !== projectId) return;
    if (path) this.setFolder(parentOf(path) ?? "");
    await this.openFile(path);
  }

  hide(): void {
    this.section.hidden = true;
  }

  /** The project changed (renamed, a member's role): the next `show` loads it again. */
  forget(): void {
    this.projectId = undefined;
  }

  private async load(projectId: string): Promise<void> {
    const [project, branches] = await Promise.all([this.findProject(projectId), this.branches(projectId).catch(() => null)]);
    if (projectId !== this.projectId) return;
    // a role the list did not give: let the API decide, and say what it refuses
    this.writable = project === undefined || project.role !== "viewer";
    // a repository's files change with git, never through this view
    this.repository = branches !== null;
    this.uploadButton.hidden = !this.writable || this.repository;
    byId("files-read-only").hidden = this.writable || this.repository;
    this.uploadTarget.hidden = !this.writable || this.repository;
    this.archiveButton.hidden = this.repository;
    this.branchField.hidden = !this.repository;
    this.repositoryNote.hidden = !this.repository;
    this.branchPicker.replaceChildren(...(branches ?? []).map((choice) => h("option", { value: choice.default ? "" : choice.name }, choice.label)));
    byId<HTMLElement>("files-view-title").textContent = project ? `Files of ${project.name}` : "Project files";
    await this.reload();
  }

  private async reload(): Promise<void> {
    const projectId = this.projectId;
    if (projectId === undefined) return;
    try {
      const branch = this.branch;
      this.showBranch(branch);
      const { files, truncated, shown } = await this.api.listProjectFiles(projectId, branch);
      if (projectId !== this.projectId || branch !== this.branch) return;
      this.files = files;
      this.shown = shown;
      const where = shown ? h("p", { class: "muted branch-shown" }, shown.working_tree ? `${shown.branch}: the chat's working tree, uncommitted changes included` : `${shown.branch} at commit ${shown.commit.slice(0, 7)}`) : "";
      if (files.length === 0) {
        this.treePane.replaceChildren(where, h("p", { class: "empty" }, shown ? "This branch has no files to show here." : "No files yet. Upload documents, or let an agent write some."));
        return;
      }
      this.tree.show(buildFileTree(files));
      const cut = shown ? "Some files of this branch are not listed: there are too many." : "Some files of the code snapshot are not listed: there are too many.";
      this.treePane.replaceChildren(where, this.tree.element, truncated ? h("p", { class: "muted" }, cut) : "");
    } catch (error) {
      if (projectId === this.projectId) this.treePane.replaceChildren(errorCallout(toApiError(error), h("button", { type: "button", class: "button", onclick: () => void this.reload() }, "Try again")));
    }
  }

  private async openFile(path: string | undefined): Promise<void> {
    const projectId = this.projectId;
    if (projectId === undefined) return;
    const treeHadFocus = this.treePane.contains(document.activeElement);
    this.openPath = path;
    this.section.classList.toggle("has-open-file", path !== undefined);
    this.tree.select(path);
    if (path === undefined) this.pane.clear(this.files.length === 0 ? "Nothing to show yet." : "Choose a file to see it here.");
    else {
      document.title = `${path} · Project files · Agent Orchestrator`;
      const loading = this.pane.show(projectId, path, this.files.find((file) => file.path === path), this.writable && !this.repository, "content", this.shown);
      // on a narrow screen the tree is hidden while a file is open: the keyboard user lands on the file
      if (treeHadFocus && this.treePane.offsetParent === null) byId("file-pane-back").focus();
      await loading;
    }
  }

  private navigate(path: string | undefined, projectId = this.projectId): void {
    if (projectId === undefined) return;
    const on = this.branch === undefined ? {} : { branch: this.branch };
    const hash = formatHashRoute(path === undefined ? { view: "files", projectId, ...on } : { view: "files", projectId, path, ...on });
    // the same address fires no hashchange: the file is shown again (its listing may be newer)
    if (hash === location.hash) void this.openFile(path);
    else location.hash = hash;
  }

  private setFolder(folder: string): void {
    this.folder = folder;
    const shown = folder === "" ? "the project's top folder" : `${folder}/`;
    this.uploadTarget.replaceChildren("Uploads go into ", h("code", {}, shown), ". Drop or paste files anywhere here.");
    byId("drop-folder").textContent = shown;
  }

  /** The picker shows `branch` (the default branch when undefined), adding a branch it did not list. */
  private showBranch(branch: string | undefined): void {
    if (!this.repository) return;
    const value = branch ?? "";
    if (![...this.branchPicker.options].some((option) => option.value === value)) this.branchPicker.append(h("option", { value }, value));
    this.branchPicker.value = value;
  }

  private upload(files: File[]): void {
    if (files.length === 0 || this.projectId === undefined || this.repository) return;
    void this.uploader.upload(files, { projectId: this.projectId, folder: this.folder });
  }

  /** The tree shows the new files; the last one stored (a document's Markdown form) opens. */
  private async afterUpload(paths: string[]): Promise<void> {
    await this.reload();
    const last = paths.at(-1);
    if (last !== undefined && last !== this.openPath) this.navigate(last);
    else if (last !== undefined) await this.openFile(last);
  }

  private async downloadArchive(): Promise<void> {
    const projectId = this.projectId;
    if (projectId === undefined) return;
    try {
      saveBlob(await this.api.downloadArchive(projectId), `${projectId}.zip`);
    } catch (error) {
      const failure = toApiError(error);
      showToast(`The download failed (${failure.code}): ${failure.message}`, "error");
    }
  }
}
