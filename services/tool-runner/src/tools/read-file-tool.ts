import { scratchTextForModel } from "../scripts/scratch-text.js";
import { fitContentsToBudget } from "./reply-budget.js";
import type { ToolHandler } from "./tool-handler.js";

/**
 * `read_file` → `{success, path, content, size, truncated}`. The content is cut further (and `truncated`
 * set) when the reply would not fit the connection's max_payload. A script's scratch output names the
 * sandbox's paths as virtual ones (scratch-text.ts).
 */
export const readFileTool: ToolHandler<"read_file"> = async (args, context, deps) => {
  const file = await deps.sandbox.read(context, args.file_path);
  const reply = { success: true as const, path: file.path, content: scratchTextForModel(file.path, file.content), size: file.size, truncated: file.truncated };
  fitContentsToBudget(reply, [reply], deps.replyBudget());
  return reply;
};
