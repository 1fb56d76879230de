/**
 * Test support: a scripted model for tests of a tool call that waits for a decision (test/approvals.test.ts,
 * test/mcp-approvals.test.ts). `save <path>`: the model says it saves a draft and calls save_output there (once);
 * after the call's result: "The tool said: <result>", so a test reads what the tool answered (or the member's
 * rejection) in the turn's answer; anything else: "Noted: <what was said>".
 */
import type { ChatRequestBody, ScriptedTurn } from "./http-model.js";
import { withoutSystemNote } from "./system-note.js";

export function saveDraftResponder(request: ChatRequestBody): ScriptedTurn {
  const lastUser = request.messages.findLastIndex((message) => message.role === "user");
  const said = withoutSystemNote(String(request.messages[lastUser]?.content ?? ""));
  const result = request.messages.slice(lastUser + 1).findLast((message) => message.role === "tool");
  if (result) return { text: `The tool said: ${String(result.content)}` };
  const path = /^save (\S+)$/.exec(said)?.[1];
  if (path) return { text: "Saving the draft.", toolCalls: [{ name: "save_output", arguments: { file_path: path, content: "the draft" } }] };
  return { text: `Noted: ${said}` };
}
