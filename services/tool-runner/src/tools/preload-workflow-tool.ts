import { preloadWorkflow } from "../workflow/preload-workflow.js";
import { fitContentsToBudget } from "../reply-budget.js";
import type { ToolHandler } from "./tool-handler.js";

/** Told to the model with every preload, so it does not spend turns reading the same files again. */
export const preloadNote = "These files are loaded; do not read them again with read_file.";

/**
 * `preload_workflow` → `{success, workflow:{name, description, variables}, files:[{path, content,
 * truncated}], missing:[path], note}`.
 */
export const preloadWorkflowTool: ToolHandler<"preload_workflow"> = async (args, context, deps) => {
  const preloaded = await preloadWorkflow(deps.sandbox, context, args.workflow_path, { today: new Date(), logger: deps.logger, settings: context.settings });
  const reply = { success: true as const, workflow: preloaded.workflow, files: preloaded.files, missing: preloaded.missing, note: preloadNote };
  fitContentsToBudget(reply, reply.files, deps.replyBudget());
  return reply;
};
