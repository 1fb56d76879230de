import { encodeJson, utf8PrefixEnd } from "@agent-orchestrator/shared/runtime";
import { type RunEvent } from "@agent-orchestrator/shared/wire";

/** Strings in tool-call arguments longer than this (characters) are shown as a preview in events. */
export const argumentPreviewChars = 4_096;
/** Whole tool-call arguments larger than this (bytes, as JSON) are replaced by one preview string. */
const argumentsBudgetBytes = 64 * 1024;
/** Nesting below this depth is shown as a marker: arguments come from the model and can be anything. */
const maxPreviewDepth = 8;

const byteLength = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8");

/** The first `maxChars` characters, cut on a code-point boundary. */
const headOf = (text: string, maxChars: number): string => Array.from(text.slice(0, maxChars + 1)).slice(0, -1).join("");

function previewString(text: string): string {
  if (text.length <= argumentPreviewChars) return text;
  return `${headOf(text, argumentPreviewChars)}\n[... cut for display: ${text.length} characters, ${Buffer.byteLength(text, "utf8")} bytes in all]`;
}

function previewValue(value: unknown, depth: number): { value: unknown; cut: boolean } {
  if (typeof value === "string") {
    const shown = previewString(value);
    return { value: shown, cut: shown !== value };
  }
  if (typeof value !== "object" || value === null) return { value, cut: false };
  if (depth >= maxPreviewDepth) return { value: "[... nested too deep to display]", cut: true };
  let cut = false;
  const walk = (item: unknown) => {
    const shown = previewValue(item, depth + 1);
    cut ||= shown.cut;
    return shown.value;
  };
  if (Array.isArray(value)) return { value: value.map(walk), cut };
  const shown = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]));
  return { value: shown, cut };
}

/**
 * What a `tool_call` event shows of the model's arguments: long strings cut to a preview that names their
 * full length, and the whole under a byte budget (64 KiB; a listing of many pending approvals gives less). The
 * tool itself always gets the full arguments.
 */
export function previewArguments(args: Record<string, unknown>, budgetBytes = argumentsBudgetBytes): { arguments: Record<string, unknown>; truncated: boolean } {
  const shown = previewValue(args, 0);
  const value = shown.value as Record<string, unknown>;
  if (byteLength(value) <= budgetBytes) return { arguments: value, truncated: shown.cut };
  const json = JSON.stringify(value);
  return { arguments: { preview: `${headOf(json, argumentPreviewChars)}\n[... cut for display: ${byteLength(args)} bytes in all]` }, truncated: true };
}

/** The longest prefix of `text` whose UTF-8 encoding takes at most `maxBytes`, cut on a code-point boundary. */
export function prefixWithinBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.byteLength <= maxBytes) return text;
  return bytes.subarray(0, utf8PrefixEnd(bytes, maxBytes)).toString("utf8");
}

/** One event to publish and its JSON, encoded once. */
export interface BoundedEvent {
  event: RunEvent;
  data: Uint8Array;
}

/**
 * Fits one run event under `maxBytes` once encoded (NATS refuses a larger payload, and the event stream
 * stores what is published): a `tool_call` always carries previewed arguments; a long `delta` becomes
 * several; a `done` answer or an `error` message is cut, with a flag or marker saying so (the whole answer
 * is in the session). Returns the events to publish in order, numbered from the event's `seq`, each with
 * its encoding: an event that fits (nearly all) is encoded once, and that encoding is what is sent.
 */
export function boundEvent(event: RunEvent, maxBytes: number): BoundedEvent[] {
  const fitted: RunEvent = event.type === "tool_call" ? withPreview(event) : event;
  const data = encodeJson(fitted);
  if (data.byteLength <= maxBytes) return [{ event: fitted, data }];
  return overBudget(fitted, data.byteLength - maxBytes, maxBytes).map((piece, index) => {
    const numbered = { ...piece, seq: event.seq + index };
    return { event: numbered, data: encodeJson(numbered) };
  });
}

function overBudget(fitted: RunEvent, overBy: number, maxBytes: number): RunEvent[] {
  switch (fitted.type) {
    case "delta":
      return splitDelta(fitted, maxBytes);
    case "done":
      return [{ ...fitted, response: prefixWithinBytes(fitted.response, Buffer.byteLength(fitted.response) - overBy - 64), response_truncated: true }];
    case "error":
      return [{ ...fitted, error: { ...fitted.error, message: prefixWithinBytes(fitted.error.message, 1_024) } }];
    default:
      // session and tool_result events hold only ids, names and numbers: small by construction
      return [fitted];
  }
}

function withPreview(event: Extract<RunEvent, { type: "tool_call" }>): RunEvent {
  const shown = previewArguments(event.arguments);
  return shown.truncated ? { ...event, arguments: shown.arguments, arguments_truncated: true } : event;
}

function splitDelta(event: Extract<RunEvent, { type: "delta" }>, maxBytes: number): RunEvent[] {
  const room = Math.max(1_024, maxBytes - byteLength({ ...event, text: "" }) - 64);
  const pieces: RunEvent[] = [];
  // JSON escaping can grow a character up to 6 bytes; a piece of room/6 bytes always fits
  let rest = event.text;
  while (rest !== "") {
    const piece = prefixWithinBytes(rest, Math.floor(room / 6)) || Array.from(rest)[0] || "";
    pieces.push({ ...event, text: piece });
    rest = rest.slice(piece.length);
  }
  return pieces;
}
