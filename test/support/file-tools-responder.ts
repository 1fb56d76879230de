import type { ChatRequestBody, ScriptedTurn } from "./http-model.js";
import { withoutSystemNote } from "./system-note.js";

/**
 * A scripted model that drives the file tools by what the user says: `save <path>` then a newline and the
 * content (save_output), `read <path>` (read_file), `list <path>` (list_files); after the tool result it
 * answers with what it saw: the content read, the names listed, `saved <path> r<revision>`, or
 * `failed <error>`. Anything else is answered "Hello".
 */
export function fileToolsResponder(request: ChatRequestBody): ScriptedTurn {
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  const last = request.messages.at(-1);
  if (last?.role === "tool") {
    const result = JSON.parse(String(last.content)) as Record<string, unknown>;
    if (result["success"] !== true) return { text: `failed ${JSON.stringify(result["error"])}` };
    if (typeof result["content"] === "string") return { text: result["content"] };
    if (Array.isArray(result["entries"])) return { text: (result["entries"] as Array<{ name: string }>).map((entry) => entry.name).join(",") };
    return { text: `saved ${String(result["path"])} r${String(result["revision"])}` };
  }
  const [line = "", ...rest] = said.split("\n");
  const [verb = "", argument = ""] = line.split(/ (.*)/s, 2);
  if (verb === "save") return { toolCalls: [{ name: "save_output", arguments: { file_path: argument, content: rest.join("\n") } }] };
  if (verb === "read") return { toolCalls: [{ name: "read_file", arguments: { file_path: argument } }] };
  if (verb === "list") return { toolCalls: [{ name: "list_files", arguments: { path: argument } }] };
  return { text: "Hello" };
}
