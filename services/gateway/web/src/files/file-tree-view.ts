import { h } from "../lib/dom.js";
import { parentOf, type TreeFile, type TreeFolder, type TreeNode } from "./file-tree-model.js";

export interface FileTreeHooks {
  /** a file was chosen (click, Enter or Space) */
  openFile(node: TreeFile): void;
  /** a folder was chosen: uploads go there now */
  chooseFolder(folder: TreeFolder): void;
}

/**
 * The project's files as an ARIA tree (https://www.w3.org/WAI/ARIA/apg/patterns/treeview/): one tab stop,
 * arrow keys move between the visible items, Right and Left open and close folders, Enter and Space choose.
 * Folders whose files all belong to the read-only code snapshot start closed; the user's choices hold
 * across refreshes.
 */
export class FileTreeView {
  readonly element = h("ul", { class: "file-tree", role: "tree", "aria-label": "Project files" });
  private readonly toggled = new Set<string>();
  private root: TreeFolder | undefined;
  private selectedPath: string | undefined;
  private focusPath: string | undefined;

  constructor(private readonly hooks: FileTreeHooks) {
    this.element.addEventListener("keydown", (event) => this.onKey(event));
    this.element.addEventListener("focusin", (event) => {
      const item = (event.target as Element).closest<HTMLElement>("[role=treeitem]");
      if (item) this.moveTabStop(item);
    });
  }

  show(root: TreeFolder): void {
    this.root = root;
    const hadFocus = this.element.contains(document.activeElement);
    this.element.replaceChildren(...root.children.map((node) => this.item(node, 1)));
    const target = this.itemAt(this.focusPath) ?? this.itemAt(this.selectedPath) ?? this.visibleItems()[0];
    if (target) {
      this.moveTabStop(target);
      if (hadFocus) target.focus({ preventScroll: true });
    }
  }

  /** Marks `path` as the open file or the chosen folder, opening the folders above it. */
  select(path: string | undefined): void {
    this.selectedPath = path;
    for (let folder = path === undefined ? undefined : parentOf(path); folder; folder = parentOf(folder)) {
      if (!this.isOpen(folder)) this.toggle(folder);
    }
    if (this.root) this.show(this.root);
    const item = this.itemAt(path);
    item?.scrollIntoView({ block: "nearest" });
  }

  private isOpen(path: string): boolean {
    const folder = this.findFolder(path);
    const openByDefault = !(folder?.readOnly ?? false);
    return this.toggled.has(path) ? !openByDefault : openByDefault;
  }

  private toggle(path: string): void {
    if (!this.toggled.delete(path)) this.toggled.add(path);
  }

  private findFolder(path: string, folder: TreeFolder | undefined = this.root): TreeFolder | undefined {
    if (!folder) return undefined;
    if (folder.path === path) return folder;
    for (const child of folder.children) {
      if (child.kind === "folder" && (path === child.path || path.startsWith(`${child.path}/`))) return this.findFolder(path, child);
    }
    return undefined;
  }

  private item(node: TreeNode, level: number): HTMLLIElement {
    const selected = node.path === this.selectedPath;
    const readOnly = node.kind === "file" ? node.file.read_only : node.readOnly;
    const attributes = {
      role: "treeitem",
      "aria-level": level,
      "aria-selected": String(selected),
      "aria-label": readOnly ? `${node.name}, read-only` : node.name,
      tabindex: "-1",
      "data-path": node.path,
      "data-kind": node.kind,
      class: `tree-item${selected ? " is-selected" : ""}`,
    };
    const badge = readOnly ? h("span", { class: "tree-badge", "aria-hidden": "true" }, "read-only") : null;
    if (node.kind === "file") {
      const converted = "conversion" in node.file && node.file.conversion && "markdown_path" in node.file.conversion ? h("span", { class: "tree-badge", "aria-hidden": "true" }, "→ .md") : null;
      return h("li", { ...attributes, onclick: (event: Event) => this.choose(event, node) }, h("span", { class: "tree-row" }, h("span", { class: "tree-icon tree-file", "aria-hidden": "true" }), h("span", { class: "tree-name" }, node.name), converted, badge));
    }
    const open = this.isOpen(node.path);
    return h(
      "li",
      { ...attributes, "aria-expanded": String(open) },
      h("span", { class: "tree-row", onclick: (event: Event) => this.choose(event, node) }, h("span", { class: `tree-icon tree-folder${open ? " is-open" : ""}`, "aria-hidden": "true" }), h("span", { class: "tree-name" }, node.name), badge),
      open ? h("ul", { role: "group" }, ...node.children.map((child) => this.item(child, level + 1))) : null,
    );
  }

  private choose(event: Event, node: TreeNode): void {
    event.stopPropagation();
    this.focusPath = node.path;
    if (node.kind === "file") {
      this.hooks.openFile(node);
      return;
    }
    this.toggle(node.path);
    this.selectedPath = node.path;
    this.hooks.chooseFolder(node);
    if (this.root) this.show(this.root);
    this.itemAt(node.path)?.focus({ preventScroll: true });
  }

  private onKey(event: KeyboardEvent): void {
    const current = (event.target as Element).closest<HTMLElement>("[role=treeitem]");
    if (!current) return;
    const items = this.visibleItems();
    const index = items.indexOf(current);
    const path = current.dataset["path"] ?? "";
    const isFolder = current.dataset["kind"] === "folder";
    const expanded = current.getAttribute("aria-expanded") === "true";
    let next: HTMLElement | undefined;
    switch (event.key) {
      case "ArrowDown":
        next = items[index + 1];
        break;
      case "ArrowUp":
        next = items[index - 1];
        break;
      case "Home":
        next = items[0];
        break;
      case "End":
        next = items.at(-1);
        break;
      case "ArrowRight":
        if (isFolder && !expanded) this.openOrClose(path);
        else if (isFolder) next = items[index + 1];
        break;
      case "ArrowLeft":
        if (isFolder && expanded) this.openOrClose(path);
        else next = this.itemAt(parentOf(path) || undefined);
        break;
      case "Enter":
      case " ": {
        const node = this.nodeAt(path);
        if (node) this.choose(event, node);
        break;
      }
      default:
        return;
    }
    event.preventDefault();
    if (next) {
      this.focusPath = next.dataset["path"];
      next.focus();
    }
  }

  private openOrClose(path: string): void {
    this.focusPath = path;
    this.toggle(path);
    if (this.root) this.show(this.root);
    this.itemAt(path)?.focus();
  }

  private nodeAt(path: string): TreeNode | undefined {
    const folder = this.findFolder(parentOf(path) ?? "");
    return folder?.children.find((child) => child.path === path);
  }

  private visibleItems(): HTMLElement[] {
    return [...this.element.querySelectorAll<HTMLElement>("[role=treeitem]")];
  }

  private itemAt(path: string | undefined): HTMLElement | undefined {
    if (path === undefined) return undefined;
    return this.visibleItems().find((item) => item.dataset["path"] === path);
  }

  /** Roving tab index: the tree is one stop in the page's Tab order, at the item last used. */
  private moveTabStop(target: HTMLElement): void {
    for (const item of this.visibleItems()) item.tabIndex = item === target ? 0 : -1;
  }
}
