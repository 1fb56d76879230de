import type { VisibleMessage } from "@agent-orchestrator/shared/wire";

/**
 * The first message of a session started from `/v1` when the client brings instructions or an earlier
 * conversation that no session holds: both are carried in that one message, so the model sees each of
 * them exactly once, and later turns of the session do not repeat them. Deterministic, because the
 * session matcher rebuilds it to recognise the session on the next request.
 */
export function conversationEnvelope(instructions: string, earlier: readonly VisibleMessage[], message: string): string {
  if (instructions === "" && earlier.length === 0) return message;
  const parts: string[] = [];
  if (instructions !== "") parts.push(`Instructions from the client application:\n\n${instructions}`);
  if (earlier.length > 0) {
    const transcript = earlier.map((entry) => `**${entry.role === "user" ? "User" : "Assistant"}:** ${entry.content}`).join("\n\n");
    parts.push(`The conversation so far, carried over from the client:\n\n${transcript}`);
  }
  parts.push(`The user's new message:\n\n${message}`);
  return parts.join("\n\n---\n\n");
}
