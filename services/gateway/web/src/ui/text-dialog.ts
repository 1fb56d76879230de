import { h } from "../lib/dom.js";
import { openModal } from "./modal-dialog.js";

export interface TextQuestion {
  title: string;
  label: string;
  value?: string;
  confirm: string;
  /** longest answer the API takes */
  maxLength?: number;
}

/** Asks for one line of text (a project's name, a chat's title); undefined when cancelled or left empty. */
export function askForText(question: TextQuestion): Promise<string | undefined> {
  return new Promise((resolve) => {
    const input = h("input", { id: "text-dialog-input", type: "text", autocomplete: "off", required: true, maxlength: question.maxLength ?? 200, value: question.value ?? "" });
    const dialog = openModal(question.title, () => [
      h(
        "form",
        { method: "dialog" },
        h("label", { for: "text-dialog-input" }, question.label),
        input,
        h(
          "div",
          { class: "dialog-actions" },
          h("button", { class: "button button-quiet", value: "cancel", formnovalidate: true }, "Cancel"),
          h("button", { class: "button button-primary", value: "ok" }, question.confirm),
        ),
      ),
    ]);
    input.select();
    dialog.addEventListener("close", () => {
      const text = input.value.trim();
      resolve(dialog.returnValue === "ok" && text !== "" ? text : undefined);
    });
  });
}
