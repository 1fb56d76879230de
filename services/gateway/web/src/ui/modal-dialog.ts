import { h, type Child } from "../lib/dom.js";

/**
 * A modal `<dialog>` built for one question and removed once answered. The browser's own modal keeps the
 * focus inside and closes it on Escape; the focus goes back to where it was.
 */
export function openModal(titleText: string, build: (dialog: HTMLDialogElement, titleId: string) => Child[]): HTMLDialogElement {
  const titleId = `dialog-title-${Math.random().toString(36).slice(2, 10)}`;
  const dialog = h("dialog", { class: "dialog", "aria-labelledby": titleId });
  const previous = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
  dialog.append(h("h2", { id: titleId }, titleText), ...build(dialog, titleId).filter((child): child is Node | string => Boolean(child)));
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (previous?.isConnected) previous.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}
