import { parseJson } from "@agent-orchestrator/shared/runtime";

/** A value this store wrote; text that is not JSON any more becomes `undefined`, which its schema refuses. */
export function storedJson(text: string): unknown {
  const parsed = parseJson(text);
  return parsed.ok ? parsed.value : undefined;
}
