import { h } from "../lib/dom.js";

/** What a viewer sees where the page would let an editor act: they may read, and who may change that. */
export function readOnlyNote(): HTMLElement {
  return h("p", { class: "read-only-note", role: "note" }, h("strong", {}, "You can read this project."), " You are a viewer: ask its owner to make you an editor to chat or change files.");
}
