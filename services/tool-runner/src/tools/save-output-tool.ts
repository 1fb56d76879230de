import { manifestSeedFor, type ToolHandler } from "./tool-handler.js";

/**
 * `save_output` → `{success, path, size}`. The write is checked first, then admitted against the session
 * quota, written and recorded in the session manifest in one turn of its lock, before the reply.
 */
export const saveOutputTool: ToolHandler<"save_output"> = async (args, context, deps) => {
  const prepared = await deps.sandbox.prepareWrite(context, args.file_path, args.content);
  const listed = await deps.manifests.writeFile(context.session_id, manifestSeedFor(context), prepared, () => prepared.commit());
  return { success: true, path: listed.path, size: listed.size };
};
