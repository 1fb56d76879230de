import type { AttachedFile } from "@agent-orchestrator/shared/wire";
import { h } from "../lib/dom.js";
import { formatHashRoute } from "../lib/hash-route.js";

/**
 * The files a sent message carried, each a link to it in the Files view (a document's Markdown form when it has one);
 * a file kept in the chat's scratch space (a project with a git repository) is named, not linked: the Files view
 * shows the project's files.
 */
export function attachmentChips(projectId: string, files: readonly AttachedFile[]): HTMLElement {
  return h(
    "ul",
    { class: "sent-attachments", "aria-label": "Attached files" },
    ...files.map((file) => {
      const target = file.markdown_path ?? file.path;
      const parts = [h("span", { class: "attachment-name" }, file.path.split("/").at(-1) ?? file.path), file.markdown_path ? h("span", { class: "attachment-size" }, "as Markdown") : null];
      if (file.folder === "session") return h("li", {}, h("span", { class: "attachment-chip", title: `{session-folder}/${file.path}` }, ...parts));
      return h("li", {}, h("a", { class: "attachment-chip attachment-link", href: formatHashRoute({ view: "files", projectId, path: target }), "aria-label": `Open ${target}` }, ...parts));
    }),
  );
}
