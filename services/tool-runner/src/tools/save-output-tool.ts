import { authorOf, type ToolHandler } from "./tool-handler.js";

/**
 * `save_output` → `{success, path, size, revision}`. The project's own file or the chat's scratch file it
 * names becomes a new revision with its author: the whole content given, or with `mode: "append"` the file's
 * text with exactly that content added at its end (a missing file is created). The checks, the quota and the
 * revision are decided by the sandbox and the store before the reply (docs/projects.md "Storage",
 * docs/file-tools.md).
 */
export const saveOutputTool: ToolHandler<"save_output"> = async (args, context, deps, call) => {
  const author = authorOf(context, call);
  const written =
    args.mode === "append"
      ? await deps.sandbox.modify(context, args.file_path, (current) => (current ?? "") + args.content, author)
      : await deps.sandbox.write(context, args.file_path, args.content, author);
  return { success: true, path: written.path, size: written.size, revision: written.revision };
};
