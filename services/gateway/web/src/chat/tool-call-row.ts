import type { RunEvent } from "@agent-orchestrator/shared/wire";
import { h } from "../lib/dom.js";
import { formatDuration } from "../lib/format.js";
import { sessionRelativePath, toolCallTarget, writesFile } from "./tool-call-target.js";

export type ToolCallEvent = Extract<RunEvent, { type: "tool_call" }>;
export type ToolResultEvent = Extract<RunEvent, { type: "tool_result" }>;

/** Codes by which the sandbox refuses a path: shown as "denied" rather than "failed". */
const refusals = new Set(["ACCESS_DENIED", "PATH_OUTSIDE_ROOT", "SYMLINK_ESCAPE", "PROTECTED_PATH", "INVALID_PATH", "PATH_CHANGED", "NAME_TOO_LONG"]);

/** A tool call as it happens: name and path at once, then ok, denied or failed with its code and duration. */
export interface ToolCallRow {
  element: HTMLLIElement;
  complete(result: ToolResultEvent): void;
  /** the turn ended before the tool answered (stopped, or failed elsewhere) */
  abandon(): void;
  /** shows a subagent's tool call under this (run_subagent) call */
  nest(child: HTMLLIElement): void;
}

export function toolCallRow(call: ToolCallEvent, openFile: (relativePath: string) => void): ToolCallRow {
  const target = toolCallTarget(call.arguments);
  const path = h("span", { class: "tool-path", title: target }, target ?? "");
  const outcome = h("span", { class: "tool-outcome" }, "running…");
  const status = h("span", { class: "tool-status", "aria-hidden": "true" });
  const element = h("li", { class: "tool-call is-running", "data-call-id": call.call_id }, status, h("span", { class: "tool-name" }, call.name), path, outcome);
  let nested: HTMLUListElement | undefined;

  return {
    element,
    complete(result) {
      const shownPath = result.path ?? target;
      if (shownPath) {
        path.textContent = shownPath;
        path.title = shownPath;
      }
      const verdict = result.success ? "ok" : result.error_code && refusals.has(result.error_code) ? "denied" : "failed";
      element.classList.remove("is-running");
      element.classList.add(`is-${verdict}`);
      outcome.replaceChildren(
        h("span", { class: "tool-verdict" }, verdict),
        ...(result.error_code ? [h("span", { class: "tool-error-code" }, result.error_code)] : []),
        h("span", { class: "tool-duration" }, formatDuration(result.duration_ms)),
      );
      const relative = result.success && writesFile(result.name) && shownPath ? sessionRelativePath(shownPath) : undefined;
      if (relative) {
        element.append(h("button", { type: "button", class: "link-button tool-open", onclick: () => openFile(relative), "aria-label": `Open ${relative}` }, "Open"));
      }
    },
    nest(child) {
      if (!nested) {
        nested = h("ul", { class: "tool-calls subagent-calls", "aria-label": "The subagent's tool calls" });
        element.append(nested);
      }
      nested.append(child);
    },
    abandon() {
      if (!element.classList.contains("is-running")) return;
      element.classList.replace("is-running", "is-unfinished");
      outcome.textContent = "no result";
    },
  };
}
