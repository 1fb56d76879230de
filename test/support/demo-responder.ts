/**
 * Rules that make the scripted model behave like a (very small) agent, for trying the system by hand
 * without a real model: it reads, lists and saves files through the real tools, and otherwise answers
 * with what it was asked. Deterministic, so the README's first chat always gives the same answer.
 */
import type { ChatRequestBody, Responder, ScriptedTurn } from "./http-model.js";
import { withoutSystemNote } from "./system-note.js";

export const demoResponder: Responder = (request: ChatRequestBody): ScriptedTurn => {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === "tool") return { text: summariseToolResult(String(last.content ?? "")) };

  const said = withoutSystemNote(String(last?.content ?? "")).trim();
  const lower = said.toLowerCase();
  if (lower.includes("config")) return { toolCalls: [{ name: "read_file", arguments: { file_path: "{bundle-root}/config.yaml" } }] };
  if (lower.startsWith("*idea-brief") || lower.includes("workflow")) {
    return { toolCalls: [{ name: "preload_workflow", arguments: { workflow_path: "{bundle-root}/workflows/idea-brief/workflow.yaml" } }] };
  }
  if (lower.startsWith("save ")) {
    return { toolCalls: [{ name: "save_output", arguments: { file_path: "{session-folder}/note.md", content: `# Note\n\n${said.slice(5)}\n` } }] };
  }
  if (lower.includes("files")) return { toolCalls: [{ name: "list_files", arguments: { path: "{session-folder}" } }] };
  return {
    text:
      `You said: "${said}". I am the scripted demo model, not a real LLM. ` +
      `Try "show me the config", "*idea-brief", "save <some text>" or "list my files".`,
  };
};

function summariseToolResult(content: string): string {
  try {
    const result = JSON.parse(content) as { success?: boolean; content?: string; path?: string; error?: { message?: string } };
    if (result.success === false) return `The tool said: ${result.error?.message ?? "it failed"}.`;
    if (typeof result.content === "string") return `Here is ${result.path ?? "the file"}:\n\n${result.content}`;
    if (result.path) return `Done: ${result.path}.`;
  } catch {
    // not JSON: quote it as text
  }
  return `The tool answered:\n\n${content.slice(0, 2000)}`;
}
