import { byId, h } from "../lib/dom.js";

/** Brief notices for what went wrong outside the conversation (a refresh, a stop request), gone after a while. */
export function showToast(text: string, kind: "info" | "error" = "info"): void {
  const region = byId<HTMLElement>("toasts");
  const toast = h("div", { class: `toast toast-${kind}` }, text);
  region.append(toast);
  setTimeout(() => toast.remove(), kind === "error" ? 8000 : 4000);
}
