import type { AttachedFile } from "@agent-orchestrator/shared/wire";
import { h } from "../lib/dom.js";
import { formatHashRoute } from "../lib/hash-route.js";

/** The files a sent message carried, each a link to it in the Files view (a document's Markdown form when it has one). */
export function attachmentChips(projectId: string, files: readonly AttachedFile[]): HTMLElement {
  return h(
    "ul",
    { class: "sent-attachments", "aria-label": "Attached files" },
    ...files.map((file) => {
      const target = file.markdown_path ?? file.path;
      return h(
        "li",
        {},
        h(
          "a",
          { class: "attachment-chip attachment-link", href: formatHashRoute({ view: "files", projectId, path: target }), "aria-label": `Open ${target}` },
          h("span", { class: "attachment-name" }, file.path.split("/").at(-1) ?? file.path),
          file.markdown_path ? h("span", { class: "attachment-size" }, "as Markdown") : null,
        ),
      );
    }),
  );
}
