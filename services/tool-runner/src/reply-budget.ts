import { AppError } from "@agent-orchestrator/shared/runtime";

/** Room kept inside NATS `max_payload` for the reply's headers and framing. */
export const replyOverheadBytes = 4096;

/** Bytes of `value` as a JSON reply. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

// bytes of a string inside a JSON document: escaping can make a file much bigger than it is on disk
const escapedBytes = (text: string): number => jsonBytes(text) - 2;

/**
 * The longest prefix of `text` whose JSON-escaped form fits `maxBytes`. Never ends between the two halves
 * of a surrogate pair, so the reply stays valid UTF-8.
 */
export function truncateToJsonBytes(text: string, maxBytes: number): string {
  if (escapedBytes(text) <= maxBytes) return text;
  const prefix = (length: number) => {
    const code = text.charCodeAt(length - 1);
    return text.slice(0, length > 0 && code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
  };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (escapedBytes(prefix(middle)) <= maxBytes) low = middle;
    else high = middle - 1;
  }
  return prefix(low);
}

/** Something in a reply with text that may be shortened. */
export interface Shrinkable {
  content: string;
  truncated: boolean;
}

/**
 * Makes `reply` fit `budget` bytes of JSON by shortening the largest `items` first and marking them
 * `truncated`, so a reply never exceeds the connection's max_payload (docs/security.md case 64).
 */
export function fitContentsToBudget(reply: object, items: readonly Shrinkable[], budget: number): void {
  for (let excess = jsonBytes(reply) - budget; excess > 0; excess = jsonBytes(reply) - budget) {
    let largest: Shrinkable | undefined;
    let largestBytes = 0;
    for (const item of items) {
      const bytes = escapedBytes(item.content);
      if (bytes > largestBytes) [largest, largestBytes] = [item, bytes];
    }
    if (!largest) throw new AppError("PAYLOAD_TOO_LARGE", "Reply too large");
    largest.content = truncateToJsonBytes(largest.content, Math.max(0, largestBytes - excess));
    largest.truncated = true;
  }
}
