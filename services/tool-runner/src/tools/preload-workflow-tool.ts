import { preloadWorkflow } from "../workflow/preload-workflow.js";
import { fitContentsToBudget } from "./reply-budget.js";
import { manifestSeedFor, type ToolHandler } from "./tool-handler.js";

/** Told to the model with every preload, so it does not spend turns reading the same files again. */
export const preloadNote = "These files are loaded; do not read them again with read_file.";

/**
 * `preload_workflow` → `{success, workflow:{name, description, variables}, files:[{path, content,
 * truncated}], missing:[path], note}`; the workflow is recorded in the session manifest.
 */
export const preloadWorkflowTool: ToolHandler<"preload_workflow"> = async (args, context, deps) => {
  const preloaded = await preloadWorkflow(deps.sandbox, context, args.workflow_path, { today: new Date(), logger: deps.logger });
  await deps.manifests.recordWorkflow(context.session_id, manifestSeedFor(context), {
    path: preloaded.path,
    started_at: new Date().toISOString(),
  });
  const reply = { success: true as const, workflow: preloaded.workflow, files: preloaded.files, missing: preloaded.missing, note: preloadNote };
  fitContentsToBudget(reply, reply.files, deps.replyBudget());
  return reply;
};
