import type { ApiError } from "../api/api-error.js";
import { h, type Child } from "../lib/dom.js";
import { errorHint } from "./error-hints.js";

/** An error as the user sees it: what happened (code and message) and, when known, what to do about it. */
export function errorCallout(error: Pick<ApiError, "code" | "message">, ...actions: Child[]): HTMLElement {
  const hint = errorHint(error.code);
  return h(
    "div",
    { class: "callout callout-error", role: "alert" },
    h("div", { class: "callout-title" }, h("span", { class: "error-code" }, error.code), h("span", {}, error.message)),
    hint ? h("p", { class: "callout-hint" }, hint) : null,
    actions.some(Boolean) ? h("div", { class: "callout-actions" }, ...actions) : null,
  );
}
