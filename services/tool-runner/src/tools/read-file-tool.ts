import { scratchTextForModel } from "../scripts/scratch-text.js";
import { countLines, lineRange } from "./line-range.js";
import { fitContentsToBudget } from "../reply-budget.js";
import type { ToolHandler } from "./tool-handler.js";

// room kept in the reply for the note a cut adds
const noteRoom = 128;

/**
 * `read_file` → `{success, path, content, size, total_lines, truncated}` (and `converted_from`, the document a
 * Markdown form was converted from), and with `offset` or `limit` the
 * lines asked for (`start_line`, `end_line`; docs/file-tools.md "read_file"). The content is cut further (and
 * `truncated` set, with a `note` saying where to read on) when the reply would not fit the connection's
 * max_payload. A script's scratch output names the sandbox's paths as virtual ones (scratch-text.ts).
 */
export const readFileTool: ToolHandler<"read_file"> = async (args, context, deps) => {
  const file = await deps.sandbox.read(context, args.file_path);
  const text = scratchTextForModel(file.path, file.content);
  const ranged = args.offset !== undefined || args.limit !== undefined;
  const range = ranged ? lineRange(text, file.path, args.offset, args.limit) : undefined;
  const reply: {
    success: true;
    path: string;
    content: string;
    size: number;
    total_lines: number;
    start_line?: number;
    end_line?: number;
    truncated: boolean;
    converted_from?: string;
    note?: string;
  } = {
    success: true,
    path: file.path,
    content: range?.content ?? text,
    size: file.size,
    total_lines: range?.total_lines ?? countLines(text),
    ...(range ? { start_line: range.start_line, end_line: range.end_line } : {}),
    truncated: file.truncated,
    // a document's Markdown form says which upload it is the text of
    ...(file.converted_from === undefined ? {} : { converted_from: file.converted_from }),
  };
  const full = reply.content;
  fitContentsToBudget(reply, [reply], deps.replyBudget() - noteRoom);
  if (reply.content !== full) {
    // the last whole line that fit: the model reads on from the next one
    const first = range?.start_line ?? 1;
    const lastWhole = first + countLines(reply.content.slice(0, reply.content.lastIndexOf("\n") + 1)) - 1;
    if (range) reply.end_line = lastWhole;
    reply.note = `Cut to fit the reply: read on with offset ${lastWhole + 1}.`;
  }
  return reply;
};
