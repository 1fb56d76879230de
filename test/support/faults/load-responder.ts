/**
 * The scripted model of a load turn, `load <token>`: three tool calls one after another (save a file
 * named after the token, read it back, list the session folder), then an answer quoting what it read.
 * Every call takes `latencyMs`. What a turn's answer and events must contain follows from its token, so
 * a turn that got another session's tool result or event shows it.
 */
import type { Responder } from "../http-model.js";
import { withoutSystemNote } from "../system-note.js";

/** Model calls of one load turn: three with a tool call, one with the answer. */
export const modelCallsPerLoadTurn = 4;

export const loadMessage = (token: string) => `load ${token}`;
export const loadFilePath = (token: string) => `{session-folder}/load-${token}.md`;
export const loadAnswer = (token: string, readBack: string) => `done ${token}: ${readBack}`;

export function loadResponder(latencyMs: number): Responder {
  return (request) => {
    const lastUser = request.messages.findLastIndex((message) => message.role === "user");
    const token = withoutSystemNote(String(request.messages[lastUser]?.content ?? "")).replace(/^load /, "");
    const results = request.messages.slice(lastUser + 1).filter((message) => message.role === "tool");
    const delayMs = latencyMs;
    switch (results.length) {
      case 0:
        return { delayMs, toolCalls: [{ name: "save_output", arguments: { file_path: loadFilePath(token), content: token } }] };
      case 1:
        return { delayMs, toolCalls: [{ name: "read_file", arguments: { file_path: loadFilePath(token) } }] };
      case 2:
        return { delayMs, toolCalls: [{ name: "list_files", arguments: { path: "{session-folder}" } }] };
      default: {
        const read = JSON.parse(String(results[1]?.content ?? "{}")) as { content?: string };
        return { delayMs, text: loadAnswer(token, read.content ?? "(nothing read)") };
      }
    }
  };
}
