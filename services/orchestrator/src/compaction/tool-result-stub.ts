import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { stringArgument, type IndexedToolCall } from "./tool-call-index.js";

/** A tool result or argument shorter than this (characters) stays as it is: its stub would save little. */
export const stubMinChars = 1_000;

/** The tools whose result is the same when called again with the same arguments (they only read). */
const readingTools = new Set(["read_file", "list_files", "find_files", "search_files", "preload_workflow", "load_skill"]);

/**
 * An old tool result as a stub that says what it was and how to read it again (docs/models.md "Compaction"). The
 * message stays, with its `tool_call_id`, so no call is ever without its result. A short result is kept.
 */
export function stubbedToolResult(message: ChatCompletionMessageParam, call: IndexedToolCall | undefined): ChatCompletionMessageParam {
  if (message.role !== "tool" || typeof message.content !== "string" || message.content.length < stubMinChars) return message;
  const size = message.content.length.toLocaleString("en-US");
  const what = call ? `${call.name}(${shortArguments(call)})` : "an earlier tool call";
  const again = call && readingTools.has(call.name) ? `Call ${call.name} again with the same arguments if you need it.` : "It is not kept in this prompt.";
  return { ...message, content: `[Compacted: the result of ${what}, ${size} characters, was removed to save context. ${again}]` };
}

/**
 * An old assistant message whose long argument strings (a document `save_output` wrote, an `edit_file`'s text) are
 * replaced by a note naming their length; the arguments stay a JSON object, so the model still sees which file
 * it wrote and can read it as it is now.
 */
export function stubbedArguments(message: ChatCompletionMessageParam, calls: ReadonlyMap<string, IndexedToolCall>): ChatCompletionMessageParam {
  if (message.role !== "assistant" || !message.tool_calls?.some((call) => call.type === "function" && call.function.arguments.length >= stubMinChars)) return message;
  const tool_calls = message.tool_calls.map((call) => {
    if (call.type !== "function" || call.function.arguments.length < stubMinChars) return call;
    const indexed = calls.get(call.id);
    const path = stringArgument(indexed, "file_path");
    const args = Object.fromEntries(
      Object.entries(indexed?.args ?? {}).map(([key, value]) => {
        if (typeof value !== "string" || value.length < 200) return [key, value];
        const readAgain = path ? `; read_file ${path} to see the file as it is now` : "";
        return [key, `[${value.length.toLocaleString("en-US")} characters, removed to save context${readAgain}]`];
      }),
    );
    return { ...call, function: { ...call.function, arguments: JSON.stringify(args) } };
  });
  return { ...message, tool_calls };
}

/** A call's arguments as a stub names them: JSON with long strings cut. */
function shortArguments(call: IndexedToolCall): string {
  const shown = Object.fromEntries(Object.entries(call.args).map(([key, value]) => [key, typeof value === "string" && value.length > 200 ? `${value.slice(0, 200)}…` : value]));
  return JSON.stringify(shown);
}
