import { h } from "../lib/dom.js";
import { openModal } from "./modal-dialog.js";

/** Asks before something that cannot be undone; the cautious answer has the focus. */
export function confirmAction(question: { title: string; text: string; confirm: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = h("button", { class: "button button-quiet", value: "cancel" }, "Cancel");
    const dialog = openModal(question.title, () => [
      h(
        "form",
        { method: "dialog" },
        h("p", {}, question.text),
        h("div", { class: "dialog-actions" }, cancel, h("button", { class: "button button-danger", value: "ok" }, question.confirm)),
      ),
    ]);
    cancel.focus();
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"));
  });
}
