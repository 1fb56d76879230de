import type { ToolHandler } from "./tool-handler.js";

/**
 * `save_output` → `{success, path, size, revision}`. The project's own file or the chat's scratch file it
 * names becomes a new revision with its author; the checks, the quota and the revision are decided by the
 * sandbox and the store before the reply (docs/projects.md "Storage").
 */
export const saveOutputTool: ToolHandler<"save_output"> = async (args, context, deps, call) => {
  const written = await deps.sandbox.write(context, args.file_path, args.content, {
    user: context.user,
    session_id: context.session_id,
    agent_id: context.agent_id,
    tool_call_id: call.call_id,
  });
  return { success: true, path: written.path, size: written.size, revision: written.revision };
};
