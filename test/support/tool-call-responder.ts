import type { ChatRequestBody, ScriptedTurn } from "./http-model.js";
import { withoutSystemNote } from "./system-note.js";

/**
 * A scripted model that makes exactly the tool call the user writes: `call <tool>` on the first line and the
 * arguments as JSON below it. After the tool result it answers with that result, verbatim, so a test reads what
 * the tool answered the model. Anything else is answered "Hello".
 */
export function toolCallResponder(request: ChatRequestBody): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role === "tool") return { text: String(last.content) };
  const said = withoutSystemNote(String(request.messages.filter((message) => message.role === "user").at(-1)?.content ?? ""));
  const [line = "", ...rest] = said.split("\n");
  const [verb, name] = line.split(" ");
  if (verb !== "call" || name === undefined) return { text: "Hello" };
  return { toolCalls: [{ name, arguments: JSON.parse(rest.join("\n")) as Record<string, unknown> }] };
}
