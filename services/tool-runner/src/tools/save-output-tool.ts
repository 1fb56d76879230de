import { manifestSeedFor, type ToolHandler } from "./tool-handler.js";

/** `save_output` → `{success, path, size}`; the file is recorded in the session manifest before the reply. */
export const saveOutputTool: ToolHandler<"save_output"> = async (args, context, deps) => {
  const written = await deps.sandbox.write(context, args.file_path, args.content);
  await deps.manifests.recordFile(context.session_id, manifestSeedFor(context), {
    path: written.path,
    size: written.size,
    written_at: new Date().toISOString(),
  });
  return { success: true, path: written.path, size: written.size };
};
