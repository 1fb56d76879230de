import type { ApiClient, ListedFile } from "../api/api-client.js";
import { toApiError } from "../api/api-error.js";
import { h } from "../lib/dom.js";
import { formatBytes } from "../lib/format.js";
import { openModal } from "../ui/modal-dialog.js";

/** Most files listed at once; the filter finds the others. */
const shownAtMost = 200;

/**
 * A dialog of the project's files (its own and its code snapshot's) with a filter and a checkbox each;
 * resolves with the files chosen, none when cancelled. `already` are attached already and shown checked.
 */
export function pickProjectFiles(api: ApiClient, projectId: string, already: Set<string>): Promise<ListedFile[]> {
  return new Promise((resolve) => {
    let files: ListedFile[] = [];
    const chosen = new Set<string>();
    const filter = h("input", { id: "picker-filter", type: "search", autocomplete: "off", spellcheck: "false", placeholder: "Filter by name" });
    const list = h("ul", { class: "file-choices", "aria-label": "Files of the project" }, h("li", { class: "muted" }, "Loading…"));
    const render = (): void => {
      const needle = filter.value.trim().toLowerCase();
      const shown = files.filter((file) => file.path.toLowerCase().includes(needle));
      if (shown.length === 0) {
        list.replaceChildren(h("li", { class: "muted" }, files.length === 0 ? "The project has no files yet." : "No file matches."));
        return;
      }
      list.replaceChildren(
        ...shown.slice(0, shownAtMost).map((file) => {
          const box = h("input", { type: "checkbox", checked: chosen.has(file.path) || already.has(file.path), disabled: already.has(file.path) });
          box.addEventListener("change", () => void (box.checked ? chosen.add(file.path) : chosen.delete(file.path)));
          return h("li", {}, h("label", { class: "file-choice" }, box, h("span", { class: "file-choice-path" }, file.path), h("span", { class: "file-choice-size" }, formatBytes(file.size))));
        }),
      );
      if (shown.length > shownAtMost) list.append(h("li", { class: "muted" }, `${shown.length - shownAtMost} more: filter to find them.`));
    };
    filter.addEventListener("input", render);
    const dialog = openModal("Attach files of the project", () => [
      h("label", { for: "picker-filter", class: "visually-hidden" }, "Filter files"),
      filter,
      list,
      h(
        "form",
        { method: "dialog", class: "dialog-actions" },
        h("button", { class: "button button-quiet", value: "cancel" }, "Cancel"),
        h("button", { class: "button button-primary", value: "ok" }, "Attach"),
      ),
    ]);
    dialog.classList.add("dialog-wide");
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok" ? files.filter((file) => chosen.has(file.path)) : []));
    filter.focus();
    void api.listProjectFiles(projectId).then(
      (listing) => {
        files = listing.files;
        render();
      },
      (error: unknown) => {
        const failure = toApiError(error);
        list.replaceChildren(h("li", { role: "alert" }, `The files could not be listed (${failure.code}): ${failure.message}`));
      },
    );
  });
}
